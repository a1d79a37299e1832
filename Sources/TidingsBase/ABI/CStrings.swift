import Glibc

/// C copies of Swift strings, made for one call across the ABI and freed
/// together after it (`defer { copies.free() }`).
package struct CStrings {
    private var copies: [UnsafeMutablePointer<CChar>] = []

    /// No copies yet.
    package init() {}

    /// A NUL-terminated copy of `text`, or NULL for nil; valid until `free()`.
    package mutating func copy(_ text: String?) -> UnsafePointer<CChar>? {
        guard let text, let duplicate = strdup(text) else { return nil }
        copies.append(duplicate)
        return UnsafePointer(duplicate)
    }

    /// Frees every copy.
    package mutating func free() {
        copies.forEach { Glibc.free($0) }
        copies = []
    }
}
