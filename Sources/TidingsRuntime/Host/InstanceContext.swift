import Synchronization
import TidingsABI
import TidingsBase
import TidingsManifest
import TidingsProtocol

/// The host's side of one extension instance: the view, title, actions and
/// media state the extension changes through host functions, and the
/// requests (dismiss, default action) it makes.
///
/// Host functions may arrive on any thread, during a call into the extension
/// or long after; every change happens under one lock. The runtime reads a
/// snapshot after each call and drains what the extension reported.
///
/// It is the `HostCallSink` its handle names, unless `route(to:)` puts
/// another sink in front of it.
package final class InstanceContext: HostCallSink {
    /// The media play/pause button an extension asked for.
    package struct MediaButton: Sendable, Equatable {
        package var type: Int32
        /// x, y, width, height; nil for a button of type none (as an empty frame gives).
        package var frame: (Double, Double, Double, Double)?
        package var tint: Color?

        package init(type: Int32, frame: (Double, Double, Double, Double)?, tint: Color?) {
            self.type = type
            self.frame = frame
            self.tint = tint
        }

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
        /// The actions of the category of what it serves, as registered when
        /// it was last called with a notification or a response.
        package var categoryActions: [NotificationAction] = []
        package var mediaButton: MediaButton?
        package var mediaPlaying = false
        /// The text input the extension asks the front end for; nil when it asks for none.
        package var textInput: TextInputRequest?
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
        /// Its host calls' bucket; nil without a rate limit.
        var allowance: CallAllowance?
        /// Its bucket of changes of what shows (`CallRate.viewChanges`); nil where they are not counted.
        var viewChanges: CallAllowance?
        /// The extension called through `CallRate.burst` refusals, or
        /// flooded its view (`viewChangeRate`): it takes no more calls.
        package var abusive = false
        /// How many host calls changed what shows so far: what a call into
        /// the instance changed is known by reading it before and after.
        package var revision = 0
    }

    /// The handle the extension names this instance by (`tidings_context`).
    package let handle: UInt64
    /// The serving extension's bundle identifier, for messages.
    package let extensionIdentifier: String
    /// `UNNotificationExtensionOverridesDefaultTitle`.
    package let mayOverrideTitle: Bool
    /// `UNNotificationExtensionUserInteractionEnabled`: the extension may ask for text input.
    package let mayInteract: Bool
    /// How a service extension makes attachments; nil for a content
    /// extension, which may not make any.
    package let attachments: ServiceAttachments?
    private let state: Mutex<State>
    /// Told when a host function changed what shows; set by the runtime.
    private let observer = Mutex<ChangeObserver?>(nil)

    /// The observer, boxed: a closure kept in a `Mutex` and read back through
    /// `withLock`'s `inout` is re-wrapped in a reabstraction thunk on every
    /// access, so each host call would have made the stored closure one
    /// thunk deeper (a call storm overflowed the host's stack that way).
    /// A class reference is stored and read as it is.
    private final class ChangeObserver: Sendable {
        let body: @Sendable () -> Void

        init(_ body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }

    /// How fast its host calls may come; nil for no limit.
    package let callRate: CallRate?
    /// How fast what it shows may change before the changes are a flood
    /// (`CallRate.viewChanges`); nil where they are not counted: the host
    /// counts them, where front ends hear of them, not a worker's copy.
    package let viewChangeRate: CallRate?

    /// A context named by a handle of `contexts`, for an instance of the
    /// extension `extensionIdentifier` whose view is `interface`.
    package init(extensionIdentifier: String, mayOverrideTitle: Bool, mayInteract: Bool = false, interface: Interface?,
                 attachments: ServiceAttachments? = nil, callRate: CallRate? = .standard,
                 viewChangeRate: CallRate? = nil, in contexts: ContextRegistry) {
        self.extensionIdentifier = extensionIdentifier
        self.mayOverrideTitle = mayOverrideTitle
        self.mayInteract = mayInteract
        self.attachments = attachments
        self.callRate = callRate
        self.viewChangeRate = viewChangeRate
        var initial = State(view: ViewState(interface: interface))
        let now = MonotonicClock.now()
        initial.allowance = callRate.map { CallAllowance($0, now: now) }
        initial.viewChanges = viewChangeRate.map { CallAllowance($0, now: now) }
        state = Mutex(initial)
        handle = contexts.makeHandle()
        contexts.bind(handle, to: self)
    }

    /// Host calls naming this context's handle go to `sink` from now on
    /// instead of straight here: a sink that forwards them elsewhere and
    /// applies them here as well, say. Call it before the handle is given
    /// to an extension.
    package func route(to sink: some HostCallSink) {
        registry?.bind(handle, to: sink)
    }

    /// Forgets the handle: later host calls naming it fail with
    /// INVALID_CONTEXT, including one that found the context just before
    /// and waits for its lock; a call already under way finishes first.
    package func close() {
        registry?.remove(handle)
        state.withLock { $0.closed = true }
    }

    /// The contexts its handle is one of, while their issuer lives: found
    /// through the directory rather than kept, so that a context the
    /// runtime never closed does not keep its host's tables alive.
    private var registry: ContextRegistry? {
        HandleDirectory.shared.owner(of: handle)?.contexts
    }

    /// Calls `body` whenever a host function changes what shows (view,
    /// height, title, actions, media, or a request to close), on the thread
    /// of that call, after the state's lock is released; nil stops it.
    package func observe(_ body: (@Sendable () -> Void)?) {
        let box = body.map(ChangeObserver.init)
        observer.withLock { $0 = box }
    }

    /// Tells the observer that what shows changed.
    package func announceChange() {
        observer.withLock { $0 }?.body()
    }

    /// The ABI's name for this instance.
    package var cHandle: tidings_context? {
        tidings_context(bitPattern: UInt(handle))
    }

    /// True once the extension called through its rate limit's refusals (a
    /// call storm) or flooded what it shows.
    package var isAbusive: Bool {
        state.withLock { $0.abusive }
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

    /// Forgets what the extension reported and asked for since the last
    /// drain, for a context whose reports are collected elsewhere (a copy
    /// kept only to answer the extension with the right status).
    package func discardReports() {
        state.withLock { state in
            state.diagnostics = []
            state.log = []
            state.dismissRequested = false
            state.defaultActionRequested = false
        }
    }

    /// `get_actions`: the actions shown now, under the rules of every host
    /// call (a closed context, a call over the rate); a service extension's
    /// instance shows none and is told TIDINGS_STATUS_NOT_SUPPORTED.
    package func presentedActions() -> (status: tidings_status, actions: [NotificationAction]) {
        update { state in
            if let refusal = admit(in: &state) { return (refusal, []) }
            guard attachments == nil else {
                return (refuse(TIDINGS_STATUS_NOT_SUPPORTED, .actionsNotSupported,
                               "asked for the actions shown, which a service extension has none of.", in: &state), [])
            }
            return (TIDINGS_STATUS_OK, state.actions ?? state.categoryActions)
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
