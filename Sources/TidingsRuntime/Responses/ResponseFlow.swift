import TidingsBase
import TidingsProtocol

/// A user's response on its way: the dismiss and default actions go to the
/// app; a custom action goes to the content extension's response handler
/// (opening its interface first when closed), whose completion is waited for
/// until the deadline and decides whether the notification stays, closes,
/// or closes and forwards the action to the app; without a handler, or
/// without a valid answer in time, the app still learns of the action.
struct ResponseFlow: Sendable {
    /// The screen the notifications are on.
    let screen: Screen
    /// How a closed interface is opened for a response.
    let interfaces: InterfaceLifecycle
    /// How a call's reports are collected.
    let reports: CallReports
    /// Where completions are awaited and judged.
    let endpoint: HostEndpoint
    /// The clock completion deadlines are set by.
    let clock: DeadlineClock
    /// How long an extension has to complete a response, in seconds.
    let deadline: Double
    /// Told of the wait for each response's call and completion.
    var onWait: ExtensionWaitObserver? = nil

    /// Sends `response` to the notification presented as `key`,
    /// without telling front ends what the app received, and calls `finish`
    /// once with the outcome: on this thread when no completion is awaited or
    /// the extension completed during its call; otherwise later, once the
    /// completion comes, its deadline passes or its extension ends, on the
    /// host's finishing thread, with no thread held meanwhile. The instance
    /// the response holds is let go of before `finish` is called.
    ///
    /// It fails for a notification not presented, an action it does not
    /// offer, or text missing from (or given to) an action.
    func answer(_ key: NotificationKey, with response: ResponseRequest,
                then finish: @escaping @Sendable (Result<ResponseOutcome, Diagnostic>) -> Void) {
        guard let (entry, registered, held) = screen.state.withLock({ $0.claim(key) }) else {
            return finish(.failure(Screen.notPresented(key)))
        }
        var instance = held
        let categoryActions = registered?.category.actions
        var result = CallResult()
        let offered = Screen.offeredActions(by: instance, categoryActions: categoryActions)
        // The default action and a foreground action bring the app forward, as iOS launches it for them.
        let chosen = offered.first { $0.identifier == response.actionIdentifier }
        // The settings action (not one of the notification's own) opens the app at its settings.
        let isSettings = chosen == nil && response.actionIdentifier == ActionIdentifier.settings
        let toApp = ForwardedResponse(app: entry.app, notification: entry.notification,
                                      actionIdentifier: response.actionIdentifier, userText: response.userText,
                                      opensApp: isSettings ? true : chosen.map { $0.options.contains(.foreground) })
        let isDismissal = response.actionIdentifier == ActionIdentifier.dismiss
        do throws(Diagnostic) {
            try ResponseValidation.check(response, against: offered,
                                         category: entry.notification.content.categoryIdentifier,
                                         registered: registered != nil)
        } catch {
            screen.letGo(of: instance)
            return finish(.failure(error))
        }

        // The settings action goes to the app, and the notification stays where it is.
        if isSettings {
            let presentation = screen.presentation(entry, categoryActions: categoryActions, dismissed: false)
            screen.letGo(of: instance)
            return finish(.success(ResponseOutcome(
                response: response, receiver: .app, option: nil, presentation: presentation,
                forwarded: [toApp], diagnostics: result.diagnostics, log: result.log)))
        }
        // The dismiss and default actions go to the app, never to the extension, as on iOS.
        if isDismissal || response.actionIdentifier == ActionIdentifier.default {
            let reachesApp = !isDismissal || (registered?.category.options.contains(.customDismissAction) ?? false)
            if !reachesApp {
                result.diagnostics.append(.note(.responseDismissNotDelivered,
                                                "The category lacks customDismissAction, so the dismissal reaches neither the extension nor the app."))
            }
            let presentation = screen.close(entry, categoryActions: categoryActions, diagnostics: &result.diagnostics)
            screen.letGo(of: instance)
            return finish(.success(ResponseOutcome(
                response: response, receiver: reachesApp ? .app : .nobody, option: nil, presentation: presentation,
                forwarded: reachesApp ? [toApp] : [], diagnostics: result.diagnostics, log: result.log)))
        }
        // A custom action on a closed interface opens it first when the
        // extension has a response handler: its handler expects a view
        // controller that received the notification, as on iOS, where
        // actions are chosen from the expanded interface.
        if instance == nil, let target = entry.target, handlesResponses(target, diagnostics: &result.diagnostics) {
            // Held for this response even if another interface opens meanwhile.
            var opened = interfaces.open(entry, categoryActions: categoryActions, holding: true)
            result.diagnostics += opened.outcome.diagnostics
            result.log += opened.outcome.log
            result.forwarded += opened.outcome.forwarded
            interfaces.announce(&opened, of: entry)
            instance = opened.held
        }
        guard let instance, instance.started.provider.handlesResponses else {
            if entry.target != nil && !result.diagnostics.containsError {
                result.diagnostics.append(.note(.responseNoHandler,
                                                "The extension has no response handler, so the response goes straight to the app."))
            }
            let presentation = screen.close(entry, categoryActions: categoryActions, diagnostics: &result.diagnostics)
            screen.letGo(of: instance)
            return finish(.success(ResponseOutcome(
                response: response, receiver: .app, option: nil, presentation: presentation,
                forwarded: result.forwarded + [toApp], diagnostics: result.diagnostics, log: result.log)))
        }
        // What the extension changes while it answers (during its call, and
        // from its threads until it completes) is collected with its answer.
        let before = instance.context.update { state in
            state.categoryActions = categoryActions ?? []
            return state.revision
        }
        let begun = result
        awaitCompletion(of: response, to: entry, by: instance) { answer, abandoned, waited in
            var result = begun
            result.diagnostics += waited
            var option: ResponseOption?
            if case .option(let given) = answer { option = given }
            // Without a valid answer the app still learns of the action: nothing is lost.
            let effective = option ?? .dismissAndForwardAction
            let (presentation, revision) = reports.collect(from: instance, for: entry, categoryActions: categoryActions,
                                                           closing: effective != .doNotDismiss, into: &result)
            // The notification stays: front ends hear what the answer changed, as the caller does.
            if effective == .doNotDismiss && (revision != before || !presentation.expanded) {
                screen.tell(presentation, of: instance, drawnAt: revision, for: entry)
            }
            if answer == nil { noteMissingAnswer(of: instance, abandoned: abandoned, diagnostics: &result.diagnostics) }
            if effective == .dismissAndForwardAction { result.forwarded.append(toApp) }
            screen.letGo(of: instance)
            finish(.success(ResponseOutcome(response: response, receiver: .extension, option: option,
                                            presentation: presentation, forwarded: result.forwarded,
                                            diagnostics: result.diagnostics, log: result.log)))
        }
    }

    /// Gives `response` to `entry`'s extension through `instance`, and calls
    /// `then` with its answer (nil when none came by the deadline), whether
    /// the extension ended before it answered, and what went wrong: at once
    /// when the call failed or the extension completed during it, else when
    /// the completion comes, holding no thread meanwhile (`whenAnswered`).
    private func awaitCompletion(
        of response: ResponseRequest, to entry: DeliveredNotification, by instance: InstanceRecord,
        then: @escaping @Sendable (_ answer: PendingCompletion.Answer?, _ abandoned: Bool, _ problems: [Diagnostic]) -> Void
    ) {
        let onEvent = screen.onEvent
        let name = instance.manifest.bundleIdentifier
        let late = LateCompletion(app: entry.app, notificationIdentifier: entry.identifier, extensionIdentifier: name)
        let completions = endpoint.completions
        let pending = completions.begin(
            for: instance.context.handle, deadline: clock.deadline(after: deadline), extensionIdentifier: name,
            report: { onEvent?(late.event(reporting: $0)) },
            fault: { [provider = instance.started.provider] in provider.noteFault($0) })
        let conclude: @Sendable (PendingCompletion.Answer?, Diagnostic?) -> Void = { answer, failure in
            completions.finish(pending)
            then(answer, pending.isAbandoned, (failure.map { [$0] } ?? []) + pending.problems)
        }
        let action = response.actionIdentifier
        let calling = onWait?(ExtensionWait(extensionIdentifier: name, call: "didReceive of response \"\(action)\"",
                                            seconds: deadline, deadline: .response))
        do throws(Diagnostic) {
            try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in
                try extensionInstance.didReceive(response, to: entry.notification, token: pending.token,
                                                 deadline: pending.deadline)
            }
        } catch {
            calling?()
            return conclude(nil, error)
        }
        calling?()
        // The handler returned without completing: what is waited for now is the completion alone, which a
        // forgotten one never gives (tidings validate's responses check finds that in seconds).
        let left = Double(pending.deadline &- min(clock.now(), pending.deadline)) / 1e9
        let completing = pending.result == nil
            ? onWait?(ExtensionWait(extensionIdentifier: name,
                                    call: "its completion of response \"\(action)\" (complete_response), not called when its didReceive returned",
                                    seconds: left, deadline: .response))
            : nil
        pending.whenAnswered { answer in
            completing?()
            conclude(answer, nil)
        }
    }

    /// Says why `instance`'s extension gave no answer (an undefined one is
    /// reported by the completion center): its extension ended, or, unless an
    /// error says why already, the deadline passed.
    private func noteMissingAnswer(of instance: InstanceRecord, abandoned: Bool, diagnostics: inout [Diagnostic]) {
        let name = instance.manifest.bundleIdentifier
        if abandoned {
            diagnostics.append(.error(.completionAbandoned,
                                      "\(name)'s extension ended before it completed the response; the notification is closed and the action forwarded to the app."))
        } else if !diagnostics.containsError {
            diagnostics.append(.error(.completionTimeout,
                                      "\(name) did not complete the response within \(NumberText.short(deadline)) s (--deadline); the host applied dismissAndForwardAction: the notification is closed and the action forwarded to the app. A completion after this is reported, and is no fault."))
        }
    }

    /// True when the extension `target` leads to has a response handler
    /// (launching it when it is not yet); false, with why, when it cannot start.
    private func handlesResponses(_ target: RouteTarget, diagnostics: inout [Diagnostic]) -> Bool {
        do throws(Diagnostic) {
            return try target.provider(from: interfaces.providers, launcher: interfaces.launcher).provider
                .handlesResponses
        } catch {
            diagnostics.append(error)
            return false
        }
    }
}

extension Diagnostic.Code {
    /// A dismissal of a category without customDismissAction reaches nobody.
    package static let responseDismissNotDelivered = Self("response.dismiss-not-delivered")
    /// The extension has no response handler; the app gets the response.
    package static let responseNoHandler = Self("response.no-handler")
}
