import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// Presentation in the foreground through the server over its socket: an
/// app's connection says it is in the foreground (`apps.foreground`), the
/// server asks its delegate `app.willPresent` before presenting, and the
/// options answered reach the delivery, the presentation and the
/// `notification.delivered` event; without a delegate, an answer or an
/// answer in time, nothing is presented; an app in the background, or whose
/// connection ended, has every option.
@Suite struct ForegroundPresentationTests {
    let fixture = ServerFixture()
    static let app = "com.example.chat"

    /// A delivery to the chat app, with a badge and a sound.
    static func message(_ identifier: String) -> JSON {
        .object([
            ("app", .string(app)), ("identifier", .string(identifier)),
            ("payload", .object([("aps", .object([
                ("alert", .object([("title", .string("Ann")), ("body", .string("Lunch?"))])),
                ("badge", .integer(3)), ("sound", .string("default")),
            ]))])),
        ])
    }

    /// Says on `client` that the chat app is in the foreground (or not), with a delegate or not.
    static func foreground(_ client: RPCClient, _ foreground: Bool = true, delegate: Bool) throws -> JSON {
        try client.call("apps.foreground", .object([
            ("app", .string(app)), ("foreground", .bool(foreground)), ("delegate", .bool(delegate)),
        ]))
    }

    /// Delivers `identifier` from `frontEnd`, answers the `app.willPresent`
    /// the app's connection gets with `options`, and returns the request
    /// asked and the delivery's answer.
    static func deliver(_ identifier: String, from frontEnd: RPCClient, answering app: RPCClient,
                        with options: [String]) throws -> (asked: JSON, delivery: JSON) {
        let id = frontEnd.request("notifications.deliver", message(identifier))
        let asked = try #require(try app.serverRequest("app.willPresent"))
        app.respond(to: asked["id"] ?? .null, result: .object([("options", .array(options.map(JSON.string)))]))
        return (asked, try frontEnd.result(of: id))
    }

    static func names(_ value: JSON?) -> [String]? { value?.arrayValue?.compactMap(\.stringValue) }

    static func codes(_ delivery: JSON) -> [String] {
        delivery["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
    }

    @Test func theDelegatesOptionsDecideHowItIsPresented() throws {
        try fixture.start()
        let app = try fixture.client()
        let frontEnd = try fixture.client()
        _ = try frontEnd.call("events.subscribe", .object([("apps", .array([.string(Self.app)]))]))
        let declared = try Self.foreground(app, delegate: true)
        #expect(declared["foreground"] == .bool(true) && declared["delegate"] == .bool(true))

        let banner = try Self.deliver("m1", from: frontEnd, answering: app, with: ["banner"])
        #expect(banner.asked["id"] == .string("s1"))
        #expect(banner.asked["params"]?["app"] == .string(Self.app))
        #expect(banner.asked["params"]?["notification"]?["identifier"] == .string("m1"))
        #expect(banner.asked["params"]?["notification"]?["body"] == .string("Lunch?"))
        #expect(banner.delivery["display"] == .string("presented"))
        #expect(Self.names(banner.delivery["presentation"]?["presentationOptions"]) == ["banner"])
        // The badge applies only with "badge".
        #expect(banner.delivery["badge"] == nil)
        let event = try #require(try frontEnd.event("notification.delivered"))
        #expect(Self.names(event["presentation"]?["presentationOptions"]) == ["banner"])

        let listed = try Self.deliver("m2", from: frontEnd, answering: app, with: ["list", "badge"])
        #expect(listed.asked["id"] == .string("s2"))
        #expect(listed.delivery["display"] == .string("presented") && listed.delivery["badge"] == .integer(3))
        #expect(Self.names(listed.delivery["presentation"]?["presentationOptions"]) == ["list", "badge"])
        let shown = try frontEnd.call("notifications.presentation", .object([("identifier", .string("m2"))]))
        #expect(Self.names(shown["presentationOptions"]) == ["list", "badge"])

        let none = try Self.deliver("m3", from: frontEnd, answering: app, with: [])
        #expect(none.asked["id"] == .string("s3"))
        #expect(none.delivery["display"] == .string("foreground") && none.delivery["badge"] == nil)
        #expect(none.delivery["notification"]?["identifier"] == .string("m3"))
        #expect(Self.names(none.delivery["presentationOptions"]) == [])
        // Only the badge: not shown, and the badge set, as iOS does with `[.badge]`.
        let badged = try Self.deliver("m4", from: frontEnd, answering: app, with: ["badge"])
        #expect(badged.delivery["display"] == .string("foreground") && badged.delivery["badge"] == .integer(3),
                "\(badged.delivery)")
        let kept = try frontEnd.listAll(app: Self.app).compactMap { $0["notification"]?["identifier"]?.stringValue }
        #expect(kept == ["m1", "m2"])
    }

    @Test func anAppInTheForegroundWithoutADelegateIsNotPresented() throws {
        try fixture.start()
        let app = try fixture.client()
        let frontEnd = try fixture.client()
        _ = try Self.foreground(app, delegate: false)
        let delivery = try frontEnd.call("notifications.deliver", Self.message("quiet"))
        #expect(delivery["display"] == .string("foreground") && delivery["badge"] == nil)
        #expect(Self.codes(delivery).contains("foreground.no-delegate"))
        // The app was not asked: its next answer comes with no request before it.
        _ = try app.call("server.describe")
        #expect(app.serverRequests.isEmpty)
        #expect(try frontEnd.listAll(app: Self.app).isEmpty)
    }

    @Test func anAppInTheBackgroundHasEveryOption() throws {
        try fixture.start()
        let frontEnd = try fixture.client()
        let delivery = try frontEnd.call("notifications.deliver", Self.message("away"))
        #expect(delivery["display"] == .string("presented") && delivery["badge"] == .integer(3))
        #expect(Self.names(delivery["presentation"]?["presentationOptions"]) == ["banner", "list", "sound", "badge"])
        // Another app in the foreground changes nothing for it.
        let other = try fixture.client()
        _ = try other.call("apps.foreground", .object([
            ("app", .string("com.example.other")), ("foreground", .bool(true)), ("delegate", .bool(true)),
        ]))
        let again = try frontEnd.call("notifications.deliver", Self.message("away-2"))
        #expect(Self.names(again["presentation"]?["presentationOptions"]) == ["banner", "list", "sound", "badge"])
    }

    @Test func theConnectionEndingForgetsTheForeground() throws {
        let server = try fixture.start()
        let frontEnd = try fixture.client()
        do {
            let app = try fixture.client()
            _ = try Self.foreground(app, delegate: true)
            #expect(server.service.foreground.isForeground(Self.app))
        }
        // The app's connection closed: the server notices on its own.
        #expect(eventually { !server.service.foreground.isForeground(Self.app) })
        let delivery = try frontEnd.call("notifications.deliver", Self.message("after"))
        #expect(delivery["display"] == .string("presented"))
        #expect(Self.names(delivery["presentation"]?["presentationOptions"]) == ["banner", "list", "sound", "badge"])
    }

    @Test func leavingTheForegroundOnAnotherConnectionChangesNothing() throws {
        let server = try fixture.start()
        let app = try fixture.client()
        let other = try fixture.client()
        _ = try Self.foreground(app, delegate: false)
        let left = try Self.foreground(other, false, delegate: false)
        #expect(left["foreground"] == .bool(true))
        #expect(server.service.foreground.isForeground(Self.app))
        let back = try Self.foreground(app, false, delegate: false)
        #expect(back["foreground"] == .bool(false))
    }

    @Test func theServersRequestsAreRoutedByTheirIds() throws {
        let server = try fixture.start()
        // One connection is both the app and its front end: its own delivery
        // waits for its own answer, read while that delivery is under way.
        let app = try fixture.client()
        _ = try Self.foreground(app, delegate: true)
        let first = try Self.deliver("own-1", from: app, answering: app, with: ["banner", "sound"])
        #expect(first.asked["id"] == .string("s1"))
        #expect(Self.names(first.delivery["presentation"]?["presentationOptions"]) == ["banner", "sound"])

        // An error answered: not presented.
        let id = app.request("notifications.deliver", Self.message("own-2"))
        let asked = try #require(try app.serverRequest("app.willPresent"))
        #expect(asked["id"] == .string("s2"))
        app.respond(to: .string("s2"), errorCode: -32000, message: "The delegate failed.")
        let refused = try app.result(of: id)
        #expect(refused["display"] == .string("foreground"))
        #expect(Self.codes(refused).contains("foreground.bad-answer"))

        // An answer to an id the server never sent is ignored: no error comes back for it.
        app.respond(to: .string("s99"), result: .object([("options", .array([]))]))
        app.respond(to: .integer(7), result: .null)
        let described = try app.call("server.describe")
        #expect(!app.hasAnswer(to: .string("s99")) && !app.hasAnswer(to: .integer(7)))
        let tally = described["serverRequests"]
        #expect(tally?["sent"] == .integer(2) && tally?["answered"] == .integer(2))
        #expect(tally?["unknownResponses"] == .integer(2) && tally?["unanswered"] == .integer(0))
        #expect(server.service.foreground.isForeground(Self.app))
    }

    @Test func aDelegateThatDoesNotAnswerInTimeGetsNothingPresented() throws {
        let server = try fixture.startProcess(.inProcess, options: ["--will-present-deadline", "0.05"])
        defer { server.stop() }
        let app = try fixture.client()
        let frontEnd = try fixture.client()
        _ = try Self.foreground(app, delegate: true)
        let delivery = try frontEnd.call("notifications.deliver", Self.message("late"))
        #expect(delivery["display"] == .string("foreground"))
        #expect(Self.codes(delivery).contains("foreground.no-answer"))
        // The app was asked; its answer, too late, is ignored.
        let asked = try #require(try app.serverRequest("app.willPresent"))
        app.respond(to: asked["id"] ?? .null, result: .object([("options", .array([.string("banner")]))]))
        let described = try app.call("server.describe")
        #expect(described["limits"]?["willPresentDeadline"] == .double(0.05))
        #expect(described["serverRequests"]?["unanswered"] == .integer(1))
        #expect(described["serverRequests"]?["unknownResponses"] == .integer(1))
        #expect(try frontEnd.listAll(app: Self.app).isEmpty)
    }
}
