/// A problem found in something a user or an extension produced: a manifest,
/// a payload, a library, an extension's behaviour.
///
/// Every diagnostic has a stable `code`, says where it was (a file and a key
/// path or JSON pointer, sometimes a line and column) and carries one plain
/// sentence. Diagnostics are also the errors the layers throw, so that what
/// the command line prints and what a program receives are the same value.
package struct Diagnostic: Error, Hashable, Sendable {
    /// How serious a diagnostic is.
    package enum Severity: String, Sendable, Comparable {
        /// Something is wrong and the thing it concerns was not used.
        case error
        /// Something looks wrong but was used anyway.
        case warning
        /// Information that explains a decision.
        case note

        package static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .error: 2
            case .warning: 1
            case .note: 0
            }
        }
    }

    /// A stable, dotted identifier of a kind of problem, such as
    /// `manifest.category-missing`. Codes are never renamed or reused.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }
    }

    /// Where a diagnostic was found.
    package struct Location: Hashable, Sendable, CustomStringConvertible {
        /// The file, when there is one.
        package var file: String?
        /// A dotted key path (`NSExtension.NSExtensionAttributes`) or a JSON
        /// pointer (`/aps/alert`).
        package var path: String?
        /// The 1-based line and column, when the problem is in the text itself.
        package var line: Int?
        package var column: Int?

        package init(file: String? = nil, path: String? = nil, line: Int? = nil, column: Int? = nil) {
            self.file = file
            self.path = path
            self.line = line
            self.column = column
        }

        /// `file:line:column: path`, leaving out what is unknown.
        package var description: String {
            var parts = file.map { [$0] } ?? []
            if let line {
                parts.append("\(line)")
                if let column { parts.append("\(column)") }
            }
            var text = parts.joined(separator: ":")
            if let path, !path.isEmpty {
                text += text.isEmpty ? path : " \(path)"
            }
            return text
        }
    }

    package var severity: Severity
    package var code: Code
    package var location: Location
    /// One plain sentence.
    package var message: String

    package init(_ severity: Severity, _ code: Code, _ message: String, at location: Location = Location()) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
    }

    /// An error diagnostic.
    package static func error(_ code: Code, _ message: String, at location: Location = Location()) -> Diagnostic {
        Diagnostic(.error, code, message, at: location)
    }

    /// A warning diagnostic.
    package static func warning(_ code: Code, _ message: String, at location: Location = Location()) -> Diagnostic {
        Diagnostic(.warning, code, message, at: location)
    }

    /// A note diagnostic.
    package static func note(_ code: Code, _ message: String, at location: Location = Location()) -> Diagnostic {
        Diagnostic(.note, code, message, at: location)
    }

    /// The same diagnostic placed in `file` when it has no file yet.
    package func inFile(_ file: String) -> Diagnostic {
        var copy = self
        if copy.location.file == nil { copy.location.file = file }
        return copy
    }
}

extension Diagnostic: CustomStringConvertible {
    /// `location: severity: message [code]`, the form compilers use.
    package var description: String {
        let place = location.description
        return (place.isEmpty ? "" : "\(place): ") + "\(severity.rawValue): \(message) [\(code)]"
    }
}

extension Diagnostic {
    /// The diagnostic as a JSON object, for `--json` output and the RPC server.
    package var json: JSON {
        var object: [(String, JSON)] = [
            ("severity", .string(severity.rawValue)),
            ("code", .string(code.rawValue)),
            ("message", .string(message)),
        ]
        if let file = location.file { object.append(("file", .string(file))) }
        if let path = location.path { object.append(("path", .string(path))) }
        if let line = location.line { object.append(("line", .integer(Int64(line)))) }
        if let column = location.column { object.append(("column", .integer(Int64(column)))) }
        return .object(object)
    }
}

extension Sequence<Diagnostic> {
    /// True when any diagnostic is an error.
    package var containsError: Bool { contains { $0.severity == .error } }
}
