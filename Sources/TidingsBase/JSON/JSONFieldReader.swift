/// Reads typed members out of JSON documents written by people (payloads,
/// category files, interface files), collecting a diagnostic for each
/// problem instead of stopping at the first.
///
/// Paths are lists of member names and array positions; diagnostics carry
/// them as JSON pointers. A reader's path is made only when it reports
/// something (`@autoclosure`): a value read as expected costs no array.
package struct JSONFieldReader {
    /// The file being read, for diagnostics.
    package let file: String?
    /// The code of a member with the wrong type or value.
    package let invalidCode: Diagnostic.Code
    /// The code of a member the format does not define.
    package let unknownMemberCode: Diagnostic.Code
    /// What was found so far.
    package var diagnostics: [Diagnostic] = []

    package init(file: String?, invalidCode: Diagnostic.Code, unknownMemberCode: Diagnostic.Code) {
        self.file = file
        self.invalidCode = invalidCode
        self.unknownMemberCode = unknownMemberCode
    }

    /// True when an error has been reported.
    package var failed: Bool { diagnostics.containsError }

    /// The value as a string; nil (with an error) for another type, nil for no value.
    package mutating func string(_ value: JSON?, at path: @autoclosure () -> [String]) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else { return wrongType(value, "a string", at: path()) }
        return text
    }

    /// The value as a Boolean.
    package mutating func bool(_ value: JSON?, at path: @autoclosure () -> [String]) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else { return wrongType(value, "true or false", at: path()) }
        return flag
    }

    /// The value as a finite number, optionally within `range`.
    package mutating func number(_ value: JSON?, at path: @autoclosure () -> [String], in range: ClosedRange<Double>? = nil) -> Double? {
        guard let value else { return nil }
        guard let number = value.doubleValue, number.isFinite else { return wrongType(value, "a number", at: path()) }
        if let range, !range.contains(number) {
            let place = path()
            report(.error, invalidCode,
                   "\(name(place)) must be between \(range.lowerBound) and \(range.upperBound); it is \(number).", at: place)
            return nil
        }
        return number
    }

    /// The value as a date in seconds since 1970 (a number), within
    /// `CheckedNumbers.dates`: one outside is `number.out-of-range`.
    package mutating func date(_ value: JSON?, at path: @autoclosure () -> [String]) -> Double? {
        guard let seconds = number(value, at: path()) else { return nil }
        guard CheckedNumbers.dates.contains(seconds) else {
            let place = path()
            report(.error, .numberOutOfRange,
                   "\(name(place)) must be a date from the year 1 to 9999, in seconds since 1970; it is \(seconds).", at: place)
            return nil
        }
        return seconds
    }

    /// The value as an exact integer; a whole number no `Int64` holds (1e300)
    /// is `number.out-of-range`.
    package mutating func integer(_ value: JSON?, at path: @autoclosure () -> [String]) -> Int64? {
        guard let value else { return nil }
        guard let integer = value.integerValue else {
            if let number = value.doubleValue, number.rounded() == number {
                let place = path()
                report(.error, .numberOutOfRange,
                       "\(name(place)) must be an integer from -9223372036854775808 to 9223372036854775807; it is \(number).", at: place)
                return nil
            }
            return wrongType(value, "an integer", at: path())
        }
        return integer
    }

    /// The value's members, when it is an object.
    package mutating func object(_ value: JSON?, at path: @autoclosure () -> [String]) -> [(String, JSON)]? {
        guard let value else { return nil }
        guard let members = value.objectMembers else { return wrongType(value, "an object", at: path()) }
        return members
    }

    /// The value's elements, when it is an array.
    package mutating func array(_ value: JSON?, at path: @autoclosure () -> [String]) -> [JSON]? {
        guard let value else { return nil }
        guard let elements = value.arrayValue else { return wrongType(value, "an array", at: path()) }
        return elements
    }

    /// The value as one of a fixed set of names.
    package mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: JSON?, at path: @autoclosure () -> [String]
    ) -> Choice? where Choice.RawValue == String {
        guard let value else { return nil }
        if let text = value.stringValue, let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let place = path()
        report(.error, invalidCode, "\(name(place)) must be one of \(names); it is \(value.serialized()).", at: place)
        return nil
    }

    /// Warns about members not in `allowed`, suggesting the nearest allowed name.
    package mutating func checkMembers(_ members: [(String, JSON)], allowed: [String], at path: @autoclosure () -> [String]) {
        for (key, _) in members where !allowed.contains(key) {
            let hint = Suggestion.closest(to: key, among: allowed).map { "; did you mean \"\($0)\"?" } ?? "."
            report(.warning, unknownMemberCode, "\"\(key)\" is not a member this format defines and is ignored\(hint)",
                   at: path() + [key])
        }
    }

    /// Adds a diagnostic at `path`.
    package mutating func report(_ severity: Diagnostic.Severity, _ code: Diagnostic.Code, _ message: String,
                                 at path: [String]) {
        diagnostics.append(Diagnostic(severity, code, message, at: .init(file: file, path: JSON.pointer(path))))
    }

    /// "title" for a path ending in title; "The document" for the root.
    package func name(_ path: [String]) -> String {
        path.last.map { "\"\($0)\"" } ?? "The document"
    }

    private mutating func wrongType<T>(_ value: JSON, _ expected: String, at path: [String]) -> T? {
        report(.error, invalidCode, "\(name(path)) must be \(expected); it is \(value.typeDescription).", at: path)
        return nil
    }
}
