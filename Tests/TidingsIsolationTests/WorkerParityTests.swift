import Foundation
import Synchronization
import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// What an extension sees is the same in a worker process as in this
/// process: statuses, timing rules and attachments. Each case ran wrong in a
/// worker before its fix: a late completion answered OK; an attachment made
/// in did_receive_request could not be opened once the call returned;
/// time-will-expire waited for did_receive_request to return; a service
/// extension slower than the call timeout was killed as hung; a call storm
/// overflowed the host's stack.
@Suite(.serialized) struct WorkerParityTests {
    let fixture = Fixture()

    init() throws {
        // One worker for its interfaces, so that a late completion's status outlives its instance (see late-report).
        try fixture.installMisbehaving(sharedWorker: true)
        let library = try CCompiler.fixture("Service", into: fixture.directory.path, extraFlags: ["-pthread"])
        try BundleMaker.make("Service", in: fixture.directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "com.example.svc.service", executable: "libService.so"), library: library)
    }

    /// A host running the extensions `mode` says, with `configure` applied to its settings.
    func host(_ mode: IsolationMode, configure: (inout NotificationHost.Configuration, inout WorkerSettings) -> Void = { _, _ in })
        -> NotificationHost
    {
        var configuration = NotificationHost.Configuration()
        var settings = IsolationMode.workerSettings
        configure(&configuration, &settings)
        let host = fixture.host(configuration: configuration, launcher: mode.launcher(settings))
        host.register([NotificationCategory(identifier: "misbehave", actions: [
            NotificationAction(identifier: "late-report", title: "Late"),
        ])], for: "com.example.tests")
        return host
    }

    /// A remote notification for the service extension, in `mode`, with more userInfo.
    func remote(_ mode: String, _ extra: [(String, JSON)] = []) -> UserNotification {
        var request = notification("r", category: "", title: "Hello", body: "World",
                                   userInfo: [("mode", .string(mode))] + extra)
        request.content.mutableContent = true
        return request
    }

    /// A worker answers an instance's creation with its first call: a creation that fails is
    /// still reported as such, every time, and the worker lives on.
    @Test(arguments: IsolationMode.allCases)
    func aFailedCreationIsReportedEveryTime(_ mode: IsolationMode) throws {
        let library = try CCompiler.fixture("Broken", into: fixture.directory.path, output: "libcreate-fails.so",
                                            extraFlags: ["-DCREATE_FAILS"])
        try BundleMaker.make("CreateFails", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.broken.create-fails", executable: "libcreate-fails.so",
            categories: ["create-fails"], hidden: true), library: library)
        let host = host(mode)
        for round in 0..<3 {
            let delivery = host.deliverOpened(notification("n\(round)", category: "create-fails", title: "Still here"),
                                        to: "com.example.broken")
            #expect(delivery.diagnostics.codes == ["extension.create-failed"], "round \(round)")
            #expect(delivery.presentation.defaultContent?.title == "Still here", "round \(round)")
            #expect(!delivery.presentation.defaultContentHidden, "round \(round)")
        }
    }

    @Test(arguments: IsolationMode.allCases)
    func aLateCompletionIsAnsweredAsInvalid(_ mode: IsolationMode) throws {
        let host = host(mode) { configuration, _ in configuration.responseDeadline = 0.1 }
        _ = host.deliverOpened(notification("first", category: "misbehave", thread: "t"), to: "com.example.tests")
        let outcome = try host.respond(to: "first", with: ResponseRequest(actionIdentifier: "late-report"))
        #expect(outcome.forwarded.map(\.actionIdentifier) == ["late-report"])
        // "first" closed at the deadline, and its instance with it: the next
        // instance of the worker shows the status the late completion got.
        var shown: String?
        let answered = eventually {
            shown = host.deliverOpened(notification("second", category: "misbehave"), to: "com.example.tests")
                .presentation.view?.text(of: "count")
            return shown?.hasPrefix("late") == true
        }
        #expect(answered)
        #expect(shown == "late completion answered 7")
    }

    @Test(arguments: IsolationMode.allCases)
    func anAttachmentMadeDuringTheRequestOpensAfterItReturned(_ mode: IsolationMode) throws {
        let store = fixture.directory.file("store-\(mode == .worker ? "worker" : "process")")
        let host = host(mode) { configuration, _ in
            configuration.attachmentDirectory = store
            configuration.serviceDeadline = 0.2
        }
        let delivery = host.deliverOpened(remote("attach-own-later"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "opened later: readable",
                "\(delivery.diagnostics.map(\.description))")
    }

    /// A file the extension may read but not remove (in its own bundle, which
    /// its sandbox keeps read-only) is copied in, and what the delivery
    /// reports says it was left there, not that it was moved.
    @Test func anAttachmentAWorkerCannotRemoveIsReportedAsLeftInItsPlace() throws {
        let file = fixture.directory.file("Service.appex/photo.png")
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: file)
        let host = host(.worker) { configuration, _ in
            configuration.attachmentDirectory = fixture.directory.file("store-left")
        }
        let delivery = host.deliverOpened(remote("attach", [("file", .string(file)), ("identifier", .string("photo"))]),
                                          to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title.hasPrefix("Attached photo public.png"),
                "\(delivery.diagnostics.map(\.description))")
        #expect(FileManager.default.fileExists(atPath: file), "the bundle is read-only in the worker's sandbox")
        let transfer = try #require(delivery.createdAttachments.first?.transfer)
        guard case .copiedInstead(let reason) = transfer else {
            Issue.record("reported as \(transfer), though the file stayed")
            return
        }
        #expect(reason.contains("in the extension's worker process"))
    }

    @Test(arguments: IsolationMode.allCases)
    func timeWillExpireComesWhileTheRequestStillRuns(_ mode: IsolationMode) {
        let host = host(mode) { configuration, _ in
            configuration.serviceDeadline = 0.2
            configuration.serviceGracePeriod = 2
        }
        let delivery = host.deliverOpened(remote("block"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "expired while the request ran",
                "\(delivery.diagnostics.map(\.description))")
    }

    @Test func aServiceSlowerThanTheCallTimeoutIsNotTakenForAHang() {
        let host = host(.worker) { configuration, settings in
            configuration.serviceDeadline = 5
            settings.callTimeout = 0.2
        }
        let delivery = host.deliverOpened(remote("slow", [("milliseconds", .string("600"))]), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "slow but done",
                "\(delivery.diagnostics.map(\.description))")
        #expect(!delivery.diagnostics.map(\.code.rawValue).contains("worker.hang"))
    }

    /// A burst to a slow service extension is rewritten whole: in a worker,
    /// its requests run on threads whose stacks fit the worker's memory limit,
    /// at most `ServiceRequests.threadLimit` at once and the rest in turn.
    /// Each thread used to get the default 8 MiB stack, and past the sixth
    /// the worker could start none: 6 of 16 rewritten, the others shown as
    /// they came after the whole deadline.
    @Test(arguments: IsolationMode.allCases)
    func thirtyTwoConcurrentRequestsToASlowServiceAreAllRewritten(_ mode: IsolationMode) {
        let host = host(mode) { configuration, _ in configuration.serviceDeadline = 60 }
        let titles = Mutex<[Int: String]>([:])
        let reported = Mutex<[Int: [String]]>([:])
        onThreads(32) { index in
            var request = remote("slow", [("milliseconds", .string("1000"))])
            request.identifier = "burst-\(index)"
            let delivery = host.deliver(request, to: "com.example.svc")
            titles.withLock { $0[index] = delivery.presentation.notification.content.title }
            if !delivery.diagnostics.isEmpty { reported.withLock { $0[index] = delivery.diagnostics.map(\.description) } }
        }
        let shown = titles.withLock { $0 }
        #expect(shown.count == 32)
        #expect(shown.values.filter { $0 == "slow but done" }.count == 32,
                "\(shown.sorted { $0.key < $1.key }); reported: \(reported.withLock { $0 }.sorted { $0.key < $1.key })")
    }

    /// A million host calls, then twenty threads calling at once: the host's
    /// stack stays flat (each call used to wrap the change observer once
    /// more: a stack overflow after 3–15 k calls in process, about 100 bytes
    /// each). Its memory is measured in a worker, the one process that serves
    /// those calls alone (this one runs other suites' tests meanwhile).
    @Test func aMillionHostCallsInProcessLeaveTheStackFlat() {
        let host = stormHost(.inProcess)
        storm(host)
    }

    /// The same in a worker, which handles the calls through the same context
    /// (131 k calls overflowed its stack), and whose resident memory — its own,
    /// as the extension reads it there — stays flat. Its worker has no cgroup:
    /// with cgroup v1 all of a test process's workers share one, whose memory
    /// limit is the first host's times eight, and the storm's threads beside
    /// the other tests' workers (a memory bomb among them) made the kernel's
    /// OOM killer end this worker, SIGKILL without a report — most often
    /// under ThreadSanitizer, whose threads cost more memory.
    @Test func aMillionHostCallsInAWorkerLeaveStackAndMemoryFlat() throws {
        let host = stormHost(.worker)
        let before = try workerResident(host, "before")
        storm(host)
        let after = try workerResident(host, "after")
        // The same worker: two storms and this reading since the first reading, no restart between.
        try #require(after.instances == before.instances + 3, "the worker was replaced: \(before) then \(after)")
        let grown = after.kilobytes - before.kilobytes
        #expect(grown < 48 << 10, "the worker grew by \(grown >> 10) MiB")
    }

    /// A host for a storm in `mode`, its shared worker (in a worker) started.
    private func stormHost(_ mode: IsolationMode) -> NotificationHost {
        // No rate limit (of calls, or of changes of the view: a million of them is a flood), time enough
        // for a million calls in a debug build, and no memory limit: twenty threads' stacks (8 MiB each)
        // are more than a worker may have, which is not what is tested here.
        let host = host(mode) { configuration, settings in
            configuration.hostCallRate = nil
            configuration.viewChangeRate = nil
            settings.cpuTimePerCall = 120
            settings.callTimeout = 120
            settings.memoryLimit = 0
            // What is measured is the host, not the sandbox: no cgroup shared with other tests' workers.
            settings.sandbox.cgroup = false
        }
        _ = host.deliverOpened(notification("warm", category: "misbehave"), to: "com.example.tests")
        return host
    }

    /// A million host calls on one thread, then 5 000 on each of twenty at once.
    private func storm(_ host: NotificationHost) {
        for (calls, threads) in [(1_000_000, 1), (5_000, 20)] {
            let storm = notification("storm", category: "misbehave",
                                     userInfo: [("storm", .string("\(calls)")), ("threads", .string("\(threads)"))])
            let delivery = host.deliverOpened(storm, to: "com.example.tests")
            #expect(delivery.presentation.view?.text(of: "instances") == "storm \(calls * threads)/0/0",
                    "\(delivery.diagnostics.prefix(3).map(\.description))")
        }
    }

    /// The resident memory (kB) of the worker the bundle's instances share, as the extension reads it
    /// there, and the number of instances made in that worker so far (which tells one worker from its successor).
    private func workerResident(_ host: NotificationHost, _ when: String) throws -> (kilobytes: Int, instances: Int) {
        let delivery = host.deliverOpened(notification("resident-\(when)", category: "misbehave",
                                                       userInfo: [("resident", .string("1"))]), to: "com.example.tests")
        let text = try #require(delivery.presentation.view?.text(of: "count"),
                                "no view \(when): \(delivery.diagnostics.map(\.description))")
        let numbers = text.split(separator: " ")
        let kilobytes = numbers.count == 4 && numbers[0] == "resident" && numbers[2] == "of" ? Int(numbers[1]) : nil
        let read = try #require(kilobytes.flatMap { kilobytes in Int(numbers[3]).map { (kilobytes, $0) } },
                                "the worker's memory \(when): \(text)")
        try #require(read.0 > 0, "the worker could not read its memory \(when): \(text)")
        return read
    }
}
