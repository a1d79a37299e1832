/// String operations on slash-separated file paths. Pure: no file is touched.
package enum Path {
    /// `a/b` + `c` → `a/b/c`; an absolute `component` replaces `base`.
    package static func join(_ base: String, _ component: String) -> String {
        if component.hasPrefix("/") || base.isEmpty { return component }
        return base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// The last component: `a/b/C.appex/` → `C.appex`.
    package static func lastComponent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The directory part: `a/b/c` → `a/b`, `c` → `.`, `/c` → `/`.
    package static func directory(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The name without its last extension: `EventInvite.appex` → `EventInvite`.
    package static func deletingExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The last extension without its dot: `EventInvite.appex` → `appex`; "" when none.
    package static func pathExtension(of name: String) -> String {
        let last = lastComponent(of: name)
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// True when `path` is `directory` or lies below it: `/usr/lib` is within `/usr`, `/usrx` is not.
    package static func isWithin(_ path: String, _ directory: String) -> Bool {
        let path = trimmingTrailingSlashes(path)
        let directory = trimmingTrailingSlashes(directory)
        if path == directory || directory == "/" { return true }
        return path.hasPrefix(directory + "/")
    }

    /// `path` without the slashes it ends with ("/" stays "/").
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1 && result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }
}
