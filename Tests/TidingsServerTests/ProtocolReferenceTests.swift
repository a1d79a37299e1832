import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
@testable import TidingsServer

/// The protocol reference: every method the server dispatches has a whole
/// entry, the entries say what the server takes, and the committed
/// reference is what the table makes now.
@Suite struct ProtocolReferenceTests {
    /// A receiver that hears nothing, for calls that push nothing.
    final class Deaf: EventReceiver {
        func push(_ line: [UInt8]) -> Bool { true }
    }

    let service = HostService(index: ExtensionIndex(searchPath: SearchPath(directories: [], origin: .option), bundles: []))

    /// The answer to `method` with `params`.
    func answer(_ method: String, _ params: JSON?) -> Result<JSON, RPCError> {
        service.answer(RPCRequest(id: .number(1), method: method, params: params), from: Deaf())
    }

    @Test func everyMethodTheServerDispatchesHasAWholeEntry() {
        let codes = Set(ProtocolErrorCode.all.map(\.code))
        #expect(HostService.methods.count == HostService.protocolMethods.count)
        for (name, method) in HostService.methods {
            let entry = method.documentation
            #expect(entry.name == name)
            #expect(!entry.summary.isEmpty && !entry.result.isEmpty, "\(name) lacks its summary or result")
            #expect(!entry.errors.isEmpty && entry.errors.allSatisfy(codes.contains), "\(name): errors \(entry.errors)")
            #expect(Set(entry.parameters.map(\.name)).count == entry.parameters.count, "\(name) names a parameter twice")
            for parameter in entry.parameters {
                #expect(!parameter.type.isEmpty && !parameter.meaning.isEmpty, "\(name).\(parameter.name) lacks its type or meaning")
            }
        }
        for event in HostService.events {
            #expect(!event.summary.isEmpty && !event.fields.isEmpty, "\(event.name) lacks its summary or params")
            #expect(event.fields.allSatisfy { !$0.type.isEmpty && !$0.meaning.isEmpty }, "\(event.name)")
        }
    }

    /// A call naming only a parameter no method takes is refused with every
    /// required parameter reported missing: the entry's names and required
    /// flags are those the server reads by.
    @Test func eachEntrySaysTheParametersItsMethodTakes() throws {
        for entry in HostService.protocolMethods {
            guard case .failure(let error) = answer(entry.name, .object([("zzzzzzzzzz", .bool(true))])) else {
                Issue.record("\(entry.name) took an unknown parameter")
                continue
            }
            #expect(error.code == -32602, "\(entry.name)")
            let messages = error.data?["diagnostics"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
            let takes = entry.parameters.isEmpty ? "it takes none."
                : "it takes \(entry.parameters.map { "\"\($0.name)\"" }.joined(separator: ", "))."
            #expect(messages.first == "\(entry.name) takes no parameter \"zzzzzzzzzz\"; \(takes)")
            let missing = Set(messages.compactMap { message in
                message.hasPrefix("The parameter \"") ? message.split(separator: "\"")[1] : nil
            }.map(String.init))
            #expect(missing == Set(entry.parameters.filter(\.required).map(\.name)), "\(entry.name)")
        }
    }

    @Test func theServerListsTheTablesMethodsAndEvents() throws {
        let described = try answer("server.describe", nil).get()
        #expect(described["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            == HostService.protocolMethods.map(\.name).sorted())
        #expect(described["events"]?.arrayValue?.compactMap { $0["method"]?.stringValue } == HostService.events.map(\.name))
        let subscribed = try answer("events.subscribe", nil).get()
        #expect(subscribed["events"]?.arrayValue?.compactMap(\.stringValue) == HostService.events.map(\.name))
        #expect(try answer("server.protocol", nil).get() == ProtocolReference.json)
    }

    @Test func theCommittedReferenceIsWhatTheTableMakes() throws {
        for (path, format) in ProtocolReference.files {
            let committed = try? String(contentsOfFile: Locations.repositoryFile(path), encoding: .utf8)
            #expect(committed == ProtocolReference.text(format),
                    "\(path) differs from what the method table makes now; run: \(ProtocolReference.regenerate)")
        }
    }
}
