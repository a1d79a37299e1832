import Synchronization
import TidingsABI
import TidingsBase
import TidingsManifest

/// The host's side of one extension instance: the view, title, actions and
/// media state the extension changes through host functions, and the
/// requests (dismiss, default action) it makes.
///
/// Host functions may arrive on any thread, during a call into the extension
/// or long after; every change happens under one lock. The runtime reads a
/// snapshot after each call and drains what the extension reported.
package final class InstanceContext: Sendable {
    /// The media play/pause button an extension asked for.
    package struct MediaButton: Sendable, Equatable {
        package var type: Int32
        /// x, y, width, height; nil when the extension left it to the host.
        package var frame: (Double, Double, Double, Double)?
        package var tint: Color?

        package static func == (lhs: MediaButton, rhs: MediaButton) -> Bool {
            lhs.type == rhs.type && lhs.tint == rhs.tint
                && lhs.frame.map { [$0.0, $0.1, $0.2, $0.3] } == rhs.frame.map { [$0.0, $0.1, $0.2, $0.3] }
        }
    }

    /// What the extension has set, as of now.
    package struct State: Sendable {
        package var view: ViewState
        package var preferredContentHeight: Double?
        /// The title the extension set; honoured only when the manifest allows it.
        package var title: String?
        /// The actions the extension set, replacing the category's; nil when it set none.
        package var actions: [NotificationAction]?
        package var mediaButton: MediaButton?
        package var mediaPlaying = false
        /// The attachments of the notification last delivered (or the request
        /// being served), which the extension may show and open.
        package var attachments: [NotificationAttachment] = []
        /// The attachments a service extension created while serving its
        /// request, in the store (also among `attachments`).
        package var created: [AttachmentStore.Admission] = []
        /// Identifiers asked for by `create_attachment` calls under way.
        package var reservedIdentifiers: Set<String> = []
        /// The extension asked to close the notification.
        package var dismissRequested = false
        /// The extension asked to perform the default action.
        package var defaultActionRequested = false
        /// Misuse found in host calls, not yet collected by the runtime.
        package var diagnostics: [Diagnostic] = []
        /// Lines the extension logged, not yet collected by the runtime.
        package var log: [LogLine] = []
        /// The instance is gone; host calls naming it change nothing.
        package var closed = false
    }

    /// The handle the extension names this instance by (`tidings_context`).
    package let handle: UInt64
    /// The serving extension's bundle identifier, for messages.
    package let extensionIdentifier: String
    /// `UNNotificationExtensionOverridesDefaultTitle`.
    package let mayOverrideTitle: Bool
    /// How a service extension makes attachments; nil for a content
    /// extension, which may not make any.
    package let attachments: ServiceAttachments?
    /// In a worker process: sends every host call on to the host, which
    /// keeps the state that counts (this context keeps a copy to answer the
    /// extension with the same status, and collects nothing).
    let relay: (@Sendable (HostCall) -> Void)?
    private let state: Mutex<State>
    /// Told when a host function changed what shows; set by the runtime.
    private let observer = Mutex<(@Sendable () -> Void)?>(nil)

    package init(extensionIdentifier: String, mayOverrideTitle: Bool, interface: Interface?,
                 attachments: ServiceAttachments? = nil, relay: (@Sendable (HostCall) -> Void)? = nil) {
        self.extensionIdentifier = extensionIdentifier
        self.mayOverrideTitle = mayOverrideTitle
        self.attachments = attachments
        self.relay = relay
        state = Mutex(State(view: ViewState(interface: interface)))
        handle = ContextRegistry.shared.makeHandle()
        ContextRegistry.shared.bind(handle, to: self)
    }

    /// Forgets the handle: later host calls naming it fail with
    /// INVALID_CONTEXT, including one that found the context just before
    /// and waits for its lock; a call already under way finishes first.
    package func close() {
        ContextRegistry.shared.remove(handle)
        state.withLock { $0.closed = true }
    }

    /// Calls `body` whenever a host function changes what shows (view,
    /// height, title, actions, media, or a request to close), on the thread
    /// of that call, after the state's lock is released; nil stops it.
    package func observe(_ body: (@Sendable () -> Void)?) {
        observer.withLock { $0 = body }
    }

    /// Tells the observer that what shows changed.
    package func announceChange() {
        observer.withLock { $0 }?()
    }

    /// The ABI's name for this instance.
    package var cHandle: tidings_context? {
        tidings_context(bitPattern: UInt(handle))
    }

    /// A copy of the current state.
    package func snapshot() -> State {
        state.withLock { $0 }
    }

    /// Reads what `body` takes from the state under the lock, copying no more.
    package func read<Result>(_ body: (borrowing State) -> Result) -> Result {
        state.withLock { body($0) }
    }

    /// Reads and changes the state under the lock.
    package func update<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    /// What the extension reported since the last drain.
    package struct Reports: Sendable {
        /// Misuse found in host calls.
        package var diagnostics: [Diagnostic]
        /// Lines the extension logged.
        package var log: [LogLine]
        /// The extension asked to close the notification.
        package var dismiss: Bool
        /// The extension asked to perform the default action.
        package var defaultAction: Bool
    }

    /// Takes the diagnostics and log lines reported since the last call, and
    /// the requests made, clearing them; calls `body` with them and the
    /// state as it is then (without them), all under one lock, so that what
    /// `body` reads of the state need not be copied twice.
    package func drainReports<Result>(_ body: (Reports, borrowing State) -> Result) -> Result {
        state.withLock { state in
            let reports = Reports(diagnostics: state.diagnostics, log: state.log, dismiss: state.dismissRequested,
                                  defaultAction: state.defaultActionRequested)
            state.diagnostics = []
            state.log = []
            state.dismissRequested = false
            state.defaultActionRequested = false
            return body(reports, state)
        }
    }

    /// Records misuse of a host function and returns the status to give back.
    package func refuse(_ status: tidings_status, _ code: Diagnostic.Code, _ message: String,
                        in state: inout State) -> tidings_status {
        state.diagnostics.append(.warning(code, "\(extensionIdentifier): \(message)"))
        return status
    }
}

/// A line an extension wrote to the host's log.
package struct LogLine: Sendable, Equatable {
    /// The severity, as the ABI's `tidings_log_level`.
    package enum Level: Int32, Sendable {
        case debug = 0
        case info = 1
        case warning = 2
        case error = 3

        /// "debug", "info", "warning" or "error".
        package var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    package var extensionIdentifier: String
    package var level: Level
    package var message: String
}
