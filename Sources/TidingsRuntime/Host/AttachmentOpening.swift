import Glibc
import TidingsBase

extension InstanceContext {
    /// `open_attachment`: the store's file of the attachment `identifier` of
    /// what the instance serves now, opened read-only, never through a link,
    /// and only when it is a regular file; nil when there is no such
    /// attachment (or the instance is gone).
    package func openAttachment(_ identifier: String) -> FileDescriptor? {
        guard let path = read({ state in
            state.closed ? nil : state.attachments.first { $0.identifier == identifier }?.path
        }), !path.isEmpty,
            let file = try? FileDescriptor(opening: path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW),
            let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return file
    }
}
