import Foundation
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase

/// A served bundle whose manifest is edited into an invalid one keeps its
/// last good version serving, in this process and in workers: the host
/// tells a worker the manifest and interface it validated, and the worker
/// never reads its own verdict from disk. `tidings serve` watches the
/// bundle and starts each worker cold (no warm workers kept), so that the
/// open after the edit starts a worker that reads it, if anything does.
@Suite struct LastGoodVersionTests {
    let fixture = ServerFixture()
    static let interface = #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "status"}]}}"#

    /// The text of element `identifier` in `presentation`'s view, searched depth first.
    func text(of identifier: String, in node: JSON?) -> String? {
        guard let node else { return nil }
        if node["id"] == .string(identifier) { return node["text"]?.stringValue }
        return (node["children"]?.arrayValue ?? []).lazy.compactMap { text(of: identifier, in: $0) }.first
    }

    /// Delivers notification `identifier` of category "story" and opens its interface; the answer to the open.
    func deliverAndOpen(_ client: RPCClient, _ identifier: String) throws -> JSON {
        let payload = try JSON.parse(Array(#"{"identifier": "\#(identifier)", "content": {"title": "T", "categoryIdentifier": "story"}}"#.utf8))
        _ = try client.call("notifications.deliver", .object([("payload", payload), ("app", .string("com.example.news"))]))
        return try client.call("notifications.open", .object([("identifier", .string(identifier))]))
    }

    @Test(arguments: IsolationMode.allCases)
    func anOpenAfterTheManifestBrokeIsServedByTheLastGoodVersion(_ mode: IsolationMode) throws {
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"], interface: Self.interface)
        let server = try fixture.startProcess(mode, options: ["--warm-workers", "0"])
        defer { server.stop() }
        let client = try fixture.client()
        let before = try deliverAndOpen(client, "before")
        // Later says "loading" in didReceive, and "updated" 30 ms on.
        #expect(["loading", "updated"].contains(text(of: "status", in: before["presentation"]?["view"])), "\(before)")
        _ = try client.call("events.subscribe")
        try "<plist><dict><key>CFBundleIdentifier</key>".write(
            toFile: fixture.directory.file("extensions/Later.appex/Info.plist"), atomically: true, encoding: .utf8)
        let warned = try #require(try client.event("extension.failed"))
        #expect(warned["diagnostic"]?["code"] == .string("registry.kept-last-good"))
        let after = try deliverAndOpen(client, "after")
        #expect(after["presentation"]?["extension"] == .string("com.example.news.later"), "\(after)")
        #expect(["loading", "updated"].contains(text(of: "status", in: after["presentation"]?["view"])),
                "\(after) \(fixture.serveLog)")
        let codes = (after["diagnostics"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
        #expect(!codes.contains("bundle.manifest-missing"), "\(after)")
    }
}
