/// A diagnostic reduced to what tests compare exactly: its severity, its
/// stable code and where it was (key path or JSON pointer).
///
/// TestSupport does not import the modules under test; each test target
/// turns its `Diagnostic`s into findings with a one-line initialiser.
public struct Finding: Equatable, Sendable, CustomStringConvertible {
    public var severity: String
    public var code: String
    public var path: String?

    public init(severity: String, code: String, path: String?) {
        self.severity = severity
        self.code = code
        self.path = path
    }

    public static func error(_ code: String, at path: String?) -> Finding {
        Finding(severity: "error", code: code, path: path)
    }

    public static func warning(_ code: String, at path: String?) -> Finding {
        Finding(severity: "warning", code: code, path: path)
    }

    public static func note(_ code: String, at path: String?) -> Finding {
        Finding(severity: "note", code: code, path: path)
    }

    public var description: String {
        "\(severity) \(code) at \(path.map { "\"\($0)\"" } ?? "nil")"
    }
}
