/// What a delivery's stage did, for `tidings deliver --explain` and front ends.
package enum StageReport: Sendable, Equatable {
    /// Why no service extension ran.
    package enum SkipReason: Sendable, Equatable {
        /// A local request: only remote notifications go through service extensions.
        case local
        case notMutable
        case noAlert
        case noServiceExtension(app: String)
        /// It ran (or not) when the notification was first delivered; this is a redelivery.
        case delivered
    }

    /// Why the original content was kept.
    package enum KeepReason: Sendable, Equatable {
        case timedOut
        case handedBackNothing
        case removedAlert
    }

    case skipped(SkipReason)
    case failed(extension: String)
    case kept(extension: String, reason: KeepReason, milliseconds: Double)
    case rewrote(extension: String, changes: [String], afterExpiry: Bool, milliseconds: Double)

    /// One sentence saying what happened.
    package var sentence: String {
        switch self {
        case .skipped(.local):
            "No service extension ran: the notification is a local request, and only remote notifications go through service extensions."
        case .skipped(.notMutable):
            "No service extension ran: aps.mutable-content is not 1."
        case .skipped(.noAlert):
            "No service extension ran: the notification has no alert text (title, subtitle or body)."
        case .skipped(.noServiceExtension(let app)):
            "No service extension ran: app \(app) has none on the search path."
        case .skipped(.delivered):
            "No service extension ran: the notification was delivered before and is shown again."
        case .failed(let identifier):
            "\(identifier) failed; the original content is shown."
        case .kept(let identifier, .timedOut, _):
            "\(identifier) gave no content in time; the original content is shown."
        case .kept(let identifier, .handedBackNothing, _):
            "\(identifier) handed back no content; the original content is shown."
        case .kept(let identifier, .removedAlert, _):
            "\(identifier) removed the alert text, so its change was ignored."
        case .rewrote(let identifier, let changes, let afterExpiry, _):
            "\(identifier) rewrote the notification"
                + (changes.isEmpty ? " (no visible change)" : ": " + changes.joined(separator: ", "))
                + (afterExpiry ? ", after time-will-expire." : ".")
        }
    }

    /// How long the extension took, in milliseconds, when one ran.
    package var milliseconds: Double? {
        switch self {
        case .kept(_, _, let milliseconds), .rewrote(_, _, _, let milliseconds): milliseconds
        default: nil
        }
    }
}
