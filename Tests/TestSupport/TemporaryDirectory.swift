import Foundation

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

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        let destination = file(name)
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: destination, atomically: true, encoding: .utf8)
        return destination
    }
}
