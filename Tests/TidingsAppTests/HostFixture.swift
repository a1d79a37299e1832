import Foundation
import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// A real `tidings serve` on a temporary socket with a private state, as an
/// app meets it; restartable on the same state. `frontEnd` is a raw client
/// playing the user's side (deciding, responding, delivering).
final class HostFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let socket: String
    private(set) var server: BackgroundProcess
    private(set) var frontEnd: RPCClient

    /// The server's environment beside HOME and NO_COLOR (TZ, for one in a zone of its own).
    private let environment: [String: String]

    init(_ options: [String] = [], environment: [String: String] = [:]) throws {
        self.environment = environment
        directory = TemporaryDirectory()
        socket = directory.file("tidings.sock")
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        server = try Self.start(directory: directory, socket: socket, options: options, environment: environment, log: "server.log")
        frontEnd = try RPCClient(path: socket)
    }

    deinit {
        server.stop()
    }

    private static func start(directory: TemporaryDirectory, socket: String, options: [String], environment: [String: String] = [:],
                              log: String) throws -> BackgroundProcess {
        try? FileManager.default.removeItem(atPath: socket)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", directory.file("state"), "--extensions", directory.file("extensions"),
        ] + options, environment: environment.merging(["HOME": directory.path, "NO_COLOR": "1"]) { _, fixed in fixed },
           log: directory.file(log))
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start")
        return server
    }

    /// Stops the server and starts it again on the same state; the front end connects again.
    func restart() throws {
        server.stop()
        server = try Self.start(directory: directory, socket: socket, options: [], environment: environment, log: "server-2.log")
        frontEnd = try RPCClient(path: socket)
    }

    /// A center of `app` on this host.
    func center(_ app: String = "org.example.app") -> UserNotificationCenter {
        UserNotificationCenter(app: app, socketPath: socket, executor: OwnThreads.shared)
    }

    /// JSON from text.
    func json(_ text: String) throws -> JSON {
        try JSON.parse(Array(text.utf8))
    }

    /// Delivers `payload` (JSON text) as a front end or a push would, and returns the answer.
    @discardableResult
    func deliver(_ payload: String, app: String = "org.example.app", identifier: String) throws -> JSON {
        try frontEnd.call("notifications.deliver", try json(
            #"{"app": "\#(app)", "identifier": "\#(identifier)", "payload": \#(payload)}"#))
    }
}

/// A delegate that records what reaches it and presents as told.
final class RecordingDelegate: UserNotificationCenterDelegate {
    let presenting: PresentationOptions
    let responses: AsyncStream<NotificationResponse>
    let background: AsyncStream<UserNotification>
    let presented: AsyncStream<UserNotification>
    private let responded: AsyncStream<NotificationResponse>.Continuation
    private let woken: AsyncStream<UserNotification>.Continuation
    private let asked: AsyncStream<UserNotification>.Continuation

    init(presenting: PresentationOptions = []) {
        self.presenting = presenting
        (responses, responded) = AsyncStream.makeStream(of: NotificationResponse.self)
        (background, woken) = AsyncStream.makeStream(of: UserNotification.self)
        (presented, asked) = AsyncStream.makeStream(of: UserNotification.self)
    }

    func userNotificationCenter(_ center: UserNotificationCenter, willPresent notification: UserNotification) async -> PresentationOptions {
        asked.yield(notification)
        return presenting
    }

    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse) async {
        responded.yield(response)
    }

    func didReceiveBackgroundNotification(_ notification: UserNotification) async {
        woken.yield(notification)
    }
}

/// The next element of `stream`, waiting at most `patience` (a bound that
/// turns a hang into a failure, not a timing the test asserts).
func next<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(patience * 1e9))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// A delegate in the completion-handler shape that keeps each response's
/// handler without calling it, as an app that ends mid-handler: the test
/// calls (or drops) the handlers itself.
final class HoldingDelegate: UserNotificationCenterDelegate {
    /// A response and its completion handler.
    struct Held: Sendable {
        let response: NotificationResponse
        let completionHandler: @Sendable () -> Void
    }

    let responses: AsyncStream<Held>
    private let held: AsyncStream<Held>.Continuation

    init() {
        (responses, held) = AsyncStream.makeStream(of: Held.self)
    }

    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse,
                                withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {
        held.yield(Held(response: response, completionHandler: completionHandler))
    }
}
