import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol

/// The client's names against the protocol's own description: every method
/// and event the committed OpenRPC document (made from the server's method
/// table) lists is a constant of the client module, and no constant names
/// what the server does not serve.
@Suite struct NamesTests {
    static func document() throws -> JSON {
        let text = try String(contentsOfFile: Locations.repositoryFile("Docs/reference/openrpc.json"), encoding: .utf8)
        return try JSON.parse(Array(text.utf8))
    }

    static func names(_ key: String, in document: JSON) -> Set<String> {
        Set((document[key]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
    }

    @Test func theMethodsAreTheDocumentsMethodsAndServerRequests() throws {
        let document = try Self.document()
        let described = Self.names("methods", in: document).union(Self.names("x-server-requests", in: document))
        #expect(described.count > 30)
        #expect(Set(MethodName.all.map(\.rawValue)) == described)
    }

    @Test func theEventsAreTheDocumentsEvents() throws {
        let document = try Self.document()
        let described = Self.names("x-events", in: document)
        #expect(described.count > 15)
        #expect(Set(EventName.all.map(\.rawValue)) == described)
    }

    @Test func everyConstantIsInItsList() throws {
        let source = try String(contentsOfFile: Locations.repositoryFile("Sources/TidingsProtocol/Names.swift"), encoding: .utf8)
        let written = source.matches(of: /static let \w+ = Self\("([^"]+)"\)/).map { String($0.1) }
        #expect(written.count == MethodName.all.count + EventName.all.count)
        #expect(Set(written) == Set(MethodName.all.map(\.rawValue) + EventName.all.map(\.rawValue)))
    }
}
