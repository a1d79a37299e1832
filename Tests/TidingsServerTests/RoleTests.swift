import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsServer

/// Roles: an app connection (`server.hello` as an app) is held to its own
/// app — each foreign call refused with -32011 while a front end may make
/// it — and a connection that says nothing keeps a front end's rights.
@Suite struct RoleTests {
    let fixture = ServerFixture()
    static let own = "org.example.own"
    static let other = "org.example.other"

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    /// The code of the error `call` threw, or nil when it answered.
    func code(_ call: () throws -> JSON) -> Int64? {
        do {
            _ = try call()
            return nil
        } catch let error as RPCErrorReply {
            return error.code
        } catch {
            return 0
        }
    }

    /// A client that said hello as app `app`.
    func appClient(_ app: String = own) throws -> RPCClient {
        let client = try fixture.client()
        let answer = try client.call("server.hello", try json(#"{"role": "app", "app": "\#(app)", "client": "RoleTests"}"#))
        #expect(answer["role"] == .string("app") && answer["app"] == .string(app))
        return client
    }

    /// The other app's state a foreign call would touch: a delivered
    /// notification `dose-1`, a pending request, categories, a badge.
    func prepareOtherApp(_ frontEnd: RPCClient) throws {
        _ = try frontEnd.call("notifications.deliver", try json(#"{"app": "\#(Self.other)", "identifier": "dose-1", "payload": {"aps": {"alert": {"title": "Take your pill", "body": "Secret dose"}}}}"#))
        _ = try frontEnd.call("requests.add", try json(#"{"app": "\#(Self.other)", "request": {"identifier": "later", "content": {"title": "Later"}, "trigger": {"timeInterval": 3600}}}"#))
    }

    /// Every call an app must not make for another app (or at all), with
    /// parameters a front end's call succeeds with.
    static let foreignCalls: [(String, String)] = [
        ("authorization.decide", #"{"app": "\#(own)", "decision": "allow"}"#),
        ("authorization.decide", #"{"app": "\#(other)", "decision": "allow"}"#),
        ("authorization.request", #"{"app": "\#(other)", "options": ["alert"], "timeout": 0}"#),
        ("authorization.settings", #"{"app": "\#(other)"}"#),
        ("notifications.list", #"{"app": "\#(other)"}"#),
        ("notifications.presentation", #"{"identifier": "dose-1"}"#),
        ("notifications.deliver", #"{"app": "\#(other)", "payload": {"aps": {"alert": "Forged"}}}"#),
        ("inbox.list", #"{"app": "\#(other)"}"#),
        ("inbox.take", #"{"app": "\#(other)", "upTo": 1000}"#),
        ("requests.pending", #"{"app": "\#(other)"}"#),
        ("requests.add", #"{"app": "\#(other)", "request": {"identifier": "forged", "content": {"title": "Forged"}, "trigger": {"timeInterval": 3600}}}"#),
        ("badge.set", #"{"app": "\#(other)", "count": 7}"#),
        ("categories.register", #"{"app": "\#(other)", "categories": []}"#),
        ("categories.list", #"{"app": "\#(other)"}"#),
        ("apps.register", #"{"app": "\#(other)", "name": "Impostor"}"#),
        ("apps.list", #"{"app": "\#(other)"}"#),
        ("apps.foreground", #"{"app": "\#(other)", "foreground": true}"#),
        ("events.subscribe", #"{"apps": ["\#(other)"]}"#),
        ("events.subscribe", #"{"apps": ["\#(own)", "\#(other)"]}"#),
        ("extensions.list", #"{}"#),
        ("location.update", #"{"latitude": 48.85, "longitude": 2.35}"#),
        ("notifications.respond", #"{"identifier": "dose-1", "action": "default"}"#),
        ("requests.remove", #"{"app": "\#(other)"}"#),
        ("push.register", #"{"app": "\#(other)"}"#),
        ("push.list", #"{"app": "\#(other)"}"#),
        ("push.endpoint", #"{"token": "0123456789abcdef0123456789abcdef", "endpoint": "https://push.example.org/forged"}"#),
        ("push.receive", #"{"token": "0123456789abcdef0123456789abcdef", "message": "AAAA"}"#),
        ("push.distributor", #"{"name": null}"#),
        ("push.unregister", #"{"app": "\#(other)"}"#),
        ("notifications.remove", #"{"app": "\#(other)"}"#),
    ]

    @Test func anAppConnectionIsRefusedEveryForeignCallThatAFrontEndMayMake() throws {
        try fixture.start()
        let frontEnd = try fixture.client()
        try prepareOtherApp(frontEnd)
        let app = try appClient()
        for (method, params) in Self.foreignCalls {
            let refused = code { try app.call(method, try json(params)) }
            #expect(refused == -32011, "an app connection's \(method) \(params): \(refused.map(String.init) ?? "answered")")
        }
        // Nothing of the other app's changed: its notification, request and badge are as they were.
        let listed = try frontEnd.call("notifications.list", try json(#"{"app": "\#(Self.other)"}"#))
        #expect(listed["notifications"]?.arrayValue?.count == 1)
        #expect(try frontEnd.call("requests.pending", try json(#"{"app": "\#(Self.other)"}"#))["requests"]?.arrayValue?.count == 1)
        let apps = try frontEnd.call("apps.list", try json(#"{"app": "\#(Self.other)"}"#))["apps"]?.arrayValue ?? []
        #expect(apps.allSatisfy { $0["name"] != .string("Impostor") && ($0["badge"]?.integerValue ?? 0) == 0 })
        // A front end may make each call (the removals last: they take what the others touch).
        for (method, params) in Self.foreignCalls {
            let answered = code { try frontEnd.call(method, try json(params)) }
            #expect(answered != -32011 && answered != 0, "a front end's \(method): \(answered.map(String.init) ?? "answered")")
        }
    }

    @Test func anAppConnectionSeesAndRemovesOnlyItsOwn() throws {
        try fixture.start()
        let frontEnd = try fixture.client()
        try prepareOtherApp(frontEnd)
        let app = try appClient()
        _ = try app.call("notifications.deliver", try json(#"{"identifier": "own-1", "payload": {"aps": {"alert": "Mine"}}}"#))
        // Listing without an app lists its own only; the answer's notifications are all its app's.
        let listed = try app.call("notifications.list", nil)["notifications"]?.arrayValue ?? []
        #expect(listed.map { $0["app"] } == [.string(Self.own)])
        #expect(try app.call("requests.pending", nil)["requests"]?.arrayValue?.isEmpty == true)
        // Removing another app's identifier removes nothing of it.
        let removed = try app.call("notifications.remove", try json(#"{"identifiers": ["dose-1"]}"#))
        #expect(removed["removed"] == .array([]))
        #expect(try frontEnd.call("notifications.list", try json(#"{"app": "\#(Self.other)"}"#))["notifications"]?.arrayValue?.count == 1)
        #expect(try app.call("notifications.remove", try json(#"{"identifiers": ["own-1"]}"#))["removed"] == .array([.string("own-1")]))
    }

    @Test func anAppConnectionHearsOnlyItsOwnEvents() throws {
        try fixture.start()
        let frontEnd = try fixture.client()
        let app = try appClient()
        let subscribed = try app.call("events.subscribe", try json(#"{"apps": "all", "replay": false}"#))
        #expect(subscribed["apps"] == .array([.string(Self.own)]))
        _ = try frontEnd.call("notifications.deliver", try json(#"{"app": "\#(Self.other)", "identifier": "secret", "payload": {"aps": {"alert": "Secret"}}}"#))
        _ = try frontEnd.call("notifications.deliver", try json(#"{"app": "\#(Self.own)", "identifier": "mine", "payload": {"aps": {"alert": "Mine"}}}"#))
        // Events come in order: the first it hears is its own, the other app's never came.
        let first = try #require(try app.event("notification.delivered"))
        #expect(first["app"] == .string(Self.own), "\(first)")
    }

    @Test func aConnectionThatSaysNothingIsAFrontEnd() throws {
        try fixture.start()
        let silent = try fixture.client()
        try prepareOtherApp(silent)
        let described = try silent.call("server.describe", nil)["connection"]
        #expect(described?["role"] == .string("frontEnd"))
        #expect(described?["peer"]?["pid"]?.integerValue == Int64(getpid()))
        #expect(described?["peer"]?["uid"]?.integerValue == Int64(geteuid()))
        #expect(try silent.call("authorization.decide", try json(#"{"app": "\#(Self.other)", "decision": "allow"}"#))["status"]
            == .string("authorized"))
        #expect(try silent.call("notifications.list", nil)["notifications"]?.arrayValue?.count == 1)
        // Saying so afterwards is fine; becoming an app after a call is not.
        #expect(try silent.call("server.hello", try json(#"{"role": "frontEnd"}"#))["role"] == .string("frontEnd"))
        #expect(code { try silent.call("server.hello", try json(#"{"role": "app", "app": "\#(Self.own)"}"#)) } == -32011)
    }

    @Test func helloTwiceWithAnotherRoleOrAppIsRefused() throws {
        try fixture.start()
        let app = try appClient()
        #expect(try app.call("server.hello", try json(#"{"role": "app", "app": "\#(Self.own)"}"#))["app"] == .string(Self.own))
        #expect(code { try app.call("server.hello", try json(#"{"role": "frontEnd"}"#)) } == -32011)
        #expect(code { try app.call("server.hello", try json(#"{"role": "app", "app": "\#(Self.other)"}"#)) } == -32011)
        let described = try app.call("server.describe", nil)["connection"]
        #expect(described?["role"] == .string("app") && described?["app"] == .string(Self.own))
        // Still confined: the refused hellos changed nothing.
        #expect(code { try app.call("authorization.decide", try json(#"{"app": "\#(Self.own)", "decision": "allow"}"#)) } == -32011)
    }

    /// A parameter given twice cannot hide another app behind the app's own.
    @Test func anAppNamedTwiceIsRefused() throws {
        try fixture.start()
        let app = try appClient()
        app.send(#"{"jsonrpc": "2.0", "id": 1, "method": "badge.set", "params": {"app": "\#(Self.own)", "app": "\#(Self.other)", "count": 2}}"#)
        #expect(code { try app.result(of: .integer(1)) } == -32011)
    }

    /// Calls sent right after a hello, without waiting for its answer, run
    /// as the role it gave: the server orders every call after a hello.
    @Test func callsPipelinedAfterAHelloRunAsItsRole() throws {
        try fixture.start()
        let app = try fixture.client()
        let hello = app.request("server.hello", try json(#"{"role": "app", "app": "\#(Self.own)"}"#))
        let decisions = try (0..<20).map { _ in
            app.request("authorization.decide", try json(#"{"app": "\#(Self.own)", "decision": "allow"}"#))
        }
        #expect(try app.result(of: hello)["app"] == .string(Self.own))
        for decision in decisions {
            #expect(code { try app.result(of: decision) } == -32011)
        }
    }

    /// The one table gives every method a level, and every method an app
    /// may call for its own app names the app it acts on (else it could
    /// not be confined): a method added without either fails here.
    @Test func everyMethodHasALevelAndEveryOwnAppMethodNamesItsApp() {
        let names = HostService.protocolMethods.map(\.name)
        #expect(Set(MethodAccess.table.keys.map(\.rawValue)) == Set(names))
        for method in HostService.protocolMethods where MethodAccess.of(method.name) == .ownApp {
            #expect(method.parameter("app") != nil || method.name == "events.subscribe", "\(method.name) names no app")
        }
        #expect(MethodAccess.of("authorization.decide") == .frontEnd)
        #expect(MethodAccess.of("a.method-without-a-level") == .frontEnd)
    }
}
