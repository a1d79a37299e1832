import Foundation
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsRegistry
@testable import TidingsServer

/// Live reload: bundles edited, added or removed while the server runs are
/// served without a restart; a manifest that breaks keeps its last good
/// version serving.
@Suite struct ReloadTests {
    let fixture = ServerFixture()
    static let interface = #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "status"}]}}"#
    var bundle: String { fixture.directory.file("extensions/Later.appex") }

    func manifest(categories: [String]) -> String {
        BundleMaker.contentManifest(identifier: "com.example.news.later", executable: "libLater.so", categories: categories,
                                    interface: "MainInterface")
    }

    /// Starts the server with a watcher over its extension directory.
    func start() throws -> (BundleWatcher, RPCClient) {
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"], interface: Self.interface)
        let server = try fixture.start()
        let directory = fixture.directory.file("extensions")
        let watcher = try #require(BundleWatcher(directories: [directory]) {
            _ = server.service.reload(Discovery.scan(SearchPath(directories: [directory], origin: .option)))
        })
        return (watcher, try fixture.client())
    }

    /// The extension that presents a delivery of `category`, or nil for default content.
    func servingExtension(_ client: RPCClient, category: String, identifier: String) throws -> String? {
        let payload = try JSON.parse(Array(#"{"identifier": "\#(identifier)", "content": {"title": "T", "categoryIdentifier": "\#(category)"}}"#.utf8))
        let delivery = try client.call("notifications.deliver", .object([("payload", payload), ("app", .string("com.example.news"))]))
        return delivery["presentation"]?["extension"]?.stringValue
    }

    @Test func aCategoryAddedToAManifestIsServedWithoutARestart() throws {
        let (watcher, client) = try start()
        defer { watcher.stop() }
        #expect(try servingExtension(client, category: "breaking", identifier: "before") == nil)
        try manifest(categories: ["story", "breaking"]).write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
        var attempt = 0
        #expect(try eventually {
            attempt += 1
            return try servingExtension(client, category: "breaking", identifier: "after-\(attempt)") == "com.example.news.later"
        })
    }

    @Test func aRemovedBundleFallsBackToDefaultContent() throws {
        let (watcher, client) = try start()
        defer { watcher.stop() }
        #expect(try servingExtension(client, category: "story", identifier: "before") == "com.example.news.later")
        try FileManager.default.removeItem(atPath: bundle)
        var attempt = 0
        #expect(try eventually {
            attempt += 1
            return try servingExtension(client, category: "story", identifier: "after-\(attempt)") == nil
        })
    }

    @Test func aManifestThatStopsValidatingKeepsItsLastGoodVersionServing() throws {
        let (watcher, client) = try start()
        defer { watcher.stop() }
        _ = try client.call("events.subscribe")
        try "<plist><dict><key>CFBundleIdentifier</key>".write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
        let warned = try #require(try client.event("extension.failed"))
        #expect(warned["diagnostic"]?["code"] == .string("registry.kept-last-good"))
        #expect(try servingExtension(client, category: "story", identifier: "still") == "com.example.news.later")
    }

    @Test func aBundleDroppedInIsServed() throws {
        let (watcher, client) = try start()
        defer { watcher.stop() }
        let library = try CCompiler.fixture("Later", into: fixture.directory.path, output: "libLater2.so", extraFlags: ["-pthread"])
        let interface = try fixture.directory.write(Self.interface, to: "second/MainInterface.json")
        // Assembled beside, then moved in whole, as `tidings install` does.
        let staged = try BundleMaker.make("Second", in: fixture.directory.file("staging"), manifest: BundleMaker.contentManifest(
            identifier: "com.example.news.second", executable: "libLater2.so", categories: ["sport"],
            interface: "MainInterface"), library: library, resources: [interface])
        try FileManager.default.moveItem(atPath: staged, toPath: fixture.directory.file("extensions/Second.appex"))
        var attempt = 0
        #expect(try eventually {
            attempt += 1
            return try servingExtension(client, category: "sport", identifier: "sport-\(attempt)") == "com.example.news.second"
        })
    }

    @Test func aRunningTidingsServeFollowsItsBundles() throws {
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"], interface: Self.interface)
        let socket = fixture.directory.file("run/tidings.sock")
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", fixture.directory.file("state"),
            "--extensions", fixture.directory.file("extensions"),
        ], environment: ["HOME": fixture.directory.path, "NO_COLOR": "1"], log: fixture.directory.file("serve.log"))
        defer { server.stop() }
        try #require(BackgroundProcess.wait(forListener: socket))
        let client = try RPCClient(path: socket)
        #expect(try servingExtension(client, category: "breaking", identifier: "before") == nil)
        try manifest(categories: ["story", "breaking"]).write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
        var attempt = 0
        #expect(try eventually {
            attempt += 1
            return try servingExtension(client, category: "breaking", identifier: "after-\(attempt)") == "com.example.news.later"
        })
        try FileManager.default.removeItem(atPath: bundle)
        #expect(try eventually {
            attempt += 1
            return try servingExtension(client, category: "story", identifier: "gone-\(attempt)") == nil
        })
        let log = (try? String(contentsOfFile: fixture.directory.file("serve.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("the search path changed"))
    }

    /// `tidings install` over a bundle while `tidings serve` keeps its
    /// workers warm: once the reload is seen, every open runs the new
    /// library. The old one used to serve on, in two warm workers taking
    /// turns, however long after the install.
    @Test func aBundleInstalledOverAWarmOneServesItsNewLibrary() throws {
        let tidings = Locations.product("tidings")
        let extensions = fixture.directory.file("extensions")
        try FileManager.default.createDirectory(atPath: extensions, withIntermediateDirectories: true)
        let interface = try fixture.directory.write(LedgerFixture.interface, to: "ledger/MainInterface.json")
        let manifest = try fixture.directory.write(BundleMaker.contentManifest(
            identifier: LedgerFixture.identifier, executable: "libLedger.so", categories: [LedgerFixture.category],
            interface: "MainInterface"), to: "ledger/Info.plist")
        /// Installs the Ledger bundle with its library built as `build`, as an operator does.
        func install(build: String) throws {
            let library = try CCompiler.fixture("Ledger", into: fixture.directory.file("ledger"), output: "libLedger-\(build).so",
                                                extraFlags: ["-DLEDGER_BUILD=\"\(build)\""])
            let installed = try ProcessRunner.run(tidings, ["install", manifest, library, interface, "--into", extensions,
                                                            "--name", "Ledger"])
            try #require(installed.status == 0, "\(installed.standardError)")
        }
        try install(build: "1")
        let socket = fixture.directory.file("run/tidings.sock")
        let server = try BackgroundProcess(tidings, ["serve", "--socket", socket, "--state", fixture.directory.file("state"),
                                                     "--extensions", extensions],
                                           environment: ["HOME": fixture.directory.path, "NO_COLOR": "1"],
                                           log: fixture.directory.file("serve.log"))
        defer { server.stop() }
        try #require(BackgroundProcess.wait(forListener: socket))
        let client = try RPCClient(path: socket)
        /// The build of the library that served notification `identifier`'s expanded interface, closed again.
        func openedBuild(_ identifier: String) throws -> String? {
            let delivery = try client.call(
                "notifications.deliver",
                .object([("app", .string(LedgerFixture.app)), ("open", .bool(true)), ("payload", .object([
                    ("identifier", .string(identifier)), ("content", .object([
                        ("title", .string("T")), ("categoryIdentifier", .string(LedgerFixture.category)),
                        ("threadIdentifier", .string(identifier)),
                    ])),
                ]))]))
            _ = try client.call("notifications.close", .object([("identifier", .string(identifier))]))
            return LedgerRequests.label("instance", in: delivery["presentation"])?
                .components(separatedBy: " build ").dropFirst().first
        }
        // The pool warm with build 1's workers.
        #expect(try openedBuild("before-1") == "1")
        #expect(try openedBuild("before-2") == "1")
        try install(build: "2")
        var attempt = 0
        #expect(try eventually {
            attempt += 1
            return try openedBuild("reloading-\(attempt)") == "2"
        })
        var builds: [String?] = []
        for round in 0..<20 { builds.append(try openedBuild("after-\(round)")) }
        #expect(builds == Array(repeating: "2", count: 20))
    }
}
