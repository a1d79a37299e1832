/// Loading a zone of the system's tz database by name.
extension TimeZoneRules {
    /// The largest zone file read; the largest of the tz database are a few kilobytes.
    static let largestZoneFile = 1 << 20

    /// The zone `name` ("Europe/Paris", "UTC") of the tz database in `directory`.
    ///
    /// The name must be a relative path of letters, digits, `_`, `-`, `+`
    /// and `.` between single slashes, with no `.` or `..` component
    /// (`time-zone.invalid-name`); the file must exist (`time-zone.unknown`)
    /// and be a regular TZif file (`time-zone.unreadable`).
    package init(named name: String, in directory: String = "/usr/share/zoneinfo") throws(Diagnostic) {
        try Self.checkName(name)
        let path = Path.join(directory, name)
        guard let status = FileSystem.status(of: path) else {
            throw .error(.timeZoneUnknown, "There is no time zone named \"\(name)\" in \(directory).", at: .init(file: path))
        }
        guard status.kind == .regular else {
            throw .error(.timeZoneUnreadable, "\"\(name)\" in \(directory) is not a time zone file but a \(status.kind == .directory ? "directory" : "special file").",
                         at: .init(file: path))
        }
        self = try Self.load(path, named: name)
    }

    /// The zone in the TZif file at `path`, named `name`.
    static func load(_ path: String, named name: String) throws(Diagnostic) -> TimeZoneRules {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: largestZoneFile)
        } catch {
            throw .error(.timeZoneUnreadable, "The time zone \"\(name)\" cannot be read: \(error.message)", at: .init(file: path))
        }
        guard TZifReader.isTZif(bytes) else {
            throw .error(.timeZoneUnreadable, "\(path) is not a time zone file (TZif).", at: .init(file: path))
        }
        do {
            return try reading(bytes, named: name)
        } catch {
            throw .error(.timeZoneUnreadable, "The time zone file \(path) is damaged: \(error.reason).", at: .init(file: path))
        }
    }

    /// Refuses a name that is empty, absolute, climbs out of the directory or has unexpected characters.
    private static func checkName(_ name: String) throws(Diagnostic) {
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "/_-+.".utf8.contains(byte)
        }
        guard !name.isEmpty, allowed, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw .error(.timeZoneInvalidName,
                         "\"\(name)\" is not a time zone name: a name is a relative path such as \"Europe/Paris\", without \"..\".")
        }
    }
}

extension Diagnostic.Code {
    /// A time zone name that is empty, absolute, climbs with `..` or has characters no zone name has.
    package static let timeZoneInvalidName = Self("time-zone.invalid-name")
    /// A time zone name the tz database does not have.
    package static let timeZoneUnknown = Self("time-zone.unknown")
    /// A time zone file that is not a regular TZif file, or cannot be read.
    package static let timeZoneUnreadable = Self("time-zone.unreadable")
}
