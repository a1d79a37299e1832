import Foundation
import Synchronization
import Testing
import TestSupport
import TidingsBase
@testable import TidingsRuntime

/// The races of the attachment store's security issue, each run for real
/// and shown closed: a writer that keeps the file open, a directory swapped
/// for a link between check and open, a file rewritten or grown while it is
/// copied. No sleeps: a racing thread runs flat out for as long as the main
/// thread admits, and every outcome, whichever way the race went, must be
/// safe — a refusal that leaves the store clean, or a copy of exactly the
/// bytes that were checked.
@Suite struct AttachmentRaceTests {
    /// The test's files, the store among them.
    let directory = TemporaryDirectory("attachment-races")
    /// Where the store is.
    var storePath: String { directory.file("state/attachments") }
    /// The sample PNG.
    static let png = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")
    /// The sample PNG's bytes.
    static let pngBytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))) ?? []

    /// How many times the main thread admits against a racing thread.
    static let rounds = 500

    /// The test's store, walking relative paths by `method`.
    func store(resolving method: DirectoryBeneath.Method = .kernel) -> AttachmentStore {
        AttachmentStore(directory: storePath, resolving: method)
    }

    /// Writes `bytes` to `name` in the test's directory, making its folders.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let path = directory.file(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The bytes of the file at `path`; nil when there is none.
    func contents(of path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// The status of `path` itself (`lstat`); nil when nothing is there.
    func status(of path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    // MARK: A writer that keeps the file open

    @Test(arguments: [AttachmentStore.Disposition.move, .copy])
    func aWriterHoldingTheFileOpenCannotChangeWhatWasStored(disposition: AttachmentStore.Disposition) throws {
        let path = try write(Self.pngBytes, to: "incoming/photo.png")
        if geteuid() == 0 {
            // As in the report: the file belongs to another user, who keeps writing it.
            #expect(chown(path, 65534, 65534) == 0)
        }
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        let source = try #require(status(of: path))

        let admitted = try store().admit(AttachmentRequest(url: path), as: disposition).get()

        // The writer now overwrites the file and makes it 20 MB, through its descriptor.
        let junk = [UInt8](repeating: 0x41, count: 4096)
        #expect(pwrite(writer, junk, junk.count, 0) == junk.count)
        #expect(ftruncate(writer, 20_000_000) == 0)
        let stored = try #require(status(of: admitted.attachment.path))
        #expect(stored.st_ino != source.st_ino || stored.st_dev != source.st_dev, "the store holds a file of its own")
        #expect(stored.st_mode & 0o7777 == 0o600)
        #expect(stored.st_uid == geteuid())
        #expect(stored.st_nlink == 1)
        #expect(contents(of: admitted.attachment.path) == Self.pngBytes, "the stored bytes are the ones checked")
        var written = stat()
        #expect(fstat(writer, &written) == 0)
        switch disposition {
        case .move:
            #expect(admitted.transfer == .moved)
            #expect(status(of: path) == nil, "moved: the file left its place")
            #expect(written.st_nlink == 0, "the writer's file lost its only name")
        case .copy:
            #expect(admitted.transfer == .copied)
            #expect(written.st_nlink == 1)
        }
    }

    // MARK: A directory swapped for a link

    /// `payloads/media/photo.png` inside the base; `outside/photo.png`, a
    /// different PNG, beside it; `payloads/media-link`, a link to
    /// `../outside` that the racer swaps with `payloads/media` in a loop.
    func swappingLayout() throws -> (base: String, inside: [UInt8], outside: [UInt8], racer: Racer) {
        let inside = Self.pngBytes
        let outside = Self.pngBytes + Array("this PNG lies outside the payload's directory".utf8)
        try write(inside, to: "payloads/media/photo.png")
        try write(outside, to: "outside/photo.png")
        let base = directory.file("payloads")
        try FileManager.default.createSymbolicLink(atPath: base + "/media-link", withDestinationPath: "../outside")
        let racer = Racer {
            rename(base + "/media", base + "/media-real")
            rename(base + "/media-link", base + "/media")
            rename(base + "/media", base + "/media-link")
            rename(base + "/media-real", base + "/media")
        }
        return (base, inside, outside, racer)
    }

    @Test(arguments: DirectoryBeneath.Method.allCases)
    func aDirectorySwappedForALinkNeverLetsAnOutsideFileIn(method: DirectoryBeneath.Method) throws {
        let (base, inside, outside, racer) = try swappingLayout()
        let store = store(resolving: method)
        var admitted = 0
        racer.start()
        for _ in 0..<Self.rounds {
            switch store.admit(AttachmentRequest(url: "media/photo.png", base: base), as: .copy) {
            case .success(let admission):
                admitted += 1
                let stored = contents(of: admission.attachment.path)
                #expect(stored == inside, "round \(admitted): \(stored == outside ? "the outside file" : "something else") was stored")
                store.remove([admission.attachment])
            case .failure(let failure):
                #expect(failure.code == .invalidURL, "\(failure.diagnostic.message)")
            }
        }
        racer.stop()
        #expect(store.fileNames().isEmpty)
        #expect(contents(of: directory.file("outside/photo.png")) == outside)
    }

    @Test(arguments: DirectoryBeneath.Method.allCases)
    func aSwappedDirectoryIsNeverEnteredThroughTheLink(method: DirectoryBeneath.Method) throws {
        let (base, _, _, racer) = try swappingLayout()
        let insideDirectory = try #require(status(of: base + "/media"))
        let request = AttachmentRequest(url: "media/photo.png", base: base)
        racer.start()
        for _ in 0..<Self.rounds {
            // The directory the attachment's file is opened from, when it can be opened at all.
            guard let opened = try? AttachmentSource.Location(of: request).openDirectory(by: method) else { continue }
            let entered = try opened.status()
            #expect(entered.st_ino == insideDirectory.st_ino && entered.st_dev == insideDirectory.st_dev)
        }
        racer.stop()
    }

    // MARK: A file rewritten while it is copied

    @Test func aFileRewrittenWhileItIsCopiedIsStoredWholeOrNotAtAll() throws {
        let png = Self.pngBytes
        let text = Array(String(repeating: "Not a picture, whatever its name says. ", count: 8).utf8.prefix(png.count))
        let path = try write(png, to: "incoming/photo.png")
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        // Each version whole, in one write at the same place: the file is always one or the other.
        let racer = Racer {
            _ = pwrite(writer, text, text.count, 0)
            _ = pwrite(writer, png, png.count, 0)
        }
        let store = store()
        racer.start()
        for round in 0..<Self.rounds {
            switch store.admit(AttachmentRequest(url: path), as: .copy) {
            case .success(let admission):
                #expect(admission.mediaType == .png)
                #expect(contents(of: admission.attachment.path) == png, "round \(round): the stored file is not the PNG")
                store.remove([admission.attachment])
            case .failure(let failure):
                #expect(failure.code != .moveIntoDataStoreFailed, "\(failure.diagnostic.message)")
                #expect(store.fileNames().isEmpty, "round \(round): a refusal left \(store.fileNames())")
            }
        }
        racer.stop()
        #expect(store.fileNames().isEmpty)
    }

    // MARK: A file that grows while it is copied

    @Test func theCopyReadsAtMostTheLimitAndOneByte() throws {
        let path = try write(Self.pngBytes, to: "big.png")
        #expect(truncate(path, 3_000_000) == 0)
        let source = try FileDescriptor(opening: path, O_RDONLY)
        let store = try StoreDirectory(opening: storePath)
        let incoming = try store.copyIn(source, limit: 1_000_000, as: "bounded")
        #expect(incoming.size == 1_000_001)
        let copied = try incoming.file.status()
        #expect(copied.st_size == 1_000_001)
        #expect(copied.st_mode & 0o7777 == 0o600)
        store.discard(incoming)
        #expect(AttachmentStore(directory: storePath).fileNames().isEmpty)
    }

    @Test func aFileGrowingPastTheLimitIsNeverStoredPastIt() throws {
        let png = Self.pngBytes
        let path = try write(png, to: "incoming/growing.png")
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        // The writer grows the file a megabyte at a time (sparse), far past the 10 MB image limit.
        let racer = Racer {
            var written = stat()
            guard fstat(writer, &written) == 0, written.st_size < 64_000_000 else { return }
            _ = ftruncate(writer, written.st_size + 1_000_000)
        }
        let store = store()
        racer.start()
        for round in 0..<40 {
            // Back to the PNG alone, and at once the writer grows it again.
            #expect(ftruncate(writer, off_t(png.count)) == 0)
            switch store.admit(AttachmentRequest(url: path), as: .copy) {
            case .success(let admission):
                // What was stored is what was read: the PNG, and whatever (sparse) growth came
                // before the copy, never past the image limit.
                let stored = contents(of: admission.attachment.path) ?? []
                #expect(admission.attachment.size == UInt64(stored.count), "round \(round)")
                #expect(admission.attachment.size <= MediaType.Family.image.sizeLimit, "round \(round)")
                #expect(Array(stored.prefix(png.count)) == png, "round \(round)")
                #expect(stored.dropFirst(png.count).allSatisfy { $0 == 0 }, "round \(round)")
                store.remove([admission.attachment])
            case .failure(let failure):
                #expect([.invalidFileSize, .invalidURL].contains(failure.code), "\(failure.diagnostic.message)")
                #expect(store.fileNames().isEmpty, "round \(round): a refusal left \(store.fileNames())")
            }
        }
        racer.stop()
        #expect(store.fileNames().isEmpty)
    }

    // MARK: The component walk, where the kernel has no openat2

    /// A base with a directory, links that stay inside or leave, a file, a
    /// loop; each walked by the kernel and by the component walk.
    @Test func theComponentWalkAnswersAsTheKernelDoes() throws {
        try write(Self.pngBytes, to: "base/albums/2026/photo.png")
        try write(Self.pngBytes, to: "outside/photo.png")
        let base = directory.file("base")
        let links = [("latest", "albums/2026"), ("escape", "../outside"), ("absolute", base + "/albums"),
                     ("albums/2026/up", ".."), ("albums/2026/upTwo", "../../.."), ("loop", "loop"),
                     ("chain", "latest/up/2026")]
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(atPath: base + "/" + name, withDestinationPath: target)
        }
        let paths = [["albums"], ["albums", "2026"], ["latest"], ["escape"], ["absolute"], ["latest", "up"],
                     ["latest", "upTwo"], ["loop"], ["chain"], ["albums", "2026", "photo.png"], ["missing"],
                     ["albums", ".."], [".."], ["albums", "..", ".."]]
        let opened = try FileDescriptor(opening: base, O_RDONLY | O_DIRECTORY)
        for components in paths {
            let answers = DirectoryBeneath.Method.allCases.map { method -> String in
                do throws(SystemError) {
                    let directory = try DirectoryBeneath.open(components, beneath: opened, by: method)
                    return "inode \(try directory.status().st_ino)"
                } catch {
                    return "errno \(error.code)"
                }
            }
            #expect(answers[0] == answers[1], "\(components.joined(separator: "/")): kernel \(answers[0]), walk \(answers[1])")
        }
        // And the answers are the ones the rules call for.
        func answer(_ components: [String]) -> Int32 {
            do throws(SystemError) {
                _ = try DirectoryBeneath.open(components, beneath: opened, by: .components)
                return 0
            } catch {
                return error.code
            }
        }
        #expect(answer(["latest", "up"]) == 0)
        #expect(answer(["escape"]) == EXDEV)
        #expect(answer(["absolute"]) == EXDEV)
        #expect(answer(["latest", "upTwo"]) == EXDEV)
        #expect(answer([".."]) == EXDEV)
        #expect(answer(["loop"]) == ELOOP)
        #expect(answer(["albums", "2026", "photo.png"]) == ENOTDIR)
        #expect(answer(["missing"]) == ENOENT)
    }
}

/// A thread that runs `step` again and again, from `start` until `stop`:
/// the other side of a race. `start` returns once the step has run once.
final class Racer: Sendable {
    /// One move of the race.
    private let step: @Sendable () -> Void
    /// Set when the thread is to end.
    private let stopping = Atomic<Bool>(false)
    /// Opened once the step has run once.
    private let running = Latch()
    /// Opened when the thread has ended.
    private let ended = Latch()

    /// A racer doing `step`; nothing runs before `start`.
    init(_ step: @escaping @Sendable () -> Void) {
        self.step = step
    }

    /// Starts the racing thread and waits for its first step.
    func start() {
        let started = Threads.start { [self] in
            step()
            running.open()
            while !stopping.load(ordering: .relaxed) { step() }
            ended.open()
        }
        precondition(started, "no thread for the racer")
        _ = running.wait(until: .max)
    }

    /// Stops the racing thread and waits until it has.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        _ = ended.wait(until: .max)
    }
}
