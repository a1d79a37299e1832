import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop

/// What GeoClue sends is checked before it reaches the server, and the
/// front end knows which region requests are pending from the server's events.
@Suite struct LocationCheckTests {
    private func location(_ latitude: Double, _ longitude: Double, _ accuracy: Double) throws(BusError) -> (Double, Double, Double?) {
        let update = try GeoClueClient.location(from: ["Latitude": .double(latitude), "Longitude": .double(longitude),
                                                       "Accuracy": .double(accuracy), "Description": .string("")])
        return (update.latitude, update.longitude, update.accuracy)
    }

    @Test func aPositionInRangeIsTaken() throws {
        let (latitude, longitude, accuracy) = try location(48.8566, 2.3522, 10)
        #expect(latitude == 48.8566 && longitude == 2.3522 && accuracy == 10)
        #expect(try location(-90, 180, 0).2 == 0)
    }

    @Test(arguments: [(91.0, 0.0, 1.0), (-90.5, 0.0, 1.0), (0.0, 180.5, 1.0), (0.0, -181.0, 1.0), (Double.nan, 0.0, 1.0),
                      (0.0, Double.infinity, 1.0), (0.0, 0.0, -1.0), (0.0, 0.0, Double.infinity), (0.0, 0.0, Double.nan)])
    func aPositionOutOfRangeIsRefused(_ values: (Double, Double, Double)) {
        #expect(throws: BusError.self) { try location(values.0, values.1, values.2) }
    }

    @Test func aLocationWithoutItsNumbersIsRefused() {
        #expect(throws: BusError.self) {
            try GeoClueClient.location(from: ["Latitude": .double(1), "Longitude": .string("2"), "Accuracy": .double(3)])
        }
        #expect(throws: BusError.self) { try GeoClueClient.location(from: ["Latitude": .double(1), "Longitude": .double(2)]) }
    }

    @Test func regionRequestsFollowTheServersEvents() throws {
        let region = JSON.object([("region", .object([("identifier", .string("shop")), ("latitude", .double(1)),
                                                      ("longitude", .double(2)), ("radius", .double(100))])),
                                  ("repeats", .bool(false))])
        let interval = JSON.object([("timeInterval", .double(60)), ("repeats", .bool(false))])
        var regions = RegionRequests()
        regions.replace(with: .object([("requests", .array([
            .object([("app", .string("a")), ("identifier", .string("x")), ("trigger", region)]),
            .object([("app", .string("b")), ("identifier", .string("y")), ("trigger", interval)]),
        ]))]))
        #expect(regions.count == 1 && regions.apps == ["a"])
        // Two apps may use one identifier.
        regions.handle("request.scheduled", .object([("app", .string("b")), ("identifier", .string("x")), ("trigger", region)]))
        #expect(regions.count == 2 && regions.apps == ["a", "b"])
        // Replaced by another trigger: no longer a region's.
        regions.handle("request.scheduled", .object([("app", .string("b")), ("identifier", .string("x")), ("trigger", interval)]))
        #expect(regions.apps == ["a"])
        let fired = regions.handle("request.fired", .object([("app", .string("a")), ("identifier", .string("x")),
                                                             ("trigger", region)]))
        #expect(fired && regions.isEmpty)
        regions.handle("request.scheduled", .object([("app", .string("a")), ("identifier", .string("x")), ("trigger", region)]))
        regions.handle("request.removed", .object([("app", .string("a")), ("identifiers", .array([.string("x")])),
                                                   ("reason", .string("removed"))]))
        #expect(regions.isEmpty)
    }
}

/// `tidings desktop` follows the device's position from GeoClue2 while a
/// region request is pending: a GeoClue2 double on the rig's private bus
/// (`GeoClueDouble`), the server, the front end and dunst. Each step waits
/// for what the double records or the front end logs, never for a time.
@Suite(.serialized, .enabled(if: canRunPortal, "needs dunst, dunstctl, Xvfb and python3-gi"))
struct GeoClueTests {
    @Test func aRegionRequestStartsGeoClueItsPositionsFireItAndStopWhenNoneIsLeft() throws {
        let rig = try FrontEndRig()
        let geoclue = try GeoClueDouble(address: rig.session.bus.address, in: rig.directory)
        try rig.startServer()
        try rig.startDesktop(["--geoclue-bus", rig.session.bus.address])
        _ = try rig.waitFor("synchronised")
        // A region request of an app: the front end asks GeoClue, as itself.
        let trigger = JSON.object([("region", .object([("identifier", .string("shop")), ("latitude", .double(48.8566)),
                                                       ("longitude", .double(2.3522)), ("radius", .double(100)),
                                                       ("notifyOnEntry", .bool(true)), ("notifyOnExit", .bool(false))])),
                                   ("repeats", .bool(false))])
        let request = JSON.object([("identifier", .string("groceries")), ("content", .object([("title", .string("Milk"))])),
                                   ("trigger", trigger)])
        _ = try rig.client().call("requests.add", .object([("app", .string(FrontEndRig.app)), ("request", request)]))
        try geoclue.waitForCall("Start")
        let calls = geoclue.calls
        #expect(calls.first?["call"] == .string("GetClient"), "\(calls)")
        let set = Dictionary(calls.filter { $0["call"] == .string("Set") }.compactMap { call in
            call["property"]?.stringValue.map { ($0, call["value"] ?? .null) }
        }, uniquingKeysWith: { $1 })
        #expect(set["DesktopId"] == .string("org.tidings.Desktop"), "\(calls)")
        #expect(set["RequestedAccuracyLevel"] == .integer(8), "\(calls)")
        #expect(set["DistanceThreshold"] != nil, "\(calls)")
        _ = try rig.waitFor("location") { $0["geoclue"] == .string("started") }
        // Outside the region: only says where the device is.
        try geoclue.move(48.80, 2.35, accuracy: 10)
        let outside = try rig.waitFor("located") { $0["latitude"] == .double(48.80) }
        #expect(outside["fired"] == .array([]), "\(outside)")
        // What GeoClue says is checked: a latitude beyond the pole never reaches the server.
        try geoclue.move(95, 2.35, accuracy: 10)
        let refused = try rig.waitFor("location") { $0["geoclue"] == .string("failed") }
        #expect(refused["code"] == .string("dbus.unexpected-reply"), "\(refused)")
        #expect(!rig.events("located").contains { $0["latitude"] == .double(95) }, "\(rig.desktopLog)")
        // Into the region: the request fires and its notification is shown.
        try geoclue.move(48.8566, 2.3522, accuracy: 10)
        let inside = try rig.waitFor("located") { $0["latitude"] == .double(48.8566) }
        #expect(inside["fired"]?.arrayValue?.first?["identifier"] == .string("groceries"), "\(inside)")
        _ = try rig.waitFor("state") {
            $0["method"] == .string("request.fired") && $0["params"]?["identifier"] == .string("groceries")
        }
        _ = try rig.waitFor("shown", identifier: "groceries")
        // The one-shot request is gone: no region request is left, and GeoClue is stopped.
        try geoclue.waitForCall("Stop")
        _ = try rig.waitFor("location") { $0["geoclue"] == .string("stopped") }
        #expect(try rig.client().call("requests.pending")["requests"]?.arrayValue?.isEmpty == true)
    }

    @Test func removingTheLastRegionRequestStopsGeoClueAndANewOneStartsItAgain() throws {
        let rig = try FrontEndRig()
        let geoclue = try GeoClueDouble(address: rig.session.bus.address, in: rig.directory)
        try rig.startServer()
        try rig.startDesktop(["--geoclue-bus", rig.session.bus.address])
        _ = try rig.waitFor("synchronised")
        let trigger = JSON.object([("region", .object([("identifier", .string("home")), ("latitude", .double(52.52)),
                                                       ("longitude", .double(13.405)), ("radius", .double(200)),
                                                       ("notifyOnEntry", .bool(false)), ("notifyOnExit", .bool(true))])),
                                   ("repeats", .bool(true))])
        let request = JSON.object([("identifier", .string("leaving")), ("content", .object([("title", .string("Keys?"))])),
                                   ("trigger", trigger)])
        _ = try rig.client().call("requests.add", .object([("app", .string(FrontEndRig.app)), ("request", request)]))
        try geoclue.waitForCall("Start")
        _ = try rig.client().call("requests.remove", .object([("app", .string(FrontEndRig.app)),
                                                              ("identifiers", .array([.string("leaving")]))]))
        try geoclue.waitForCall("Stop")
        _ = try rig.client().call("requests.add", .object([("app", .string(FrontEndRig.app)), ("request", request)]))
        try geoclue.waitForCall("Start", count: 2)
        // One client for the session: GetClient once.
        #expect(geoclue.calls.filter { $0["call"] == .string("GetClient") }.count == 1, "\(geoclue.calls)")
    }
}
