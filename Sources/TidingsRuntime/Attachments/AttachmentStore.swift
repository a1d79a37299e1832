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
        /// renamed into the store (or should not be): `reason` says why ("it
        /// lay on another file system").
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

        package init(attachment: NotificationAttachment, mediaType: MediaType, source: String, transfer: Transfer) {
            self.attachment = attachment
            self.mediaType = mediaType
            self.source = source
            self.transfer = transfer
        }
    }

    /// The store's directory.
    package let directory: String

    /// The store at `directory`, which is made (0700) on first use.
    package init(directory: String) {
        var normalized = Substring(directory)
        while normalized.count > 1 && normalized.hasSuffix("/") { normalized.removeLast() }
        self.directory = String(normalized)
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
    /// it are taken out again (moved files back to their places, with their
    /// permissions), as iOS refuses a whole request whose attachment is invalid.
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
        return .success(placed.map(commit))
    }

    /// Checks `file`, which a worker process opened for `request`, and
    /// copies it into the store; the worker removes it from its place once
    /// admitted, so the admission says it was moved by copying. The path the
    /// request names is never opened here: a worker's extension chooses it.
    package func admit(_ request: AttachmentRequest, from file: borrowing FileDescriptor)
        -> Result<Admission, AttachmentFailure>
    {
        do throws(AttachmentFailure) {
            var placement = try place(AttachmentSource(openedFor: request, file: file), for: request, as: .copy)
            placement.admission.transfer = .movedByCopy(reason: "it came open from the extension's worker process, which removes it from its place")
            return .success(commit(placement))
        } catch {
            return .failure(error)
        }
    }

    /// Takes an admitted file back out of the store: a moved file returns to
    /// its place (when nothing took its name meanwhile), a copy is removed.
    /// For an attachment made just as its request ended.
    package func takeBack(_ admission: Admission) {
        let name = Path.lastComponent(of: admission.attachment.path)
        guard contains(admission.attachment.path), let store = try? StoreDirectory(opening: directory) else { return }
        if admission.transfer == .moved && store.restore(name, to: admission.source) { return }
        store.remove(name)
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

    /// A file put into the store, not yet committed.
    private struct Placement {
        var admission: Admission
        /// The file's permission bits before it entered, to restore on a roll-back.
        var mode: mode_t
        /// The source to remove on commit (a move done by copying), by identity.
        var removeOnCommit: (device: dev_t, inode: ino_t)?
    }

    /// Checks `request`'s file and puts it into the store.
    private func place(_ request: AttachmentRequest, as disposition: Disposition) throws(AttachmentFailure) -> Placement {
        try place(AttachmentSource(request), for: request, as: disposition)
    }

    /// Checks `source`, the file of `request`, and puts it into the store.
    private func place(_ source: consuming AttachmentSource, for request: AttachmentRequest,
                       as disposition: Disposition) throws(AttachmentFailure) -> Placement {
        let type = try recognize(source, for: request)
        let store: StoreDirectory
        do {
            store = try StoreDirectory(opening: directory)
        } catch {
            throw AttachmentFailure(.moveIntoDataStoreFailed, error.sentence, request: request)
        }
        let name = "\(Self.randomName()).\(type.fileExtension)"
        var removeOnCommit: (device: dev_t, inode: ino_t)?
        let transfer: Transfer
        do throws(SystemError) {
            switch disposition {
            case .copy:
                try store.copyIn(source, as: name)
                transfer = .copied
            case .move where store.holds(source):
                // An attachment of another notification, named again: it stays theirs.
                try store.copyIn(source, as: name)
                transfer = .copiedInstead(reason: "it is already in the store, attached to another notification")
            case .move where source.status.st_nlink > 1:
                // Renamed, the file could still change through its other names.
                try store.copyIn(source, as: name)
                removeOnCommit = (source.status.st_dev, source.status.st_ino)
                transfer = .movedByCopy(reason: "it has other hard links, through which it could change")
            case .move:
                transfer = try move(source, into: store, as: name, removeOnCommit: &removeOnCommit)
            }
        } catch {
            throw AttachmentFailure(
                error.code == ENOENT ? .invalidURL : .moveIntoDataStoreFailed,
                error.code == ESTALE ? "\(source.path) changed while it was being put into the attachment store"
                    : error.code == ENOENT ? "The attachment file \(source.path) vanished while it was being stored"
                    : "\(source.path) cannot be put into the attachment store \(directory): \(error)",
                request: request)
        }
        store.synchronize()
        let identifier = request.identifier.isEmpty ? Payload.generateIdentifier() : request.identifier
        let attachment = NotificationAttachment(identifier: identifier, type: type.identifier, path: store.file(name),
                                                size: source.size, thumbnail: request.thumbnail)
        return Placement(admission: Admission(attachment: attachment, mediaType: type, source: source.path,
                                              transfer: transfer),
                         mode: source.status.st_mode & 0o7777, removeOnCommit: removeOnCommit)
    }

    /// Renames `source` into `store`; copies it when it lies on another file
    /// system (removing it on commit) or cannot be removed from its place.
    private func move(_ source: borrowing AttachmentSource, into store: borrowing StoreDirectory, as name: String,
                      removeOnCommit: inout (device: dev_t, inode: ino_t)?) throws(SystemError) -> Transfer {
        do {
            try store.moveIn(source, as: name)
        } catch {
            switch error.code {
            case EXDEV:
                try store.copyIn(source, as: name)
                removeOnCommit = (source.status.st_dev, source.status.st_ino)
                return .movedByCopy(reason: "it lay on another file system")
            case EROFS, EACCES, EPERM, EBUSY:
                try store.copyIn(source, as: name)
                return .copiedInstead(reason: "it cannot be removed from its place (\(error))")
            default:
                throw error
            }
        }
        try? source.file.setPermissions(0o600)
        return .moved
    }

    /// Finishes a placement: removes the source of a move done by copying,
    /// if it is still the file copied (when it cannot be removed, the
    /// admission says it was copied and left).
    private func commit(_ placement: Placement) -> Admission {
        var admission = placement.admission
        guard let (device, inode) = placement.removeOnCommit else { return admission }
        var info = stat()
        if lstat(admission.source, &info) == 0, info.st_dev == device, info.st_ino == inode, unlink(admission.source) != 0 {
            admission.transfer = .copiedInstead(reason: "it cannot be removed from its place (\(SystemError.current()))")
        }
        return admission
    }

    /// Takes a placed file out of the store: a renamed one goes back to its
    /// place with its permissions; a copy is removed.
    private func rollBack(_ placement: Placement) {
        let admission = placement.admission
        guard let store = try? StoreDirectory(opening: directory) else { return }
        let name = Path.lastComponent(of: admission.attachment.path)
        if admission.transfer == .moved, store.restore(name, to: admission.source) {
            chmod(admission.source, placement.mode)
        } else {
            store.remove(name)
        }
        store.synchronize()
    }

    /// The type of `source`'s content, refused when unsupported, damaged,
    /// not the hinted type, empty or too large.
    private func recognize(_ source: borrowing AttachmentSource,
                           for request: AttachmentRequest) throws(AttachmentFailure) -> MediaType {
        let path = source.path
        guard source.size > 0 else {
            throw AttachmentFailure(.invalidFileSize, "The attachment file \(path) is empty", request: request)
        }
        var readFailure: SystemError?
        let verdict = MediaSniffer.recognize(size: source.size) { offset, count in
            do throws(SystemError) {
                return try source.file.read(at: offset, count: count)
            } catch {
                readFailure = error
                return []
            }
        }
        if let readFailure {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) cannot be read: \(readFailure)",
                                    request: request)
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
