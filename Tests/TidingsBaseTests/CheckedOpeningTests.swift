import Glibc
import Testing
@testable import TidingsBase

/// Opening a path as what it must be: never waiting on a FIFO, never
/// following a link to a file of the user's own, refusing what another user
/// owns or can write; private directories made 0700.
@Suite struct CheckedOpeningTests {
    let scratch = ScratchDirectory()

    /// Writes `text` to `name` (mode 0600) and returns its path.
    func file(_ name: String, _ text: String = "kept") throws -> String {
        let path = scratch.file(name)
        try FileSystem.writeFileAtomically(path, Array(text.utf8), mode: 0o600)
        return path
    }

    /// The code `body` throws, nil when it throws nothing.
    func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as Diagnostic {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    func mode(of path: String) -> mode_t {
        var info = stat()
        _ = lstat(path, &info)
        return info.st_mode & 0o7777
    }

    @Test func anOwnRegularFileOpensAndReads() throws {
        let path = try file("state.json", "hello")
        #expect(try FileSystem.readFile(path, own: true) == Array("hello".utf8))
        let opened = try FileDescriptor(openingOwn: path, as: .regularFile, O_RDWR | O_APPEND)
        #expect(try opened.status().st_size == 5)
    }

    @Test func aFIFOIsRefusedAtOnceWhateverTheAccess() throws {
        let path = scratch.file("fifo")
        #expect(mkfifo(path, 0o600) == 0)
        // No writer: a blocking open for reading, or any open for writing, would wait or fail obscurely.
        for flags in [O_RDONLY, O_WRONLY, O_RDWR | O_APPEND, O_RDWR | O_CREAT] {
            #expect(refusal { _ = try FileDescriptor(openingOwn: path, as: .regularFile, flags) } == "file.wrong-kind")
        }
        // An input is not a file of the user's own: unreadable, not refused.
        #expect(refusal { _ = try FileSystem.readFile(path) } == "file.unreadable")
        #expect(refusal { _ = try FileSystem.readPrefix(path, count: 4) } == "file.unreadable")
    }

    @Test func aLinkToAnOwnFileIsRefusedAndNotWrittenThrough() throws {
        let target = try file("target", "untouched")
        let link = scratch.file("link")
        #expect(symlink(target, link) == 0)
        #expect(refusal { _ = try FileDescriptor(openingOwn: link, as: .regularFile, O_RDWR | O_APPEND) } == "file.link")
        #expect(refusal { _ = try FileDescriptor(openingOwn: link, as: .regularFile, O_RDWR | O_CREAT) } == "file.link")
        let dangling = scratch.file("dangling")
        #expect(symlink(scratch.file("nothing"), dangling) == 0)
        #expect(refusal { _ = try FileDescriptor(openingOwn: dangling, as: .regularFile, O_RDWR | O_CREAT) } == "file.link")
        #expect(FileSystem.status(of: scratch.file("nothing")) == nil, "created through the link")
        #expect(try FileSystem.readFile(target) == Array("untouched".utf8))
        // An input the user names is read through its link.
        #expect(try FileSystem.readFile(link) == Array("untouched".utf8))
    }

    @Test func aDirectoryWhereAFileMustBeIsRefused() throws {
        let path = scratch.file("journal")
        #expect(mkdir(path, 0o700) == 0)
        #expect(refusal { _ = try FileDescriptor(openingOwn: path, as: .regularFile, O_RDWR | O_APPEND) } == "file.wrong-kind")
        #expect(refusal { _ = try FileDescriptor(openingOwn: path, as: .regularFile) } == "file.wrong-kind")
    }

    @Test(arguments: [0o620, 0o602, 0o666] as [mode_t])
    func aFileOthersCanWriteIsRefused(mode: mode_t) throws {
        let path = try file("shared")
        #expect(chmod(path, mode) == 0)
        #expect(refusal { _ = try FileSystem.readFile(path, own: true) } == "file.open-to-others")
        #expect(try FileSystem.readFile(path) == Array("kept".utf8), "an input may be anyone's")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aFileOrDirectoryOfAnotherUserIsRefused() throws {
        let path = try file("theirs")
        #expect(chown(path, 65534, 65534) == 0)
        #expect(refusal { _ = try FileSystem.readFile(path, own: true) } == "file.foreign")
        let directory = scratch.file("their-state")
        #expect(mkdir(directory, 0o700) == 0 && chown(directory, 65534, 65534) == 0)
        #expect(refusal { _ = try FileDescriptor(openingPrivateDirectory: directory) } == "file.foreign")
    }

    @Test func aMissingFileIsNotFound() {
        #expect(refusal { _ = try FileDescriptor(openingOwn: scratch.file("absent"), as: .regularFile) } == "file.not-found")
        #expect(refusal { _ = try FileDescriptor(openingOwn: scratch.file("absent/below"), as: .regularFile) } == "file.not-found")
    }

    @Test func aPrivateDirectoryIsMade0700WithItsParents() throws {
        let path = scratch.file("state/tidings/attachments")
        _ = try FileDescriptor(openingPrivateDirectory: path)
        for made in ["state", "state/tidings", "state/tidings/attachments"] {
            #expect(mode(of: scratch.file(made)) == 0o700, "\(made)")
        }
        // Made already: opened again as it is.
        #expect(chmod(path, 0o755) == 0)
        _ = try FileDescriptor(openingPrivateDirectory: path)
        #expect(mode(of: path) == 0o755, "readable by others, but only its owner writes it")
    }

    @Test func aPrivateDirectoryThatIsALinkOrOpenToOthersIsRefused() throws {
        let target = scratch.file("elsewhere")
        #expect(mkdir(target, 0o700) == 0)
        let link = scratch.file("state")
        #expect(symlink(target, link) == 0)
        #expect(refusal { _ = try FileDescriptor(openingPrivateDirectory: link) } == "file.link")
        let open = scratch.file("open")
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o1777) == 0)
        #expect(refusal { _ = try FileDescriptor(openingPrivateDirectory: open) } == "file.open-to-others",
                "not even with the sticky bit")
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(refusal { _ = try FileDescriptor(openingPrivateDirectory: fifo) } == "file.wrong-kind")
    }

    @Test func aPrivateFileIsCheckedOnlyWhenItIsThere() throws {
        #expect(refusal { try FileSystem.checkPrivateFile(scratch.file("cache/index.v1")) } == nil)
        #expect(mode(of: scratch.file("cache")) == 0o700)
        #expect(mkfifo(scratch.file("cache/index.v1"), 0o600) == 0)
        #expect(refusal { try FileSystem.checkPrivateFile(scratch.file("cache/index.v1")) } == "file.wrong-kind")
    }

    @Test func anEntryIsExaminedWithoutFollowingALink() throws {
        let directory = try FileDescriptor(openingOwn: scratch.path, as: .directory)
        #expect(try directory.ownEntry(named: "absent", in: scratch.path, as: .socket) == nil)
        _ = try file("plain")
        #expect(refusal { _ = try directory.ownEntry(named: "plain", in: scratch.path, as: .socket) } == "file.wrong-kind")
        #expect(symlink(scratch.file("plain"), scratch.file("link")) == 0)
        #expect(refusal { _ = try directory.ownEntry(named: "link", in: scratch.path, as: .regularFile) } == "file.link")
        #expect(try directory.ownEntry(named: "plain", in: scratch.path, as: .regularFile) != nil)
    }

    @Test func aReplacementNeverWritesThroughWhatIsAtItsTemporaryName() throws {
        let target = try file("target", "untouched")
        let path = scratch.file("server.snapshot")
        #expect(symlink(target, path + ".tmp") == 0)
        try DurableFile.replace(path, with: Array("new".utf8))
        #expect(try FileSystem.readFile(path, own: true) == Array("new".utf8))
        #expect(try FileSystem.readFile(target) == Array("untouched".utf8))
        #expect(mkfifo(path + ".tmp", 0o600) == 0)
        try DurableFile.replace(path, with: Array("newer".utf8))
        #expect(try FileSystem.readFile(path, own: true) == Array("newer".utf8))
    }
}
