import Glibc
import TidingsBase

/// A notification's icon as the portal serializes a GIcon
/// (`g_icon_serialize`): theme names, or the image's bytes. A file path is
/// never taken (an app in a sandbox must not name the user's files; the
/// portal itself sends bytes or a file descriptor).
package enum PortalIcon: Equatable, Sendable {
    /// `('themed', <as>)`, or a plain `s` name: icon names of the theme, the first preferred.
    case themed([String])
    /// `('bytes', <ay>)`: the image file's contents (PNG, JPEG, …).
    case bytes([UInt8])

    /// The icon `serialized` holds: `kind` and its value; nil for a form not taken.
    init?(kind: String, value: BusValue?) throws(PortalRefusal) {
        switch (kind, value) {
        case ("themed", .strings(let names)?):
            let kept = names.filter { DesktopText.name($0) == $0 }
            guard !kept.isEmpty else { return nil }
            self = .themed(Array(kept.prefix(8)))
        case ("bytes", .bytes(let bytes)?):
            guard bytes.count <= PortalLimits.iconBytes else {
                throw PortalRefusal(sentence: "the icon's \(bytes.count) bytes are more than \(PortalLimits.iconBytes)")
            }
            guard !bytes.isEmpty else { return nil }
            self = .bytes(bytes)
        default:
            return nil
        }
    }

    /// Writes the bytes of a `.bytes` icon to a new private file in
    /// `directory` (made, mode 0700, when missing); its path, to be delivered
    /// as the notification's attachment (the server moves it into its store).
    package static func write(_ bytes: [UInt8], in directory: String) -> Result<String, PortalRefusal> {
        do throws(Diagnostic) {
            _ = try FileDescriptor(openingPrivateDirectory: directory)
        } catch {
            return .failure(PortalRefusal(sentence: "cannot keep the icon in \(directory): \(error.message)"))
        }
        var template = Array((directory + "/icon-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            return .failure(PortalRefusal(sentence: "cannot write the icon in \(directory): \(SystemError.current())"))
        }
        let file = FileDescriptor(adopting: descriptor)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do throws(SystemError) {
            try file.write(bytes)
        } catch {
            unlink(path)
            return .failure(PortalRefusal(sentence: "cannot write the icon \(path): \(error)"))
        }
        return .success(path)
    }
}
