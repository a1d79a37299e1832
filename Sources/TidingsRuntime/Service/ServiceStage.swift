import Synchronization
import TidingsBase
import TidingsManifest
import TidingsRegistry

/// The first stage of a delivery: a remote notification with
/// `mutable-content` and alert text goes through its app's service extension,
/// which may rewrite it and attach media within a deadline
/// (UNNotificationServiceExtension).
///
/// When the deadline passes the extension is told its time will expire and
/// gets a grace period; without content by then, or with content that lost
/// the alert text, the original is shown. Whatever happens, the notification
/// goes on to the content stage.
struct ServiceStage: Sendable {
    /// The index served now.
    let index: CurrentIndex
    let providers: ProviderCache
    let launcher: any ExtensionLauncher
    /// The host's contexts and completions.
    let endpoint: HostEndpoint
    /// Seconds a service extension has to call its content handler.
    let deadline: Double
    /// Seconds after time-will-expire in which a content handler still counts.
    let gracePeriod: Double
    /// Where the attachments a service extension creates are checked and
    /// moved to; nil when the host keeps no store, and creating one fails.
    let store: AttachmentStore?
    /// How fast the extension may call host functions; nil for no limit.
    let callRate: CallRate?
    let onEvent: @Sendable (HostEvent) -> Void
    /// Told of the wait for each service extension's content handler.
    var onWait: ExtensionWaitObserver? = nil

    /// What the stage did.
    struct Outcome: Sendable {
        /// The notification to show: rewritten, or the original.
        var notification: UserNotification
        var report: StageReport
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        /// The attachments the extension created that the notification shows.
        var created: [AttachmentStore.Admission] = []
        /// The request's own attachments the rewrite left out, for the host
        /// to take out of the store unless something else still shows them.
        var dropped: [NotificationAttachment] = []
    }

    /// Runs `notification`, addressed to `app`, through its service
    /// extension when it should, waiting on this thread (`run(_:to:then:)`).
    func run(_ notification: UserNotification, to app: String) -> Outcome {
        let (bundle, manifest): (ExtensionBundle, Manifest)
        switch serviceExtension(for: notification, to: app) {
        // Most deliveries run no service extension: they cost no wait at all.
        case .skip(let reason): return Outcome(notification: notification, report: .skipped(reason))
        case let .extension(found, its): (bundle, manifest) = (found, its)
        }
        let outcome = Rendezvous<Outcome>()
        run(notification, to: app, through: bundle, manifest: manifest) { outcome.give($0) }
        return outcome.take()
    }

    /// Runs `notification`, addressed to `app`, through its service
    /// extension when it should, and calls `finish` once with what it did:
    /// at once, on this thread, when no extension runs or it failed to
    /// start; otherwise once its content handler is called, its
    /// `did_receive_request` fails (a worker that could not start it: the
    /// original content, with the failure, at once, never at the deadline),
    /// or its deadline and grace period pass, on the host's finishing thread, with no thread
    /// waiting meanwhile (`did_receive_request` itself runs on a thread of
    /// its own, so that the deadline runs while it does).
    func run(_ notification: UserNotification, to app: String, then finish: @escaping @Sendable (Outcome) -> Void) {
        switch serviceExtension(for: notification, to: app) {
        case .skip(let reason): finish(Outcome(notification: notification, report: .skipped(reason)))
        case let .extension(bundle, manifest): run(notification, to: app, through: bundle, manifest: manifest, then: finish)
        }
    }

    /// Whether a service extension runs for `notification`: why not, or its bundle.
    private enum Need {
        case skip(StageReport.SkipReason)
        case `extension`(ExtensionBundle, Manifest)
    }

    /// Whether `notification`, addressed to `app`, goes through a service extension, and which.
    private func serviceExtension(for notification: UserNotification, to app: String) -> Need {
        let content = notification.content
        guard !content.isLocal else { return .skip(.local) }
        guard content.mutableContent else { return .skip(.notMutable) }
        guard content.hasAlert else { return .skip(.noAlert) }
        guard let bundle = index.value.serviceExtension(forApp: app, category: content.categoryIdentifier),
              let manifest = bundle.manifest
        else { return .skip(.noServiceExtension(app: app)) }
        return .extension(bundle, manifest)
    }

    /// Runs `notification` through the service extension of `bundle`, whose manifest is `manifest` (see `run(_:to:then:)`).
    private func run(_ notification: UserNotification, to app: String, through bundle: ExtensionBundle,
                     manifest: Manifest, then finish: @escaping @Sendable (Outcome) -> Void) {
        let content = notification.content
        let started = MonotonicClock.now()
        let identifier = manifest.bundleIdentifier
        var result = Outcome(notification: notification, report: .failed(extension: identifier))
        let provider: any ExtensionProvider
        do throws(Diagnostic) {
            provider = try providers.provider(for: bundle, launcher: launcher)
        } catch {
            result.diagnostics.append(error)
            return finish(result)
        }
        let instance: any ExtensionInstance
        let owner = AttachmentStore.Owner(app: app, notification: notification.identifier, bundle: identifier)
        let attachments = ServiceAttachments(store: store, owner: owner, onAbuse: { provider.noteFault($0) })
        let context = InstanceContext(extensionIdentifier: identifier, mayOverrideTitle: false, interface: nil,
                                      attachments: attachments, callRate: callRate, in: endpoint.contexts)
        context.update { $0.attachments = content.attachments }
        do throws(Diagnostic) {
            instance = try provider.makeInstance(context: context)
        } catch {
            context.close()
            // What its create function attached goes back where it came from.
            let created = context.read { $0.created }
            for admission in created { store?.takeBack(admission) }
            result.diagnostics.append(error)
            return finish(result)
        }

        let onEvent = self.onEvent
        let clock = endpoint.completions.clock
        let late = LateCompletion(app: app, notificationIdentifier: notification.identifier, extensionIdentifier: identifier)
        let pending = endpoint.completions.begin(.request, for: context.handle,
                                                 deadline: clock.deadline(after: deadline),
                                                 extensionIdentifier: identifier, report: { onEvent(late.event(reporting: $0)) },
                                                 fault: { provider.noteFault($0) })
        // did_receive_request runs on a thread of its own, so that the deadline runs while it does: its
        // content handler counts until the deadline and the grace period after time-will-expire.
        let call = RequestCall()
        let last = clock.deadline(after: deadline + gracePeriod)
        let waited = onWait?(ExtensionWait(extensionIdentifier: identifier,
                                           call: "the service's didReceive and its content handler (complete_request)",
                                           seconds: deadline, deadline: .service))
        let request = notification
        let token = pending.token
        if !Threads.start({
            do throws(Diagnostic) {
                try instance.didReceive(request: request, token: token, deadline: last)
                call.finish(nil)
            } catch {
                // Not made, not started, or its worker ended: nothing will complete it, and the wait ends now.
                call.finish(error)
                pending.abandon()
            }
        }) {
            call.finish(.error(.serviceTimeout, "No thread could be started for \(identifier)'s did_receive_request."))
            pending.abandon()
        }
        let begun = result
        let conclude: @Sendable (PendingCompletion.Answer?, Bool, Diagnostic?) -> Void = { answer, expired, failure in
            waited?()
            finish(conclusion(of: pending, answer: answer, expired: expired, failure: failure ?? call.failure,
                              content: content, context: context, instance: instance, call: call, begun: begun,
                              identifier: identifier, started: started))
        }
        pending.whenAnswered { answer in
            guard answer == nil && call.failure == nil else { return conclude(answer, false, nil) }
            // The deadline passed: time will expire, and a grace period follows.
            let grace = clock.deadline(after: gracePeriod)
            pending.extend(until: grace)
            do throws(Diagnostic) {
                try instance.serviceExtensionTimeWillExpire()
            } catch {
                // The extension, run elsewhere, failed: what the extension answered before counts, nothing after.
                return conclude(pending.result, true, error)
            }
            pending.whenAnswered(until: grace) { conclude($0, true, nil) }
        }
    }

    /// What the stage did once the wait for `pending` ended with `answer`
    /// (after time-will-expire when `expired`; `failure` when the extension's
    /// calls failed): the completion finished, the extension's reports and
    /// attachments taken, the notification rewritten or kept.
    private func conclusion(of pending: PendingCompletion, answer: PendingCompletion.Answer?, expired: Bool,
                            failure: Diagnostic?, content: NotificationContent, context: InstanceContext,
                            instance: any ExtensionInstance, call: RequestCall, begun: Outcome, identifier: String,
                            started: UInt64) -> Outcome {
        var result = begun
        let notification = begun.notification
        // A failure leaves what the extension answered before it, nothing after.
        let answer = failure == nil ? answer : pending.result
        endpoint.completions.finish(pending)
        // Closed first, so that no attachment is created after those drained.
        context.close()
        let (reports, created) = context.drainReports { reports, state in (reports, state.created) }
        // Destroyed once did_receive_request has returned, which it may not have yet.
        call.afterwards { instance.destroy() }
        result.diagnostics += pending.problems + reports.diagnostics
        result.log = reports.log
        if let failure {
            result.diagnostics.append(failure)
            if answer == nil {
                store?.remove(created.map(\.attachment))
                return result
            }
        }
        let elapsed = Double(MonotonicClock.now() - started) / 1e6
        let outcome = answer.map { answer in
            rewrite(notification, with: answer, by: identifier, created: created, expired: expired, milliseconds: elapsed)
        } ?? Rewrite(
            notification: notification, report: .kept(extension: identifier, reason: .timedOut, milliseconds: elapsed),
            diagnostics: [.error(.serviceTimeout, "\(identifier) did not call its content handler within \(NumberText.short(deadline)) s, nor in the \(NumberText.short(gracePeriod)) s after time-will-expire; the original content is shown.")])
        result.notification = outcome.notification
        result.report = outcome.report
        result.diagnostics += outcome.diagnostics
        // Files the extension made but did not hand back leave the store; the
        // request's own that it dropped are the host's to remove.
        let shown = Set(outcome.notification.content.attachments.map(\.path))
        store?.remove(created.map(\.attachment).filter { !shown.contains($0.path) })
        result.dropped = content.attachments.filter { !shown.contains($0.path) }
        result.created = created.filter { shown.contains($0.attachment.path) }
        let discarded = created.count - result.created.count
        if discarded > 0 {
            result.diagnostics.append(.note(
                .serviceAttachmentDiscarded,
                "\(identifier) created \(discarded == 1 ? "an attachment" : "\(discarded) attachments") that the notification does not show; removed from the store."))
        }
        return result
    }

    /// What an answer makes of the notification.
    private struct Rewrite {
        var notification: UserNotification
        var report: StageReport
        var diagnostics: [Diagnostic] = []
    }

    /// The notification `answer` makes of `notification`: rewritten, or the
    /// original when the answer is empty or removed the alert text.
    private func rewrite(_ notification: UserNotification, with answer: PendingCompletion.Answer, by identifier: String,
                         created: [AttachmentStore.Admission], expired: Bool, milliseconds: Double) -> Rewrite {
        let content = notification.content
        guard case .content(let given) = answer, let given else {
            return Rewrite(notification: notification,
                           report: .kept(extension: identifier, reason: .handedBackNothing, milliseconds: milliseconds))
        }
        var diagnostics = given.problems
        guard given.content.hasAlert else {
            diagnostics.append(.warning(
                .serviceRemovedAlert,
                "\(identifier) handed back content without alert text; as on iOS the change is ignored and the original is shown."))
            return Rewrite(notification: notification,
                           report: .kept(extension: identifier, reason: .removedAlert, milliseconds: milliseconds),
                           diagnostics: diagnostics)
        }
        var rewritten = given.content
        let available = content.attachments + created.map(\.attachment)
        for attachment in given.attachmentIdentifiers {
            if rewritten.attachments.contains(where: { $0.identifier == attachment }) {
                diagnostics.append(.warning(
                    .serviceUnknownAttachment,
                    "\(identifier) handed back the attachment \"\(attachment)\" twice; it is shown once."))
            } else if let found = available.first(where: { $0.identifier == attachment }) {
                rewritten.attachments.append(found)
            } else {
                diagnostics.append(.warning(
                    .serviceUnknownAttachment,
                    "\(identifier) handed back an attachment \"\(attachment)\" that the request does not have and it did not create; it was dropped."))
            }
        }
        // The request's own flags stay as they came, and what tidings_content
        // does not carry (a critical sound, the launch image, the summary
        // arguments, the filter criteria) stays as the request had it; the
        // extension rewrites what is shown.
        rewritten.mutableContent = content.mutableContent
        rewritten.contentAvailable = content.contentAvailable
        rewritten.isLocal = content.isLocal
        rewritten.criticalSound = content.criticalSound
        rewritten.soundVolume = content.soundVolume
        rewritten.launchImageName = content.launchImageName
        rewritten.summaryArgument = content.summaryArgument
        rewritten.summaryArgumentCount = content.summaryArgumentCount
        rewritten.filterCriteria = content.filterCriteria
        var changed = notification
        changed.content = rewritten
        return Rewrite(notification: changed,
                       report: .rewrote(extension: identifier, changes: Self.changes(from: content, to: rewritten),
                                        afterExpiry: expired, milliseconds: milliseconds),
                       diagnostics: diagnostics)
    }

    /// The names of what differs, for the report: "title", "2 attachments added".
    static func changes(from old: NotificationContent, to new: NotificationContent) -> [String] {
        var changes: [String] = []
        if old.title != new.title { changes.append("title") }
        if old.subtitle != new.subtitle { changes.append("subtitle") }
        if old.body != new.body { changes.append("body") }
        if old.sound != new.sound { changes.append("sound") }
        if old.badge != new.badge { changes.append("badge") }
        if old.categoryIdentifier != new.categoryIdentifier { changes.append("category") }
        if old.threadIdentifier != new.threadIdentifier { changes.append("thread") }
        if JSON.object(old.userInfo) != JSON.object(new.userInfo) { changes.append("userInfo") }
        let added = new.attachments.filter { attachment in !old.attachments.contains { $0.identifier == attachment.identifier } }
        if !added.isEmpty { changes.append(added.count == 1 ? "1 attachment added" : "\(added.count) attachments added") }
        return changes
    }
}

extension Diagnostic.Code {
    /// A service extension gave no content within its deadline and grace period.
    package static let serviceTimeout = Self("service.timeout")
    /// A service extension handed back content without alert text.
    package static let serviceRemovedAlert = Self("service.removed-alert")
    /// A service extension named an attachment that does not exist, or one twice.
    package static let serviceUnknownAttachment = Self("service.unknown-attachment")
    /// A service extension created attachments the notification does not show.
    package static let serviceAttachmentDiscarded = Self("service.attachment-discarded")
}

/// A `did_receive_request` under way on a thread of its own: how it ended,
/// and what is to be done once it has (destroying the instance, which must
/// not happen while the extension still runs it).
private final class RequestCall: Sendable {
    private struct State {
        var finished = false
        var failure: Diagnostic?
        var afterwards: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// The call returned, with `failure` when it could not be made.
    func finish(_ failure: Diagnostic?) {
        let afterwards: (@Sendable () -> Void)? = state.withLock { state in
            state.finished = true
            state.failure = failure
            defer { state.afterwards = nil }
            return state.afterwards
        }
        afterwards?()
    }

    /// The failure, once the call returned with one.
    var failure: Diagnostic? {
        state.withLock { $0.failure }
    }

    /// Runs `body` once the call has returned: now, or when it does.
    func afterwards(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if !state.finished { state.afterwards = body }
            return state.finished
        }
        if now { body() }
    }
}
