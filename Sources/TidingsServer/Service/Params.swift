import TidingsBase

/// A call's parameters, read by name. Every problem — a missing or
/// mistyped parameter, one the method does not take, an empty identifier —
/// is collected, and `check()` throws them together as one invalid-params error.
///
/// The names a call may give, and which of them it must, are those of the
/// method's entry in the protocol reference (`ProtocolMethod`): reading a
/// name the entry does not list is a mistake of the server's own.
struct Params {
    /// The parameters that name something — a notification, an app — and so
    /// may not be empty (nor, for the arrays, hold an empty string).
    private static let naming: Set = ["identifier", "app", "identifiers", "apps"]

    /// The parameters as an object (empty when the call gave none).
    let json: JSON
    /// The method's entry, which says the parameters it takes.
    private let method: ProtocolMethod
    private var fields = JSONFieldReader(file: nil, invalidCode: .rpcInvalidParams, unknownMemberCode: .rpcInvalidParams)

    /// The parameters of a call to `method`, which takes those its entry lists.
    init(_ params: JSON?, of method: ProtocolMethod) throws(RPCError) {
        json = params ?? .object([])
        self.method = method
        guard let members = json.objectMembers else {
            throw .invalidParams("\(method.name) takes its parameters by name, in an object.")
        }
        for (name, _) in members where !method.parameters.contains(where: { $0.name == name }) {
            let allowed = method.parameters.map(\.name)
            let hint = Suggestion.closest(to: name, among: allowed).map { "; did you mean \"\($0)\"?" }
                ?? (allowed.isEmpty ? "; it takes none." : "; it takes \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")).")
            fields.report(.error, .rpcInvalidParams, "\(method.name) takes no parameter \"\(name)\"\(hint)", at: [name])
        }
    }

    /// The string `name`; nil when absent (an error when the entry requires it).
    mutating func string(_ name: String) -> String? {
        present(name).flatMap { fields.string($0, at: [name]) }.flatMap { naming($0, at: [name]) }
    }

    /// The number `name`, within `range` when given.
    mutating func number(_ name: String, in range: ClosedRange<Double>? = nil) -> Double? {
        present(name).flatMap { fields.number($0, at: [name], in: range) }
    }

    /// The whole number `name`, within `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) -> Int? {
        present(name).flatMap { whole($0, in: range, at: [name]) }
    }

    /// The array of whole numbers `name`, each within `range`.
    mutating func integers(_ name: String, in range: ClosedRange<Int>) -> [Int]? {
        guard let elements = present(name).flatMap({ fields.array($0, at: [name]) }) else { return nil }
        return elements.enumerated().compactMap { position, element in whole(element, in: range, at: [name, "\(position)"]) }
    }

    /// `value` as a whole number within `range`, reported at `path` when it is not one.
    private mutating func whole(_ value: JSON, in range: ClosedRange<Int>, at path: [String]) -> Int? {
        guard let number = fields.integer(value, at: path) else { return nil }
        guard let whole = Int(exactly: number), range.contains(whole) else {
            fields.report(.error, .rpcInvalidParams,
                          "\"\(path.joined(separator: "."))\" must be between \(range.lowerBound) and \(range.upperBound); it is \(number).",
                          at: path)
            return nil
        }
        return whole
    }

    /// The string `name`, one of `Choice`'s names.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ name: String) -> Choice? where Choice.RawValue == String {
        present(name).flatMap { fields.choice($0, at: [name]) }
    }

    /// The Boolean `name`.
    mutating func bool(_ name: String) -> Bool? {
        present(name).flatMap { fields.bool($0, at: [name]) }
    }

    /// The object `name` as JSON.
    mutating func object(_ name: String) -> JSON? {
        present(name).flatMap { value in fields.object(value, at: [name]).map(JSON.object) }
    }

    /// The array of objects `name`.
    mutating func objects(_ name: String) -> [JSON]? {
        guard let elements = present(name).flatMap({ fields.array($0, at: [name]) }) else { return nil }
        return elements.enumerated().compactMap { position, element in
            fields.object(element, at: [name, "\(position)"]).map(JSON.object)
        }
    }

    /// The array of strings `name`.
    mutating func strings(_ name: String) -> [String]? {
        guard let elements = present(name).flatMap({ fields.array($0, at: [name]) }) else { return nil }
        if elements.isEmpty, Self.naming.contains(name) {
            fields.report(.error, .rpcInvalidParams, "\"\(name)\" may not be an empty list.", at: [name])
            return nil
        }
        var strings: [String] = []
        for (position, element) in elements.enumerated() {
            if let text = fields.string(element, at: [name, "\(position)"]).flatMap({ naming($0, at: [name, "\(position)"]) }) {
                strings.append(text)
            }
        }
        return strings
    }

    /// Throws what was wrong, if anything.
    func check() throws(RPCError) {
        guard fields.failed else { return }
        let errors = fields.diagnostics.filter { $0.severity == .error }
        throw .invalidParams(errors.first?.message ?? "The parameters are invalid.",
                             data: .object([("diagnostics", .array(errors.map(\.json)))]))
    }

    /// `text`, unless it is empty where `path` names something: then reported, and nil.
    private mutating func naming(_ text: String, at path: [String]) -> String? {
        guard text.isEmpty, let name = path.first, Self.naming.contains(name) else { return text }
        fields.report(.error, .rpcInvalidParams,
                      "\(path.count > 1 ? "\"\(name)\" may not hold an empty string" : "\"\(name)\" may not be empty").",
                      at: path)
        return nil
    }

    /// The value of `name`, reporting its absence when the entry requires it.
    private mutating func present(_ name: String) -> JSON? {
        // Its place, not a copy of its entry: only whether it is required is read.
        guard let parameter = method.parameters.firstIndex(where: { $0.name == name }) else {
            preconditionFailure("\(method.name) reads \"\(name)\", a parameter its entry does not list")
        }
        let value = json[name]
        if value == nil && method.parameters[parameter].required {
            fields.report(.error, .rpcInvalidParams, "The parameter \"\(name)\" is required.", at: [name])
        }
        if case .null? = value { return nil }
        return value
    }
}

extension Diagnostic.Code {
    /// A call's parameters are missing, mistyped or unknown.
    static let rpcInvalidParams = Self("rpc.invalid-params")
}
