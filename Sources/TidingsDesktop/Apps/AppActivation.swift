// STUB: replaced by APPS at merge
import TidingsBase

/// Hands responses to apps the freedesktop way: ActivateAction on the app's bus name.
package final class AppActivation {
    /// What became of one response.
    package enum Outcome: Hashable, Sendable {
        /// The app answered ActivateAction (or Activate): take the entry from the inbox.
        case delivered
        /// The app has no bus name: keep it in the inbox.
        case noBusName
        /// The call failed: keep it in the inbox; the sentence says why.
        case failed(String)
    }

    /// A forwarder with nothing pending.
    package init() {}

    /// Forwards a `response.forwarded` event's params (or an inbox entry of kind "response") to its app.
    package func forward(_ entry: JSON, on bus: borrowing BusConnection, completion: @escaping (Outcome) -> Void) {
        completion(.noBusName)
    }
}
