import Synchronization

/// C strings that live as long as the process, one per distinct text: what
/// the ABI hands out to be kept (a table's names, a bundle's path, a type
/// identifier), made once however often it is handed out.
package enum PermanentStrings {
    private static let made = Mutex<[String: PermanentString]>([:])

    /// `text` as a NUL-terminated C string that is never freed.
    /// Thread: any. Ownership: the string is the process's.
    package static func cString(_ text: String) -> UnsafePointer<CChar> {
        made.withLock { made in
            if let string = made[text] { return string.pointer }
            let bytes = Array(text.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            copy.initialize(from: bytes, count: bytes.count)
            made[text] = PermanentString(pointer: UnsafePointer(copy))
            return UnsafePointer(copy)
        }
    }

    /// A string never freed, so its pointer may cross threads.
    private struct PermanentString: @unchecked Sendable {
        let pointer: UnsafePointer<CChar>
    }
}
