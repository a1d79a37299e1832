import Glibc

/// The machine's time zone, found as the C library finds it.
extension TimeZoneRules {
    /// The zone of this machine's clocks:
    /// - `TZ` when set: a zone name (`Europe/Paris`, `:Europe/Paris`), a
    ///   zone file's absolute path, or else a POSIX rule
    ///   (`CET-1CEST,M3.5.0,M10.5.0/3`); UTC when it is empty or none of these;
    /// - else `localtime` (/etc/localtime): named after its link target
    ///   below `directory` (`Europe/Berlin`), or its contents named "localtime";
    /// - else UTC.
    package static func local(environment: [String: String], localtime: String = "/etc/localtime",
                               directory: String = "/usr/share/zoneinfo") -> TimeZoneRules {
        if let variable = environment["TZ"] { return fromVariable(variable, directory: directory) }
        if let target = linkTarget(of: localtime) {
            let resolved = normalized(Path.join(Path.directory(of: localtime), target))
            let root = normalized(directory)
            if Path.isWithin(resolved, root), resolved != root,
               let rules = try? TimeZoneRules(named: String(resolved.dropFirst(root.count + (root == "/" ? 0 : 1))), in: root) {
                return rules
            }
        }
        return (try? load(localtime, named: "localtime")) ?? .utc
    }

    /// The zone `TZ` names (see `local`).
    private static func fromVariable(_ variable: String, directory: String) -> TimeZoneRules {
        let name = variable.hasPrefix(":") ? String(variable.dropFirst()) : variable
        if name.hasPrefix("/") {
            let root = normalized(directory)
            let path = normalized(name)
            if Path.isWithin(path, root), path != root, let rules = try? TimeZoneRules(named: String(path.dropFirst(root.count + 1)), in: root) {
                return rules
            }
            return (try? load(path, named: path)) ?? .utc
        }
        if let rules = try? TimeZoneRules(named: name, in: directory) { return rules }
        return TimeZoneRules(posix: name) ?? .utc
    }

    /// The target of the symbolic link at `path`; nil when it is not one.
    /// The corresponding C function is `readlink`.
    private static func linkTarget(of path: String) -> String? {
        var bytes = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = bytes.withUnsafeMutableBufferPointer { buffer in readlink(path, buffer.baseAddress!, buffer.count) }
        guard count > 0, count < bytes.count else { return nil }
        return String(decoding: bytes[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute with its `.` and `..` components and doubled slashes resolved, as text.
    private static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in FileSystem.absolutePath(path).split(separator: "/") where component != "." {
            if component == ".." { _ = components.popLast() } else { components.append(component) }
        }
        return "/" + components.joined(separator: "/")
    }
}
