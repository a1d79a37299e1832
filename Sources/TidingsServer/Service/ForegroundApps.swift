import Synchronization
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Which apps are in the foreground, on which connection, and whether they
/// have a presentation delegate (`apps.foreground`); and how a notification
/// for each is presented, as iOS asks
/// `userNotificationCenter(_:willPresent:withCompletionHandler:)`.
///
/// An app is in the foreground on the connection that said so last; it
/// leaves when that connection says otherwise or ends. A notification for
/// an app in the background has every option; for an app in the
/// foreground, what its delegate answers `app.willPresent` within the
/// deadline, and nothing (not presented) without a delegate, on an error or
/// without an answer in time.
package final class ForegroundApps: Sendable {
    /// One app in the foreground.
    private struct Entry {
        weak var client: (any EventReceiver)?
        /// Its connection, to tell it from others once it is gone.
        let key: ObjectIdentifier
        /// It has a presentation delegate, asked `app.willPresent`.
        let delegate: Bool
    }

    /// The apps in the foreground, and how many each connection holds.
    private struct Table {
        var entries: [String: Entry] = [:]
        var held: [ObjectIdentifier: Int] = [:]

        /// Puts `entry` for `app` (or none), keeping the counts.
        mutating func put(_ entry: Entry?, for app: String) {
            if let old = entries[app] {
                let left = held[old.key, default: 1] - 1
                held[old.key] = left > 0 ? left : nil
            }
            entries[app] = entry
            if let entry { held[entry.key, default: 0] += 1 }
        }
    }

    private let table = Mutex(Table())
    /// How long a delegate has to answer, in seconds.
    let deadline: Double

    /// No app in the foreground; delegates answer within `deadline` seconds.
    package init(deadline: Double) {
        self.deadline = deadline
    }

    /// The most apps one connection may say are in the foreground at once:
    /// an app's connection names its own, a front end a few.
    static let appsPerConnection = 64

    /// Records that `app` is (or is no longer) in the foreground on
    /// `client`'s connection, with a delegate or not. An app leaving the
    /// foreground on another connection than the one it is on changes nothing.
    /// - Returns: false, changing nothing, when the connection holds
    ///   `appsPerConnection` other apps in the foreground already.
    func set(_ app: String, foreground: Bool, delegate: Bool, on client: any EventReceiver) -> Bool {
        let key = ObjectIdentifier(client)
        return table.withLock { table in
            if foreground {
                guard table.entries[app]?.key == key || table.held[key, default: 0] < Self.appsPerConnection else { return false }
                table.put(Entry(client: client, key: key, delegate: delegate), for: app)
            } else if table.entries[app]?.key == key || (table.entries[app] != nil && table.entries[app]?.client == nil) {
                table.put(nil, for: app)
            }
            return true
        }
    }

    /// Forgets every app `client`'s connection said was in the foreground: it ended.
    func forget(_ client: any EventReceiver) {
        let key = ObjectIdentifier(client)
        table.withLock { table in
            for (app, entry) in table.entries where entry.key == key || entry.client == nil { table.put(nil, for: app) }
        }
    }

    /// True when `app` is in the foreground on a connection still open.
    package func isForeground(_ app: String) -> Bool {
        table.withLock { $0.entries[app]?.client != nil }
    }

    /// How `notification` for `app` is presented (a `PresentationDecider`):
    /// every option in the background; in the foreground, its delegate's
    /// answer, asked on its connection.
    func decide(_ app: String, _ notification: UserNotification,
                answer: @escaping @Sendable (PresentationDecision) -> Void) {
        let entry = table.withLock { $0.entries[app] }
        guard let entry, let client = entry.client else { return answer(.all) }
        guard entry.delegate, let asked = client as? any RequestReceiver else {
            return answer(PresentationDecision(options: [], diagnostics: [.note(
                .foregroundNoDelegate, "\(app) is in the foreground without a presentation delegate: the notification is not presented.")]))
        }
        let params: JSON = .object([("app", .string(app)), ("notification", notification.json)])
        asked.ask(MethodName.appWillPresent.rawValue, params, within: deadline) { [deadline] reply in
            answer(Self.decision(of: reply, app: app, deadline: deadline))
        }
    }

    /// The decision the delegate's `reply` makes.
    private static func decision(of reply: ClientReply, app: String, deadline: Double) -> PresentationDecision {
        let withheld = "the notification is not presented"
        switch reply {
        case .result(let result):
            guard let given = result["options"]?.arrayValue, given.allSatisfy({ $0.stringValue != nil }) else {
                return PresentationDecision(options: [], diagnostics: [.warning(
                    .foregroundBadAnswer, "\(app)'s answer to app.willPresent has no \"options\" array of names: \(withheld).")])
            }
            let (options, unknown) = PresentationOptions.named(given.compactMap(\.stringValue))
            let known = PresentationOptions.names.map(\.0).joined(separator: ", ")
            return PresentationDecision(options: options, diagnostics: unknown.map { name in
                .warning(.foregroundBadAnswer, "\(app) answered app.willPresent with the option \"\(name)\", which is not one of \(known): it is ignored.")
            })
        case .error(let error):
            return PresentationDecision(options: [], diagnostics: [.warning(
                .foregroundBadAnswer, "\(app) answered app.willPresent with an error (\(error.code): \(error.message)): \(withheld).")])
        case .timedOut:
            return PresentationDecision(options: [], diagnostics: [.warning(
                .foregroundNoAnswer, "\(app) did not answer app.willPresent within \(NumberText.short(deadline)) s: \(withheld).")])
        case .gone:
            // Its connection ended meanwhile: the app is in the background now.
            return .all
        }
    }
}

extension Diagnostic.Code {
    /// An app in the foreground without a presentation delegate: its notification is not presented.
    static let foregroundNoDelegate = Self("foreground.no-delegate")
    /// An app's delegate did not answer `app.willPresent` in time: its notification is not presented.
    static let foregroundNoAnswer = Self("foreground.no-answer")
    /// An app's delegate answered `app.willPresent` with an error, without options, or with an option not known.
    static let foregroundBadAnswer = Self("foreground.bad-answer")
}
