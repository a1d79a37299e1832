import Glibc
import TidingsBase

/// The host's store of attachment files (UNNotificationAttachment's data
/// store): a directory private to the user (0700, files 0600), by default
/// `$XDG_STATE_HOME/tidings/attachments`.
///
/// A file enters only after it is checked: a regular file, of a supported
/// type recognised by its content (never its name), matching the type hint,
/// within its type's size limit. It is then moved in (or copied; see
/// `Transfer`), and from then on reached only through the host. A refused
/// file stays where it was and leaves nothing in the store.
package final class AttachmentStore: Sendable {
    /// Whether a file leaves its place when it enters the store.
    package enum Disposition: Sendable {
        /// Moved, as iOS does: the file is gone from its place afterwards.
        case move
        /// Copied: the file stays where it is.
        case copy
    }

    /// How a file came into the store.
    package enum Transfer: Sendable, Equatable {
        /// Renamed into the store; gone from its place.
        case moved
        /// Copied as asked; still in its place.
        case copied
        /// Copied, then removed from its place, because it could not be
        /// renamed into the store: `reason` says why ("it lay on another file system").
        case movedByCopy(reason: String)
        /// Copied and left in its place, because it could not be removed
        /// from there: `reason` says why ("its directory is read-only").
        case copiedInstead(reason: String)
    }

    /// A file the store took in.
    package struct Admission: Sendable, Equatable {
        /// The attachment as notifications carry it, its path in the store.
        package var attachment: NotificationAttachment
        /// The recognised type.
        package var mediaType: MediaType
        /// Where the file was.
        package var source: String
        /// How it came in.
        package var transfer: Transfer
    }

    /// The store's directory.
    package let directory: String

    /// The store at `directory`, which is made (0700) on first use.
    package init(directory: String) {
        self.directory = directory
    }

    /// `tidings/attachments` below the user's state directory in
    /// `environment`; nil when neither `XDG_STATE_HOME` nor `HOME` is set.
    package static func defaultDirectory(in environment: [String: String]) -> String? {
        BaseDirectory.state.path(in: environment).map { Path.join($0, "tidings/attachments") }
    }

    // MARK: Admitting

    /// Checks the file `request` names and, when it may be attached, puts it
    /// into the store as `disposition` says.
    package func admit(_ request: AttachmentRequest, as disposition: Disposition) -> Result<Admission, AttachmentFailure> {
        admit(all: [request], as: disposition).map { $0[0] }
    }

    /// Admits every request, or none: when one fails, those admitted before
    /// it are taken out again (moved files back to their places), as iOS
    /// refuses a whole request whose attachment is invalid.
    package func admit(all requests: [AttachmentRequest], as disposition: Disposition)
        -> Result<[Admission], AttachmentFailure>
    {
        var placed: [Placement] = []
        for request in requests {
            do throws(AttachmentFailure) {
                placed.append(try place(request, as: disposition))
            } catch {
                for placement in placed.reversed() { rollBack(placement) }
                return .failure(error)
            }
        }
        for placement in placed { commit(placement) }
        return .success(placed.map(\.admission))
    }

    /// Removes the files of `attachments` that lie in the store; others are
    /// left alone.
    package func remove(_ attachments: some Sequence<NotificationAttachment>) {
        for attachment in attachments where contains(attachment.path) {
            unlink(attachment.path)
        }
    }

    /// True when `path` names a file directly inside the store.
    package func contains(_ path: String) -> Bool {
        Path.directory(of: path) == directory
    }

    /// The names of the files in the store, sorted; none when it does not exist yet.
    package func fileNames() -> [String] {
        ((try? FileSystem.contentsOfDirectory(directory)) ?? []).sorted()
    }

    // MARK: Steps

    /// A file put into the store, not yet committed: a source to remove
    /// once every file of the request is in.
    private struct Placement {
        var admission: Admission
        /// The source to remove on commit (a move done by copying).
        var removeOnCommit: (path: String, device: dev_t, inode: ino_t)?
    }

    /// Checks `request`'s file and puts it into the store.
    private func place(_ request: AttachmentRequest, as disposition: Disposition) throws(AttachmentFailure) -> Placement {
        let source = try AttachmentSource(request)
        let type = try recognize(source, for: request)
        try prepareDirectory(for: request)
        let destination = Path.join(directory, "\(Self.randomName()).\(type.fileExtension)")
        var removeOnCommit: (path: String, device: dev_t, inode: ino_t)?
        let transfer: Transfer
        switch disposition {
        case .copy:
            try copy(source, to: destination, for: request)
            transfer = .copied
        case .move where source.status.st_nlink > 1:
            // Renamed, the file could still change through its other names.
            try copy(source, to: destination, for: request)
            removeOnCommit = (source.path, source.status.st_dev, source.status.st_ino)
            transfer = .movedByCopy(reason: "it has other hard links, through which it could change")
        case .move:
            transfer = try move(source, to: destination, for: request, removeOnCommit: &removeOnCommit)
        }
        synchronizeDirectory()
        let identifier = request.identifier.isEmpty ? Payload.generateIdentifier() : request.identifier
        let attachment = NotificationAttachment(identifier: identifier, type: type.identifier, path: destination,
                                                size: source.size, thumbnail: request.thumbnail)
        return Placement(admission: Admission(attachment: attachment, mediaType: type, source: source.path,
                                              transfer: transfer),
                         removeOnCommit: removeOnCommit)
    }

    /// The type of `source`'s content, refused when unsupported, damaged,
    /// not the hinted type, empty or too large.
    private func recognize(_ source: borrowing AttachmentSource,
                           for request: AttachmentRequest) throws(AttachmentFailure) -> MediaType {
        let path = source.path
        guard source.size > 0 else {
            throw AttachmentFailure(.invalidFileSize, "The attachment file \(path) is empty", request: request)
        }
        let verdict = MediaSniffer.recognize(size: source.size) { offset, count in
            (try? source.file.read(at: offset, count: count)) ?? []
        }
        let type: MediaType
        switch verdict {
        case .recognized(let recognized):
            type = recognized
        case .corrupt(let damaged, let reason):
            throw AttachmentFailure(.corrupt, "\(path) starts as \(Self.article(damaged.displayName)) but is damaged: \(reason)",
                                    request: request)
        case .unrecognized(let looksLike):
            let name = Path.pathExtension(of: path)
            var sentence = "\(path) is \(looksLike ?? "of no supported type"), not an image, audio or video file "
                + "that a notification may carry (JPEG, PNG, GIF, WAVE, AIFF, MP3, M4A, MPEG, MPEG-2, MPEG-4, AVI)"
            if !name.isEmpty { sentence += "; its name's .\(name) does not count, its content does" }
            throw AttachmentFailure(.unrecognizedType, sentence, request: request)
        }
        if let hint = request.typeHint, !hint.isEmpty, !type.conforms(to: hint) {
            throw AttachmentFailure(.unrecognizedType,
                                    "\(path) is \(Self.article(type.displayName)) (\(type.identifier)), not of the hinted type \(hint)",
                                    request: request)
        }
        let limit = type.family.sizeLimit
        guard source.size <= limit else {
            throw AttachmentFailure(
                .invalidFileSize,
                "\(path) is \(NumberText.bytesExactly(source.size)); \(type.family.rawValue) attachments may be at most \(NumberText.bytesExactly(limit))",
                request: request)
        }
        return type
    }

    /// Makes the store's directory when missing (0700, as are the parents it
    /// makes), and refuses one that is not a directory or not the user's.
    private func prepareDirectory(for request: AttachmentRequest) throws(AttachmentFailure) {
        do {
            try FileSystem.createDirectory(directory, mode: 0o700)
        } catch {
            throw AttachmentFailure(.moveIntoDataStoreFailed, "The attachment store cannot be made: \(error.message)",
                                    request: request)
        }
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw AttachmentFailure(.moveIntoDataStoreFailed, "The attachment store \(directory) is not a directory",
                                    request: request)
        }
        guard info.st_uid == geteuid() else {
            throw AttachmentFailure(.moveIntoDataStoreFailed,
                                    "The attachment store \(directory) belongs to another user", request: request)
        }
        if info.st_mode & 0o077 != 0 { chmod(directory, 0o700) }
    }

    /// Renames `source` into the store; copies it when it lies on another
    /// file system (removing it on commit) or cannot be removed from its place.
    private func move(_ source: borrowing AttachmentSource, to destination: String, for request: AttachmentRequest,
                      removeOnCommit: inout (path: String, device: dev_t, inode: ino_t)?) throws(AttachmentFailure)
        -> Transfer
    {
        guard rename(source.path, destination) == 0 else {
            let error = SystemError.current()
            switch error.code {
            case EXDEV:
                try copy(source, to: destination, for: request)
                removeOnCommit = (source.path, source.status.st_dev, source.status.st_ino)
                return .movedByCopy(reason: "it lay on another file system")
            case EROFS, EACCES, EPERM, EBUSY:
                try copy(source, to: destination, for: request)
                return .copiedInstead(reason: "it cannot be removed from its place (\(error))")
            default:
                throw AttachmentFailure(.moveIntoDataStoreFailed,
                                        "\(source.path) cannot be moved into the attachment store: \(error)",
                                        request: request)
            }
        }
        var moved = stat()
        guard lstat(destination, &moved) == 0, source.isSameFile(as: moved) else {
            // Another file took its name between the check and the rename: give it back.
            Self.restore(destination, to: source.path)
            throw AttachmentFailure(.moveIntoDataStoreFailed,
                                    "\(source.path) changed while it was being moved into the attachment store",
                                    request: request)
        }
        try? source.file.setPermissions(0o600)
        return .moved
    }

    /// Copies the `source` bytes that were checked into `destination`
    /// (0600), through a temporary file that becomes `destination` only
    /// when complete and on disk.
    private func copy(_ source: borrowing AttachmentSource, to destination: String,
                      for request: AttachmentRequest) throws(AttachmentFailure) {
        let temporary = Path.join(directory, ".incoming-\(Self.randomName())")
        do throws(SystemError) {
            let output = try FileDescriptor(opening: temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
            var offset: UInt64 = 0
            while offset < source.size {
                let chunk = try source.file.read(at: offset, count: Int(min(1 << 20, source.size - offset)))
                guard !chunk.isEmpty else { throw SystemError(code: EIO) }  // it shrank since it was checked
                try output.write(chunk)
                offset += UInt64(chunk.count)
            }
            try output.synchronize()
            guard rename(temporary, destination) == 0 else { throw SystemError.current() }
        } catch {
            unlink(temporary)
            throw AttachmentFailure(.moveIntoDataStoreFailed,
                                    "\(source.path) cannot be copied into the attachment store \(directory): \(error)",
                                    request: request)
        }
    }

    /// Removes the source of a move done by copying, if it is still the file copied.
    private func commit(_ placement: Placement) {
        guard let (path, device, inode) = placement.removeOnCommit else { return }
        var info = stat()
        if lstat(path, &info) == 0, info.st_dev == device, info.st_ino == inode { unlink(path) }
    }

    /// Takes a placed file out of the store: a renamed one goes back to its place.
    private func rollBack(_ placement: Placement) {
        let admission = placement.admission
        if admission.transfer == .moved {
            Self.restore(admission.attachment.path, to: admission.source)
        } else {
            unlink(admission.attachment.path)
        }
        synchronizeDirectory()
    }

    /// Renames `path` back to `original` unless something now has that name,
    /// in which case it stays (nothing is overwritten) under `path`.
    private static func restore(_ path: String, to original: String) {
        // link + unlink: a rename that never replaces.
        if link(path, original) == 0 { unlink(path) }
    }

    /// Flushes the store's directory, so that a file renamed in survives a crash.
    private func synchronizeDirectory() {
        if let directory = try? FileDescriptor(opening: directory, O_RDONLY | O_DIRECTORY) {
            try? directory.synchronize()
        }
    }

    /// 32 random hexadecimal digits: a name no one can guess or collide with.
    private static func randomName() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            String(generator.next() as UInt64, radix: 16).leftPadded(to: 16, with: "0")
        }.joined()
    }

    /// "a PNG image", "an MPEG-4 video": the article an acronym's first letter, read aloud, takes.
    private static func article(_ name: String) -> String {
        ("AEFHILMNORSX".contains(name.first ?? "x") ? "an " : "a ") + name
    }
}
