import TidingsBase

/// The JSON type of a parameter, a member or a result, as the protocol
/// reference states it: one value that makes both the JSON Schema of the
/// OpenRPC document (`jsonSchema`) and the words of protocol.md (`prose`),
/// so that the two cannot say different things.
package struct ProtocolSchema: Sendable, Equatable {
    /// What the value is.
    package indirect enum Kind: Sendable, Equatable {
        /// A string, in JSON Schema's `format` when it has one (`date-time`).
        case string(format: String?)
        /// A string that names something (an app, a notification): not empty.
        case name
        /// One of these strings.
        case choice([String])
        /// A whole number, within the bounds given.
        case integer(minimum: Int64?, maximum: Int64?)
        /// A number, within the bounds given; `aboveMinimum`: larger than the minimum, not equal.
        case number(minimum: Double?, maximum: Double?, aboveMinimum: Bool)
        /// `true` or `false`.
        case boolean
        /// `null`.
        case null
        /// An array of values of one type; `nonEmpty`: of one value at least.
        case array(ProtocolSchema, nonEmpty: Bool)
        /// An object with these members; `closed`: no other member is allowed.
        case object([ProtocolField], closed: Bool)
        /// An object of any members, each of one type.
        case map(ProtocolSchema)
        /// The named schema of `ProtocolComponent.all`.
        case reference(String)
        /// A value of any of these types.
        case either([ProtocolSchema])
        /// Any JSON value.
        case any
    }

    /// What the value is.
    package let kind: Kind

    /// A string.
    package static let string = ProtocolSchema(kind: .string(format: nil))
    /// A string that names something (an app, a notification): not empty.
    package static let name = ProtocolSchema(kind: .name)
    /// A list of one name or more.
    package static let names = ProtocolSchema(kind: .array(.name, nonEmpty: true))
    /// A date and time, ISO 8601 (`2026-11-21T09:30:00Z`).
    package static let date = ProtocolSchema(kind: .string(format: "date-time"))
    /// A whole number.
    package static let integer = ProtocolSchema(kind: .integer(minimum: nil, maximum: nil))
    /// A number.
    package static let number = ProtocolSchema(kind: .number(minimum: nil, maximum: nil, aboveMinimum: false))
    /// `true` or `false`.
    package static let boolean = ProtocolSchema(kind: .boolean)
    /// `null`.
    package static let null = ProtocolSchema(kind: .null)
    /// Any JSON value.
    package static let any = ProtocolSchema(kind: .any)
    /// An array of strings.
    package static let strings = array(.string)
    /// Diagnostics: what went wrong, or was noted.
    package static let diagnostics = array(named("Diagnostic"))
    /// An object of any members.
    package static let anyObject = ProtocolSchema(kind: .map(.any))

    /// One of `names`.
    package static func choice(_ names: String...) -> ProtocolSchema { ProtocolSchema(kind: .choice(names)) }
    /// One of `names`.
    package static func choice(_ names: [String]) -> ProtocolSchema { ProtocolSchema(kind: .choice(names)) }
    /// A whole number within `range`.
    package static func integer(_ range: ClosedRange<Int64>) -> ProtocolSchema {
        ProtocolSchema(kind: .integer(minimum: range.lowerBound, maximum: range.upperBound))
    }
    /// A whole number of at least `minimum`.
    package static func integer(atLeast minimum: Int64) -> ProtocolSchema {
        ProtocolSchema(kind: .integer(minimum: minimum, maximum: nil))
    }
    /// A number within `range`.
    package static func number(_ range: ClosedRange<Double>) -> ProtocolSchema {
        ProtocolSchema(kind: .number(minimum: range.lowerBound, maximum: range.upperBound, aboveMinimum: false))
    }
    /// A number of at least `minimum`.
    package static func number(atLeast minimum: Double) -> ProtocolSchema {
        ProtocolSchema(kind: .number(minimum: minimum, maximum: nil, aboveMinimum: false))
    }
    /// A number larger than `minimum`.
    package static func number(above minimum: Double) -> ProtocolSchema {
        ProtocolSchema(kind: .number(minimum: minimum, maximum: nil, aboveMinimum: true))
    }
    /// An array of `element`s.
    package static func array(_ element: ProtocolSchema) -> ProtocolSchema {
        ProtocolSchema(kind: .array(element, nonEmpty: false))
    }
    /// An object with `members`, and others a later version may add.
    package static func object(_ members: [ProtocolField]) -> ProtocolSchema { ProtocolSchema(kind: .object(members, closed: false)) }
    /// An object with `members` and no other.
    package static func closedObject(_ members: [ProtocolField]) -> ProtocolSchema {
        ProtocolSchema(kind: .object(members, closed: true))
    }
    /// An object of any members, each a `value`.
    package static func map(_ value: ProtocolSchema) -> ProtocolSchema { ProtocolSchema(kind: .map(value)) }
    /// The named schema `name` (`ProtocolComponent.all`).
    package static func named(_ name: String) -> ProtocolSchema { ProtocolSchema(kind: .reference(name)) }
    /// A value of any of `schemas`.
    package static func either(_ schemas: ProtocolSchema...) -> ProtocolSchema { ProtocolSchema(kind: .either(schemas)) }
    /// `schema`, or `null`.
    package static func nullable(_ schema: ProtocolSchema) -> ProtocolSchema { either(schema, .null) }

    /// Where the OpenRPC document keeps the named schemas.
    package static let componentsPointer = "#/components/schemas/"

    /// The value's JSON Schema (draft 7, as OpenRPC 1.x takes it); a
    /// named schema is a `$ref` into the document's `components/schemas`.
    package var jsonSchema: JSON {
        switch kind {
        case .string(let format):
            return .object([("type", .string("string"))] + (format.map { [("format", .string($0))] } ?? []))
        case .name:
            return .object([("type", .string("string")), ("minLength", .integer(1))])
        case .choice(let names):
            return .object([("type", .string("string")), ("enum", .array(names.map(JSON.string)))])
        case let .integer(minimum, maximum):
            return .object([("type", .string("integer"))] + (minimum.map { [("minimum", .integer($0))] } ?? [])
                + (maximum.map { [("maximum", .integer($0))] } ?? []))
        case let .number(minimum, maximum, above):
            return .object([("type", .string("number"))]
                + (minimum.map { [(above ? "exclusiveMinimum" : "minimum", Self.json($0))] } ?? [])
                + (maximum.map { [("maximum", Self.json($0))] } ?? []))
        case .boolean:
            return .object([("type", .string("boolean"))])
        case .null:
            return .object([("type", .string("null"))])
        case let .array(element, nonEmpty):
            return .object([("type", .string("array")), ("items", element.jsonSchema)]
                + (nonEmpty ? [("minItems", .integer(1))] : []))
        case let .object(members, closed):
            return Self.objectSchema(members, closed: closed)
        case .map(let value):
            return value.kind == .any ? .object([("type", .string("object"))])
                : .object([("type", .string("object")), ("additionalProperties", value.jsonSchema)])
        case .reference(let name):
            return .object([("$ref", .string(Self.componentsPointer + name))])
        case .either(let schemas):
            return .object([("anyOf", .array(schemas.map(\.jsonSchema)))])
        case .any:
            return .object([])
        }
    }

    /// The JSON Schema of an object with `members` (each with its meaning as
    /// `description`), those required listed; `closed`: no other member.
    package static func objectSchema(_ members: [ProtocolField], closed: Bool) -> JSON {
        var schema: [(String, JSON)] = [
            ("type", .string("object")),
            ("properties", .object(members.map { ($0.name, $0.describedSchema) })),
        ]
        let required = members.filter(\.required).map { JSON.string($0.name) }
        if !required.isEmpty { schema.append(("required", .array(required))) }
        if closed { schema.append(("additionalProperties", .bool(false))) }
        return .object(schema)
    }

    /// The value's type in words, as the reference's tables give it
    /// (`string`, `integer, 1 – 1,000`, `` `"copy"` | `"move"` ``, a link to a named schema, …).
    package var prose: String {
        switch kind {
        case .string(let format): format == "date-time" ? "string (ISO 8601 date)" : "string"
        case .name: "string (not empty)"
        case .choice(let names): names.map { "`\"\($0)\"`" }.joined(separator: " | ")
        case let .integer(minimum, maximum): "integer" + Self.bounds(minimum.map(Self.figure), maximum.map(Self.figure), above: false)
        case let .number(minimum, maximum, above):
            "number" + Self.bounds(minimum.map(Self.figure), maximum.map(Self.figure), above: above)
        case .boolean: "boolean"
        case .null: "null"
        case let .array(element, nonEmpty): (nonEmpty ? "array (not empty) of " : "array of ") + element.plural
        case let .object(members, _): members.isEmpty ? "object" : "object {\(members.map(\.name).joined(separator: ", "))}"
        case .map(let value): value.kind == .any ? "object" : "object of \(value.plural)"
        case .reference(let name): "[`\(name)`](#\(name.lowercased()))"
        case .either(let schemas): schemas.map(\.prose).joined(separator: " | ")
        case .any: "any"
        }
    }

    /// The prose of several such values, after "array of".
    private var plural: String {
        switch kind {
        case .string(format: nil): "strings"
        case .name: "strings (not empty)"
        case let .integer(minimum, maximum):
            "integers" + Self.bounds(minimum.map(Self.figure), maximum.map(Self.figure), above: false)
        case .number(nil, nil, _): "numbers"
        case .boolean: "booleans"
        case .object(let members, _) where members.isEmpty: "objects"
        case .map(let value) where value.kind == .any: "objects"
        case .reference: "\(prose) objects"
        default: "(\(prose))"
        }
    }

    /// The bounds of a number in words: ` 1 – 1,000`, ` ≥ 0`, ` > 0`, ` ≤ 90`.
    private static func bounds(_ minimum: String?, _ maximum: String?, above: Bool) -> String {
        switch (minimum, maximum) {
        case let (minimum?, maximum?): ", \(minimum) – \(maximum)"
        case let (minimum?, nil): above ? " > \(minimum)" : " ≥ \(minimum)"
        case let (nil, maximum?): " ≤ \(maximum)"
        case (nil, nil): ""
        }
    }

    /// `number` as the reference writes figures: thousands set apart by commas.
    private static func figure(_ number: Int64) -> String {
        let digits = String(number.magnitude)
        var grouped = ""
        for (position, digit) in digits.enumerated() {
            if position > 0 && (digits.count - position) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (number < 0 ? "-" : "") + grouped
    }

    /// `number` as the reference writes figures: a whole one as an integer.
    private static func figure(_ number: Double) -> String {
        if let whole = Int64(exactly: number) { return figure(whole) }
        return "\(number)"
    }

    /// `number` in JSON: a whole one as an integer.
    private static func json(_ number: Double) -> JSON {
        Int64(exactly: number).map(JSON.integer) ?? .double(number)
    }
}
