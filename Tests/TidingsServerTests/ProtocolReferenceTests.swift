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
        #expect(try answer("server.protocol", nil).get() == ProtocolReference.openRPC)
    }

    /// Every parameter, result and event member has a type, and every named
    /// schema one refers to is in `components/schemas`: nothing is left prose.
    @Test func everyTypeIsASchemaAndEveryNameResolves() throws {
        let names = Set(ProtocolComponent.all.map(\.name))
        #expect(names.count == ProtocolComponent.all.count, "a schema is named twice")
        var referred: Set<String> = []
        func walk(_ schema: ProtocolSchema, _ place: String) {
            switch schema.kind {
            case .reference(let name): referred.insert(name)
            case .array(let element, _): walk(element, place)
            case .map(let element): if element.kind != .any { walk(element, place) }
            case .object(let members, _): for member in members { walk(member.schema, "\(place).\(member.name)") }
            case .either(let schemas): for schema in schemas { walk(schema, place) }
            case .any: Issue.record("\(place) is of any type")
            default: break
            }
        }
        for method in HostService.protocolMethods + HostService.serverRequests {
            for parameter in method.parameters { walk(parameter.schema, "\(method.name) \(parameter.name)") }
            #expect(method.returns.kind != .any && method.returns != .anyObject, "\(method.name)'s result is untyped")
            walk(method.returns, "\(method.name) result")
            #expect(method.oneOf.allSatisfy { name in method.parameter(name)?.required == false }, "\(method.name)")
        }
        for event in HostService.events {
            for field in event.fields { walk(field.schema, "\(event.name) \(field.name)") }
        }
        for component in ProtocolComponent.all { walk(component.schema, component.name) }
        #expect(referred.subtracting(names).isEmpty, "no schema named \(referred.subtracting(names).sorted())")
        #expect(names.subtracting(referred).isEmpty, "no one refers to \(names.subtracting(referred).sorted())")
        let document = ProtocolReference.openRPC
        #expect(document["components"]?["schemas"]?.objectMembers?.map(\.0) == ProtocolComponent.all.map(\.name))
        #expect(document["methods"]?.arrayValue?.count == HostService.protocolMethods.count)
    }

    /// The words protocol.md gives a type and the JSON Schema of the OpenRPC
    /// document are made from one value: an enum's cases, a range's bounds
    /// and a named schema show in both.
    @Test func theReferenceAndTheDocumentSayTheSameTypes() throws {
        let markdown = ProtocolReference.markdown
        let methods = ProtocolReference.openRPC["methods"]?.arrayValue ?? []
        for (entry, method) in zip(HostService.protocolMethods, methods) {
            #expect(method["name"]?.stringValue == entry.name)
            let params = method["params"]?.arrayValue ?? []
            for (parameter, described) in zip(entry.parameters, params) {
                #expect(described["schema"] == parameter.schema.jsonSchema, "\(entry.name).\(parameter.name)")
                let row = "| `\(parameter.name)` | \(parameter.type.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")) |"
                #expect(markdown.contains(row), "protocol.md lacks \(row)")
            }
        }
        let showPreviews = try #require(HostService.methods["apps.register"]?.documentation.parameter("showPreviews"))
        #expect(showPreviews.schema.jsonSchema["enum"] == .array([.string("always"), .string("never")]))
        #expect(showPreviews.type == "`\"always\"` | `\"never\"`")
        let limit = try #require(HostService.methods["notifications.list"]?.documentation.parameter("limit"))
        #expect(limit.schema.jsonSchema["minimum"] == .integer(1) && limit.schema.jsonSchema["maximum"] == .integer(1000))
        #expect(limit.type == "integer, 1 – 1,000")
        let take = try #require(methods.first { $0["name"]?.stringValue == "inbox.take" })
        #expect(take["x-params-schema"]?["oneOf"] == .array([.object([("required", .array([.string("ids")]))]),
                                                              .object([("required", .array([.string("upTo")]))])]))
    }

    /// A parameter of the wrong JSON type, for every parameter of every
    /// method, is refused with -32602 and a diagnostic at the parameter —
    /// never -32000 (as `categories.register` once answered for `categories`).
    @Test func aWrongTypeIsRefusedAsInvalidParamsNamingTheParameter() throws {
        for entry in HostService.protocolMethods {
            for parameter in entry.parameters {
                guard let wrong = Self.wrongType(for: parameter.schema) else { continue }
                guard case .failure(let error) = answer(entry.name, .object([(parameter.name, wrong)])) else {
                    Issue.record("\(entry.name) took \(parameter.name) = \(wrong.serialized())")
                    continue
                }
                #expect(error.code == -32602, "\(entry.name).\(parameter.name) = \(wrong.serialized()): \(error.code) \(error.message)")
                let paths = error.data?["diagnostics"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
                #expect(paths.contains { $0 == "/\(parameter.name)" || $0.hasPrefix("/\(parameter.name)/") },
                        "\(entry.name).\(parameter.name): the refusal names \(paths)")
            }
        }
        guard case .failure(let error) = answer("categories.register", .object([
            ("app", .string("com.example.news")), ("categories", .array([.string("story")])),
        ])) else {
            Issue.record("categories.register took a category that is a string")
            return
        }
        #expect(error.code == -32602)
        #expect(error.data?["diagnostics"]?.arrayValue?.first?["path"]?.stringValue == "/categories/0")
    }

    /// A value of another JSON type than `schema` allows; nil when it allows any.
    static func wrongType(for schema: ProtocolSchema) -> JSON? {
        switch schema.kind {
        case .string, .name, .choice: .integer(12345)
        case .either(let schemas):
            schemas.contains { if case .array = $0.kind { true } else { false } } ? .bool(true) : .array([])
        case .any: nil
        default: .string("text")
        }
    }

    @Test func theCommittedReferenceIsWhatTheTableMakes() throws {
        for (path, format) in ProtocolReference.files {
            let committed = try? String(contentsOfFile: Locations.repositoryFile(path), encoding: .utf8)
            #expect(committed == ProtocolReference.text(format),
                    "\(path) differs from what the method table makes now; run: \(ProtocolReference.regenerate)")
        }
    }
}
