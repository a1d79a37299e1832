/// What a sandbox's own files say of the app in it: Flatpak's
/// `/.flatpak-info` (a key file), Snap's AppArmor label and cgroup.
package enum SandboxFiles {
    /// The sandbox `/.flatpak-info` describes: `[Application] name=`, and
    /// `[Instance] instance-id=`; nil when it names no application.
    package static func flatpak(info: String) -> PeerSandbox? {
        var group = ""
        var name: String?
        var instance: String?
        for raw in info.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces
            let value = line[line.index(after: equals)...].trimmingSpaces
            // The first of a key in its group counts: a key file repeats none.
            if group == "Application" && key == "name" && name == nil { name = value }
            if group == "Instance" && key == "instance-id" && instance == nil { instance = value }
        }
        guard let name, !name.isEmpty else { return nil }
        return PeerSandbox(kind: .flatpak, app: name, instance: instance.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The snap an AppArmor label names: `snap.NAME.APP (enforce)`; nil for another label.
    package static func snap(label: String) -> PeerSandbox? {
        let profile = label.split(separator: " ").first.map(String.init) ?? ""
        return snap(unit: profile)
    }

    /// The snap a cgroup file names: a line whose path ends in
    /// `snap.NAME.APP-….scope` (or `snap.NAME.APP.service`); nil when none does.
    package static func snap(cgroup: String) -> PeerSandbox? {
        for line in cgroup.split(separator: "\n") {
            guard let last = line.split(separator: "/").last else { continue }
            var unit = String(last)
            if unit.hasSuffix(".scope"), let dash = unit.lastIndex(of: "-") {
                unit = String(unit[..<dash])
            } else if unit.hasSuffix(".service") {
                unit = String(unit.dropLast(".service".count))
            } else {
                continue
            }
            if let sandbox = snap(unit: unit) { return sandbox }
        }
        return nil
    }

    /// `snap.NAME.APP` (or `snap.NAME.hook.HOOK`) as a sandbox; nil otherwise.
    private static func snap(unit: String) -> PeerSandbox? {
        let parts = unit.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "snap", !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
        return PeerSandbox(kind: .snap, app: String(parts[1]), instance: parts[2...].joined(separator: "."))
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return String(text)
    }
}
