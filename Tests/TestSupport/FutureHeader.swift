import Foundation

/// A header from the future: the current tidings.h with one more field
/// appended to every struct that begins with `struct_size`, and the ABI
/// version one higher, as a later version that only appends would be. An
/// extension built against it must work unchanged with this host.
public enum FutureHeader {
    /// The field appended to every sized struct.
    public static let field = "uint64_t future_padding;"

    /// Writes the future header as `directory`/tidings.h and returns `directory`.
    @discardableResult
    public static func write(into directory: String) throws -> String {
        let current = try String(contentsOfFile: Locations.headerDirectory + "/tidings.h", encoding: .utf8)
        try transform(current).write(toFile: directory + "/tidings.h", atomically: true, encoding: .utf8)
        return directory
    }

    /// `header` with `field` before the closing `}` of each struct whose
    /// first field is `uint32_t struct_size;`, and TIDINGS_ABI_VERSION plus one.
    public static func transform(_ header: String) -> String {
        var lines: [String] = []
        var opened = false
        var sized = false
        for line in header.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.range(of: #"^(typedef )?struct \w+ \{$"#, options: .regularExpression) != nil {
                (opened, sized) = (true, false)
            } else if opened && !trimmed.isEmpty && !trimmed.hasPrefix("/*") && !trimmed.hasPrefix("*") {
                (opened, sized) = (false, trimmed == "uint32_t struct_size;")
            }
            if sized && line.range(of: #"^\}( \w+)?;$"#, options: .regularExpression) != nil {
                lines.append("    " + field)
                sized = false
            }
            lines.append(line)
        }
        let version = version(of: header)
        return lines.joined(separator: "\n").replacingOccurrences(
            of: "#define TIDINGS_ABI_VERSION \(version)u", with: "#define TIDINGS_ABI_VERSION \(version + 1)u")
    }

    /// The version `header` defines.
    private static func version(of header: String) -> Int {
        guard let range = header.range(of: #"#define TIDINGS_ABI_VERSION \d+u"#, options: .regularExpression) else { return 0 }
        return Int(header[range].dropFirst("#define TIDINGS_ABI_VERSION ".count).dropLast()) ?? 0
    }
}
