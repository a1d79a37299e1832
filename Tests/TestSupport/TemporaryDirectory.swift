import Foundation
import Glibc

/// A fresh directory under the system's temporary directory, removed when
/// the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    /// Its path.
    public let path: String

    /// Creates the directory.
    public init(_ label: String = "tidings-test") {
        let template = NSTemporaryDirectory() + "/\(label)-XXXXXX"
        var bytes = Array(template.utf8CString)
        path = bytes.withUnsafeMutableBufferPointer { buffer in String(cString: mkdtemp(buffer.baseAddress!)) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `text` to `name` inside the directory and returns its path:
    /// whole (written under another name, then renamed), and through a
    /// descriptor closed on exec, so that no child another test starts
    /// meanwhile keeps the file open for writing (a script written here
    /// would then fail to start: "text file busy").
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        let destination = file(name)
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let partial = destination + ".partial-\(getpid())"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial]) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(descriptor)
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial])
            }
            written += count
        }
        close(descriptor)
        guard rename(partial, destination) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination])
        }
        return destination
    }
}
