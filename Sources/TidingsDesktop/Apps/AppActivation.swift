import TidingsBase

/// Hands responses to apps the freedesktop way: ActivateAction on the app's bus name.
///
/// The app's bus name is its app identifier (`com.example.events`), its
/// object the name with `.` as `/` (`/com/example/events`). A response
/// becomes `ActivateAction("tidings.response", [a{sv}], {})` there (see
/// Docs/reference/desktop-activation.md for the parameter); a name that
/// nobody owns but a service file names is started by D-Bus activation,
/// which the call waits for. Every call is asynchronous, with sd-bus's
/// default deadline (25 s, which covers the bus's own activation timeout):
/// `forward` returns at once and its outcome comes later, inside the bus
/// connection's `processPending`.
///
/// An app that answers ActivateAction with UnknownMethod (it implements
/// `Activate` only) cannot take the response: the outcome is `.failed` and
/// the entry stays in the inbox, but when the response opens the app it is
/// activated all the same.
///
/// Used on the bus connection's thread only, like the connection.
package final class AppActivation {
    /// What became of one response.
    package enum Outcome: Hashable, Sendable {
        /// The app answered ActivateAction: take the entry from the inbox. `to`
        /// is the unique name (`:1.42`) of the connection that answered (the
        /// one the response went to); `activatable` is true when the app's
        /// name has a service file (D-Bus activation starts the program it
        /// names), false when only a running connection owned the name.
        case delivered(to: String, activatable: Bool)
        /// The app has no bus name (not owned, not activatable, not a valid name): keep it in the inbox.
        case noBusName
        /// The call failed: keep it in the inbox; the sentence says why.
        case failed(String)
    }

    /// The D-Bus errors that say the app lacks ActivateAction.
    static let noSuchMethod: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
    ]
    /// The D-Bus errors that say the name has no owner and none could be started.
    static let noOwner: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]

    private let activatable = ActivatableNames()

    /// An activation with an empty cache of activatable names.
    package init() {}

    /// Forwards a `response.forwarded` event's params (or an inbox entry of kind
    /// "response", as inbox.list answers it) to its app; never blocks the loop
    /// (asynchronous D-Bus call); `completion` runs later on the bus's thread,
    /// inside `processPending`.
    ///
    /// An entry that is not a response (a member missing or of another type)
    /// is `.failed` with a sentence saying what is wrong. Only when the
    /// connection cannot even take a call (it is closed) does `completion`
    /// run before this returns, with `.failed`; when the connection goes
    /// away (its owner's deinit) before the outcome, `completion` never runs,
    /// and the entry, still in the inbox, is replayed to the next connection.
    package func forward(_ entry: JSON, on bus: borrowing BusConnection,
                         completion: @escaping (Outcome) -> Void) {
        let response: AppResponse
        do throws(AppResponse.Malformed) {
            response = try AppResponse(entry: entry)
        } catch {
            return later(.failed("cannot forward the response: \(error.sentence)"), on: bus, completion)
        }
        guard BusName.isWellKnown(response.app) else { return later(.noBusName, on: bus, completion) }
        // The activatable name first: a service file installed for the app names
        // the program D-Bus starts for it. A name that only a running connection
        // owns (no service file) is taken next, and the outcome says so.
        activatable.contains(response.app, on: bus) { [self] bus, listed in
            switch listed {
            case .success(true):
                activate(response, activatable: true, on: bus, completion)
            case .success(false):
                askOwner(response, on: bus, completion)
            case .failure(let error):
                completion(.failed("cannot list the activatable names: \(error.message)"))
            }
        }
    }

    /// Hands `response` to the connection that owns its app's name, when one
    /// does (its name not being activatable).
    private func askOwner(_ response: AppResponse, on bus: borrowing BusConnection,
                          _ completion: @escaping (Outcome) -> Void) {
        do throws(BusError) {
            try BusDaemonClient.nameHasOwner(response.app, on: bus) { [self] bus, owned in
                switch owned {
                case .success(true): activate(response, activatable: false, on: bus, completion)
                case .success(false): completion(.noBusName)
                case .failure(let error): completion(.failed("cannot ask the bus who owns \(response.app): \(error.message)"))
                }
            }
        } catch {
            completion(.failed("cannot ask the bus who owns \(response.app): \(error.message)"))
        }
    }

    /// Calls ActivateAction on the app; falls back to Activate when it has none and the response opens it.
    private func activate(_ response: AppResponse, activatable: Bool, on bus: borrowing BusConnection,
                          _ completion: @escaping (Outcome) -> Void) {
        let app = ApplicationClient(busName: response.app)
        do throws(BusError) {
            try app.activateAction(AppResponse.actionName, parameter: .dictionary(response.parameter), on: bus) {
                bus, result in
                switch result {
                case .success(let receiver):
                    completion(.delivered(to: receiver, activatable: activatable))
                case .failure(let error) where error.name.map(Self.noOwner.contains) == true:
                    completion(.noBusName)
                case .failure(let error) where error.name.map(Self.noSuchMethod.contains) == true:
                    let sentence = "\(response.app) has no ActivateAction (\(error.name ?? "")): "
                        + "the response stays in its inbox"
                    guard response.opensApp else { return completion(.failed(sentence)) }
                    do throws(BusError) {
                        try app.activate(on: bus) { _, activated in
                            switch activated {
                            case .success: completion(.failed(sentence + "; the app was activated instead"))
                            case .failure(let error):
                                completion(.failed(sentence + "; activating it failed too: \(error.message)"))
                            }
                        }
                    } catch {
                        completion(.failed(sentence + "; activating it failed too: \(error.message)"))
                    }
                case .failure(let error):
                    completion(.failed("\(response.app) did not take the response: \(error.message)"))
                }
            }
        } catch {
            completion(.failed("cannot call \(response.app): \(error.message)"))
        }
    }

    /// Runs `completion` with `outcome` after a round trip to the bus, so
    /// that it comes inside `processPending` as every other outcome does.
    private func later(_ outcome: Outcome, on bus: borrowing BusConnection, _ completion: @escaping (Outcome) -> Void) {
        do throws(BusError) {
            try BusDaemonClient.roundTrip(on: bus) { _, _ in completion(outcome) }
        } catch {
            completion(outcome)
        }
    }
}
