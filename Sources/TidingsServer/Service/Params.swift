import TidingsBase

/// A call's parameters, read by name. Every problem — a missing or
/// mistyped parameter, one the method does not take, an empty identifier —
/// is collected, and `check()` throws them together as one invalid-params error.
struct Params {
    /// The parameters that name something — a notification, an app — and so
    /// may not be empty (nor, for the arrays, hold an empty string).
    private static let naming: Set = ["identifier", "app", "identifiers", "apps"]

    /// The parameters as an object (empty when the call gave none).
    let json: JSON
    private var fields = JSONFieldReader(file: nil, invalidCode: .rpcInvalidParams, unknownMemberCode: .rpcInvalidParams)

    /// The parameters of a call to `method`, which takes those named `allowed`.
    init(_ params: JSON?, of method: String, allowed: [String]) throws(RPCError) {
        json = params ?? .object([])
        guard let members = json.objectMembers else {
            throw .invalidParams("\(method) takes its parameters by name, in an object.")
        }
        for (name, _) in members where !allowed.contains(name) {
            let hint = Suggestion.closest(to: name, among: allowed).map { "; did you mean \"\($0)\"?" }
                ?? (allowed.isEmpty ? "; it takes none." : "; it takes \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")).")
            fields.report(.error, .rpcInvalidParams, "\(method) takes no parameter \"\(name)\"\(hint)", at: [name])
        }
    }

    /// The string `name`; nil when absent (an error when `required`).
    mutating func string(_ name: String, required: Bool = false) -> String? {
        present(name, required: required).flatMap { fields.string($0, at: [name]) }.flatMap { naming($0, at: [name]) }
    }

    /// The number `name`, within `range` when given.
    mutating func number(_ name: String, in range: ClosedRange<Double>? = nil) -> Double? {
        present(name, required: false).flatMap { fields.number($0, at: [name], in: range) }
    }

    /// The whole number `name`, within `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) -> Int? {
        present(name, required: false).flatMap { whole($0, in: range, at: [name]) }
    }

    /// The array of whole numbers `name`, each within `range`.
    mutating func integers(_ name: String, in range: ClosedRange<Int>) -> [Int]? {
        guard let elements = present(name, required: false).flatMap({ fields.array($0, at: [name]) }) else { return nil }
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

    /// The Boolean `name`.
    mutating func bool(_ name: String) -> Bool? {
        present(name, required: false).flatMap { fields.bool($0, at: [name]) }
    }

    /// The object `name` as JSON.
    mutating func object(_ name: String, required: Bool = false) -> JSON? {
        present(name, required: required).flatMap { value in fields.object(value, at: [name]).map(JSON.object) }
    }

    /// The array of strings `name`.
    mutating func strings(_ name: String, required: Bool = false) -> [String]? {
        guard let elements = present(name, required: required).flatMap({ fields.array($0, at: [name]) }) else { return nil }
        var strings: [String] = []
        for (position, element) in elements.enumerated() {
            if let text = fields.string(element, at: [name, "\(position)"]).flatMap({ naming($0, at: [name, "\(position)"]) }) {
                strings.append(text)
            }
        }
        return strings
    }

    /// Reports each of `names` that is absent, whatever its type should be.
    mutating func require(_ names: String...) {
        for name in names { _ = present(name, required: true) }
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

    /// The value of `name`, reporting its absence when it is required.
    private mutating func present(_ name: String, required: Bool) -> JSON? {
        let value = json[name]
        if value == nil && required {
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
