import Glibc
import TidingsBase

/// Where output goes, and whether it may be styled.
///
/// Colour and bold are used only when the stream is a terminal and `NO_COLOR`
/// is not set (https://no-color.org).
struct Terminal {
    let styled: Bool

    init(descriptor: Int32, environment: [String: String]) {
        styled = isatty(descriptor) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }

    /// The diagnostic in one line, its severity coloured.
    func line(for diagnostic: Diagnostic) -> String {
        let severity: String =
            switch diagnostic.severity {
            case .error: red("error")
            case .warning: yellow("warning")
            case .note: dim("note")
            }
        let place = diagnostic.location.description
        return (place.isEmpty ? "" : "\(place): ") + "\(severity): \(diagnostic.message) " + dim("[\(diagnostic.code)]")
    }

    private func wrap(_ text: String, _ code: String) -> String {
        styled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
