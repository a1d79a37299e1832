import TidingsBase

/// What the front ends said of the user's UnifiedPush distributor
/// (`push.distributor`), and the status of a registration it makes: what
/// `push.register` and `push.list` answer, and what `tidings push status` says.
package struct PushDistributor: Sendable, Equatable {
    /// The status of a registration, or of push on this server.
    package enum Status: String, Sendable, CaseIterable {
        /// The endpoint is known: the app's server can push to it.
        case registered
        /// A front end registered it with a distributor and waits for the endpoint.
        case pending
        /// The front end found no distributor on the session bus.
        case noDistributor
        /// No front end has reported: `tidings desktop` is not running.
        case noFrontEnd
    }

    /// Whether a front end has reported since the server started.
    package var reported = false
    /// The distributor's name (its D-Bus name), nil when there is none.
    package var name: String?
    /// What the front end added (why there is none, what it found).
    package var note: String?
    /// The connection of the front end that reported, so that its end takes the report with it.
    package var reporter: ObjectIdentifier?

    /// No front end has reported.
    package init() {}

    /// The status of a registration whose endpoint is `endpoint`.
    package func status(endpoint: String?) -> Status {
        if endpoint != nil { return .registered }
        if !reported { return .noFrontEnd }
        return name == nil ? .noDistributor : .pending
    }

    /// The status of push itself, whatever registration: `registered` once a
    /// front end registered with a distributor.
    package var status: Status {
        if !reported { return .noFrontEnd }
        return name == nil ? .noDistributor : .registered
    }

    /// What `status` means for the person, in a sentence or two; with
    /// `failure`, the distributor's last refusal of the registration.
    package func message(for status: Status, failure: String? = nil) -> String {
        let refused = failure.map { " The distributor refused the last registration: \($0)." } ?? ""
        switch status {
        case .registered:
            return "Registered with \(name ?? "the distributor"): hand the endpoint, publicKey and auth to the app's server, which sends Web Push (aes128gcm) messages to the endpoint."
        case .pending:
            return "\(name ?? "The distributor") is registering it; push.new-endpoint tells the endpoint once it has one.\(refused)"
        case .noDistributor:
            let said = note.map { " (\($0))" } ?? ""
            return "No UnifiedPush distributor is on the session bus\(said): install one, such as KUnifiedPush or ntfy's desktop distributor, and the registration completes by itself.\(refused)"
        case .noFrontEnd:
            return "No front end has reported a UnifiedPush distributor: run `tidings desktop`, which registers with the user's distributor."
        }
    }
}
