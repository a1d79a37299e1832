import Glibc
import TidingsBase

/// The host's store of attachment files (UNNotificationAttachment's data
/// store): a directory private to the user (0700, files 0600), by default
/// `$XDG_STATE_HOME/tidings/attachments`.
///
/// A file enters only as a copy the store makes of it, and only once the
/// copy is checked: the source is opened without following a link (beneath
/// its base for a relative path), copied from that descriptor into a new
/// file of the store, and then the copy — the bytes stored, read back
/// through the copy's own descriptor — must be of a supported type
/// recognised by its content (never its name), match the type hint, and
/// stay within its type's size limit; the source must not have changed
/// while it was copied. Nothing of the source's own (its inode, its other
/// names, a descriptor someone holds on it) reaches the store, so no one can
/// change an attachment after it was checked. A "move" (`Disposition.move`,
/// as iOS does) copies the same way and then removes the source from its
/// place. A refused file stays where it was and leaves nothing in the store.
///
/// What the store keeps is counted against its `AttachmentQuota` per
/// notification, bundle and app (`StoreLedger`): a file that would pass one
/// is refused with Apple's 104 (`attachment.store-quota`) before it is
/// copied, and a bundle refused again and again is told so
/// (`AttachmentFailure.abuse`), for its fault count.
package final class AttachmentStore: Sendable {
    /// Whose a file is, for the quota.
    package typealias Owner = StoreLedger.Owner

    /// Whether a file leaves its place when it enters the store.
    package enum Disposition: Sendable {
        /// Moved, as iOS does: the file is gone from its place afterwards.
        case move
        /// Copied: the file stays where it is.
        case copy
    }

    /// How a file came into the store. The store always holds a copy; what
    /// differs is whether the file is still in its place.
    package enum Transfer: Sendable, Equatable {
        /// Copied in, then removed from its place by the store, once the
        /// whole request was admitted: iOS's move, as the user sees it.
        case moved
        /// Copied as asked; still in its place.
        case copied
        /// Copied in, and removed from its place by someone else: `reason`
        /// says who (the opener's words, as `admit(_:opened:removedBy:for:)` was given them).
        case movedByCopy(reason: String)
        /// Copied and left in its place, though it was to be moved:
        /// `reason` says why ("it cannot be removed from its place (…)").
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

    /// Who walks a relative path beneath its base: the kernel where it can.
    let resolution: DirectoryBeneath.Method
    /// What the store holds for whom, against its quota.
    let ledger: StoreLedger

    /// The quota the store keeps to.
    package var quota: AttachmentQuota { ledger.quota }

    /// The store at `directory`, which is made (0700) on first use, keeping to `quota`.
    package convenience init(directory: String, quota: AttachmentQuota = AttachmentQuota()) {
        self.init(directory: directory, resolving: .kernel, quota: quota)
    }

    /// The store at `directory`, walking relative paths by `resolution` (a
    /// test's choice: the component walk is otherwise only the fallback).
    init(directory: String, resolving resolution: DirectoryBeneath.Method, quota: AttachmentQuota = AttachmentQuota()) {
        var normalized = Substring(directory)
        while normalized.count > 1 && normalized.hasSuffix("/") { normalized.removeLast() }
        self.directory = String(normalized)
        self.resolution = resolution
        ledger = StoreLedger(quota: quota)
    }

    /// `tidings/attachments` below the user's state directory in
    /// `environment`; nil when neither `XDG_STATE_HOME` nor `HOME` is set.
    package static func defaultDirectory(in environment: [String: String]) -> String? {
        BaseDirectory.state.path(in: environment).map { Path.join($0, "tidings/attachments") }
    }

    /// Opens the store's directory as `admit` does — making it when missing,
    /// refusing it when it is not a private directory of the user's — so that
    /// a server finds a store it cannot use before it takes its first request.
    package func check() throws(Diagnostic) {
        _ = try StoreDirectory(opening: directory)
    }

    // MARK: Admitting

    /// Checks the file `request` names and, when it may be attached, puts it
    /// into the store as `disposition` says, counted for `owner` (nil: for
    /// no one, a tool's or a test's file that belongs to no notification).
    package func admit(_ request: AttachmentRequest, as disposition: Disposition, for owner: Owner? = nil)
        -> Result<Admission, AttachmentFailure>
    {
        admit(all: [request], as: disposition, for: owner).map { $0[0] }
    }

    /// Admits every request, or none: when one fails, the copies made for
    /// those before it are removed, as iOS refuses a whole request whose
    /// attachment is invalid. Files to be moved leave their places only
    /// when all were admitted. Counted for `owner`, as in `admit(_:as:for:)`.
    package func admit(all requests: [AttachmentRequest], as disposition: Disposition, for owner: Owner? = nil)
        -> Result<[Admission], AttachmentFailure>
    {
        var placed: [Placement] = []
        for request in requests {
            do throws(AttachmentFailure) {
                placed.append(try place(AttachmentSource(request, resolving: resolution), for: request, as: disposition,
                                        owner: owner))
            } catch {
                for placement in placed.reversed() { rollBack(placement) }
                return .failure(error)
            }
        }
        return .success(placed.map(commit))
    }

    /// Checks `file`, a descriptor the caller opened for `request` (for an
    /// extension run elsewhere), by copying it into the store and checking
    /// the copy; the opener removes it from its place once admitted, so the
    /// admission says it was moved by copying, for `remover` (why: "it came
    /// open from …, which removes it from its place"). The path the request
    /// names is never opened here: the extension chose it. Counted for
    /// `owner`, as in `admit(_:as:for:)`.
    package func admit(_ request: AttachmentRequest, opened file: borrowing FileDescriptor, removedBy remover: String,
                       for owner: Owner? = nil) -> Result<Admission, AttachmentFailure>
    {
        do throws(AttachmentFailure) {
            var placement = try place(AttachmentSource(openedFor: request, file: file), for: request, as: .copy,
                                      owner: owner)
            placement.admission.transfer = .movedByCopy(reason: remover)
            return .success(commit(placement))
        } catch {
            return .failure(error)
        }
    }

    /// Takes an admitted file back out of the store: the copy of a moved
    /// file goes back to the file's place (when nothing took its name
    /// meanwhile), any other copy is removed. For an attachment made just
    /// as its request ended.
    package func takeBack(_ admission: Admission) {
        let name = Path.lastComponent(of: admission.attachment.path)
        guard contains(admission.attachment.path), let store = try? StoreDirectory(opening: directory) else { return }
        ledger.release(Path.deletingExtension(of: name))
        if admission.transfer == .moved && store.restore(name, to: admission.source) { return }
        store.remove(name)
    }

    /// Counts the files of `attachments` that lie in the store — a kept
    /// notification's, put back after a restart — for `owner`.
    package func adopt(_ attachments: some Sequence<NotificationAttachment>, for owner: Owner) {
        for attachment in attachments where contains(attachment.path) {
            ledger.adopt(Path.deletingExtension(of: Path.lastComponent(of: attachment.path)), size: attachment.size,
                         for: owner)
        }
    }

    /// Removes the files of `attachments` that lie in the store, and their
    /// bytes from the quota's count; others are left alone.
    package func remove(_ attachments: some Sequence<NotificationAttachment>) {
        for attachment in attachments where contains(attachment.path) {
            unlink(attachment.path)
            ledger.release(Path.deletingExtension(of: Path.lastComponent(of: attachment.path)))
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

    /// A copy put into the store, not yet committed.
    private struct Placement {
        var admission: Admission
        /// The source's place and identity, for a move: what commit removes.
        var removal: (place: SourcePlace, device: dev_t, inode: ino_t)?
    }

    /// Checks `source`, the file of `request`, copies it into the store and
    /// checks the copy; a move's source stays in its place until commit.
    ///
    /// The source's own content is sniffed first: it refuses at once what
    /// the copy would be refused for (no file is made for it), and its type
    /// family's size limit bounds the copy. What is admitted is decided on
    /// the copy alone.
    private func place(_ source: consuming AttachmentSource, for request: AttachmentRequest,
                       as disposition: Disposition, owner: Owner?) throws(AttachmentFailure) -> Placement {
        let path = source.path
        if Path.pathExtension(of: path).isEmpty && (request.typeHint ?? "").isEmpty {
            throw AttachmentFailure(
                .unrecognizedType,
                "\(path) has no filename extension and no type hint; iOS takes an attachment's type from one of "
                    + "the two and refuses a file with neither, so Tidings does too: name the file with its "
                    + "extension (.png) or give a type hint (public.png)",
                request: request)
        }
        let announced = try recognize(source.file, size: source.size, path: path, for: request)
        let store: StoreDirectory
        do {
            store = try StoreDirectory(opening: directory)
        } catch {
            throw AttachmentFailure(.moveIntoDataStoreFailed, "The attachment store cannot be used: \(error.message.dropLast())",
                                    request: request)
        }
        let name = Self.randomName()
        let limit = announced.family.sizeLimit
        // Counted before the copy is made, at the size the source reports: what the quota refuses is never copied.
        if let owner {
            do throws(StoreLedger.Refusal) {
                try ledger.reserve(source.size, as: name, for: owner)
            } catch {
                throw quotaFailure(error, path: path, for: request)
            }
        }
        let incoming: IncomingFile
        do {
            incoming = try store.copyIn(source.file, limit: limit, as: name)
        } catch {
            ledger.release(name)
            throw storeFailure(error, copying: path, for: request)
        }
        let type: MediaType
        do throws(AttachmentFailure) {
            do throws(StoreLedger.Refusal) {
                try ledger.settle(name, at: incoming.size)
            } catch {
                throw quotaFailure(error, path: path, for: request)
            }
            guard incoming.size <= limit else {
                throw AttachmentFailure(
                    .invalidFileSize,
                    "\(path) grew beyond its limit while it was being copied; \(announced.family.rawValue) attachments may be at most \(NumberText.bytesExactly(limit))",
                    request: request)
            }
            /// Apple's 100 (invalid file), as for a file that changes while
            /// it is checked: the file at that URL is not one stable file.
            /// Not 105 (corrupt): each version of it may well be intact.
            func changed() -> AttachmentFailure {
                AttachmentFailure(.invalidURL, "\(path) changed while it was being copied", request: request)
            }
            guard !source.hasChanged(copied: incoming.size) else { throw changed() }
            type = try recognize(incoming.file, size: incoming.size, path: path, for: request)
            // A write the file's times missed still shows in a type that differs.
            guard type == announced else { throw changed() }
            do {
                try store.keep(incoming, as: "\(name).\(type.fileExtension)")
            } catch {
                throw storeFailure(error, copying: path, for: request)
            }
        } catch {
            store.discard(incoming)
            ledger.release(name)
            throw error
        }
        store.synchronize()
        let identifier = request.identifier.isEmpty ? Payload.generateIdentifier() : request.identifier
        let attachment = NotificationAttachment(identifier: identifier, type: type.identifier,
                                                path: store.file("\(name).\(type.fileExtension)"),
                                                size: incoming.size, thumbnail: request.thumbnail)
        var placement = Placement(admission: Admission(attachment: attachment, mediaType: type, source: path,
                                                       transfer: .copied))
        if disposition == .move, let place = source.place {
            if store.holds(place) {
                // An attachment of another notification, named again: it stays theirs.
                placement.admission.transfer = .copiedInstead(reason: "it is already in the store, attached to another notification")
            } else {
                placement.admission.transfer = .moved
                placement.removal = (place, source.status.st_dev, source.status.st_ino)
            }
        }
        return placement
    }

    /// Apple's 104 for the file of `path`, whose copy the store could not
    /// make or keep for the reason `error` gives.
    private func storeFailure(_ error: SystemError, copying path: String,
                              for request: AttachmentRequest) -> AttachmentFailure {
        AttachmentFailure(.moveIntoDataStoreFailed,
                          "\(path) cannot be copied into the attachment store \(directory): \(error)", request: request)
    }

    /// Apple's 104 for the file of `path`, which would pass a quota, as
    /// `refusal` says; abusive when its bundle keeps trying.
    private func quotaFailure(_ refusal: StoreLedger.Refusal, path: String,
                              for request: AttachmentRequest) -> AttachmentFailure {
        var failure = AttachmentFailure(.moveIntoDataStoreFailed, "\(path) is not kept: \(refusal.sentence)",
                                        request: request, code: .attachmentStoreQuota)
        if refusal.abusive {
            failure.abuse = .error(.attachmentStoreAbuse,
                                   "It was refused \(quota.abuseRefusals) times within \(NumberText.short(quota.abuseWindow)) s for passing the attachment store's quota, and keeps trying: a fault.",
                                   at: failure.diagnostic.location)
        }
        return failure
    }

    /// Finishes a placement: a move's source leaves its place, if its name
    /// there is still the file that was copied (when it cannot be removed,
    /// the admission says it was copied and left).
    private func commit(_ placement: Placement) -> Admission {
        var admission = placement.admission
        if let (place, device, inode) = placement.removal, let reason = place.remove(ifStill: device, inode) {
            admission.transfer = .copiedInstead(reason: reason)
        }
        return admission
    }

    /// Takes a placed copy out of the store; its source never left its place.
    private func rollBack(_ placement: Placement) {
        let name = Path.lastComponent(of: placement.admission.attachment.path)
        ledger.release(Path.deletingExtension(of: name))
        guard let store = try? StoreDirectory(opening: directory) else { return }
        store.remove(name)
        store.synchronize()
    }

    /// The type of the content `file` holds (`size` bytes; the file of
    /// `path`, for messages), refused when unsupported, damaged, not the
    /// hinted type, empty or too large.
    private func recognize(_ file: borrowing FileDescriptor, size: UInt64, path: String,
                           for request: AttachmentRequest) throws(AttachmentFailure) -> MediaType {
        guard size > 0 else {
            throw AttachmentFailure(.invalidFileSize, "The attachment file \(path) is empty", request: request)
        }
        var readFailure: SystemError?
        let verdict = MediaSniffer.recognize(size: size) { offset, count in
            do throws(SystemError) {
                return try file.read(at: offset, count: count)
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
        guard size <= limit else {
            throw AttachmentFailure(
                .invalidFileSize,
                "\(path) is \(NumberText.bytesExactly(size)); \(type.family.rawValue) attachments may be at most \(NumberText.bytesExactly(limit))",
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
