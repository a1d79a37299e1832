import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
@testable import TidingsServer

/// The slips issue 25 found in the protocol, mended: parameter types and
/// empty lists refused as invalid parameters; and the lag notice a
/// connection gets before it is cut off.
@Suite struct ProtocolSlipTests {
    let directory = TemporaryDirectory("protocol-slips")
    let service: HostService

    init() {
        var configuration = HostService.Configuration()
        configuration.host.attachmentDirectory = directory.file("attachments")
        service = HostService(index: ExtensionIndex(searchPath: SearchPath(directories: [], origin: .option), bundles: []),
                              configuration: configuration)
    }

    /// The error code `method` with `params` (JSON text) is answered with; nil when it succeeds.
    func code(_ method: String, _ params: String) throws -> Int? {
        let request = RPCRequest(id: .number(1), method: method, params: try JSON.parse(Array(params.utf8)))
        guard case .failure(let error) = service.answer(request, from: EventRecorder()) else { return nil }
        return error.code
    }

    @Test func appsRegisterRefusesWrongTypesAsInvalidParameters() throws {
        for params in [#"{"app": "com.example", "name": 5}"#, #"{"app": "com.example", "icon": true}"#,
                       #"{"app": "com.example", "showPreviews": 1}"#, #"{"app": 7}"#] {
            #expect(try code("apps.register", params) == -32602, "\(params)")
        }
        #expect(try code("apps.register", #"{"app": "com.example", "name": "Example"}"#) == nil)
    }

    @Test func emptyListsOfIdentifiersOrAppsAreInvalidParameters() throws {
        #expect(try code("notifications.remove", #"{"identifiers": []}"#) == -32602)
        #expect(try code("requests.remove", #"{"app": "com.example", "identifiers": []}"#) == -32602)
        #expect(try code("events.subscribe", #"{"apps": []}"#) == -32602)
        #expect(try code("events.subscribe", #"{"apps": ["com.example"]}"#) == nil)
    }

    /// Over RPC the server has no directory of the client's to take a relative
    /// attachment path from: refused as Apple's invalid URL; a `url` that is no `file://` URL, as an invalid payload.
    @Test func aRelativeAttachmentPathIsRefused() throws {
        for (attachment, expected) in [(#"{"identifier": "i", "path": "picture.png"}"#, -32004),
                                       (#"{"identifier": "i", "url": "picture.png"}"#, -32000)] {
            let payload = #"{"identifier": "a", "content": {"title": "T", "attachments": [\#(attachment)]}}"#
            #expect(try code("notifications.deliver", #"{"app": "com.example", "payload": \#(payload)}"#) == expected, "\(attachment)")
        }
    }

    /// A connection that lets more than half its bound wait is told so
    /// (`events.lagging`), once, behind what waits and before it is cut off.
    @Test func aConnectionFallingBehindIsToldBeforeItIsCutOff() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var small: Int32 = 4096
        setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(ends[1], SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let bound = 16_384
        let output = ConnectionOutput(descriptor: ends[0], isSocket: true, bound: bound)
        let line = RPCReply.notification("app.badge-changed", params: .object([("pad", .string(String(repeating: "x", count: 500)))]))

        // Pushed until the client, which reads nothing, is cut off.
        var pushed = 0
        pushing: while pushed < 10_000 {
            switch output.push(line) {
            case .accepted, .acceptedWaiting: pushed += 1
            case .refused(let overflow):
                #expect(overflow, "cut off for output left unread")
                break pushing
            }
        }
        #expect(pushed < 10_000, "the client was never cut off")

        // Again, with a client that reads once the notice is queued: it finds it, after what came before.
        var again: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &again) == 0)
        defer { close(again[0]); close(again[1]) }
        setsockopt(again[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let slow = ConnectionOutput(descriptor: again[0], isSocket: true, bound: bound)
        // Once a line waits, each one more adds its length to what waits: past half the bound, well short of it.
        var queued = 0
        var waiting: Int?
        while waiting.map({ $0 * line.count <= bound / 2 + line.count }) ?? true {
            switch slow.push(line) {
            case .accepted: waiting = waiting.map { $0 + 1 }
            case .acceptedWaiting: waiting = 0
            case .refused:
                Issue.record("cut off before half the bound")
                return
            }
            queued += 1
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let more = slow.flush()
            let count = chunk.withUnsafeMutableBytes { recv(again[1], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { received += chunk[..<count] }
            if !more && count <= 0 { break }
        }
        let lines = received.split(separator: UInt8(ascii: "\n")).map { try? JSON.parse(Array($0)) }
        let notices = lines.filter { $0?["method"] == .string("events.lagging") }
        #expect(notices.count == 1, "told once")
        #expect(notices.first??["params"]?["limit"] == .integer(Int64(bound)))
        #expect(lines.count == queued + 1, "every line pushed arrived, and the notice")
    }
}
