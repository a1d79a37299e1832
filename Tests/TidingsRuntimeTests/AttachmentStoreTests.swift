import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// The attachment store with real files: what it refuses (with Apple's code,
/// leaving the file where it was and nothing in the store), and how it takes
/// in what it accepts (moved or copied, private to the user).
@Suite struct AttachmentStoreTests {
    let directory = TemporaryDirectory("attachments")
    var store: AttachmentStore { AttachmentStore(directory: directory.file("state/tidings/attachments")) }
    static let png = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")

    /// A copy of the sample PNG at `name` in the test's directory.
    func samplePNG(_ name: String = "photo.png") throws -> String {
        let path = directory.file(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.png, toPath: path)
        return path
    }

    /// The failure `request` gets, with the store checked to be empty.
    func refusal(_ request: AttachmentRequest, as disposition: AttachmentStore.Disposition = .move,
                 in store: AttachmentStore? = nil) throws -> AttachmentFailure {
        let store = store ?? self.store
        guard case .failure(let failure) = store.admit(request, as: disposition) else {
            Issue.record("\(request.url) was admitted")
            throw CancellationError()
        }
        #expect(store.fileNames().isEmpty, "the store keeps \(store.fileNames())")
        return failure
    }

    func mode(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int
    }

    // MARK: Refused

    @Test func aFileDisguisedByItsNameIsRefusedAsUnrecognized() throws {
        let path = try directory.write("This is a text file pretending to be a picture.\n", to: "photo.png")
        let failure = try refusal(AttachmentRequest(url: path))
        #expect(failure.code == .unrecognizedType)
        #expect(failure.appleCode == 101)
        #expect(failure.diagnostic.code.rawValue == "attachment.unrecognized-type")
        #expect(failure.diagnostic.message.contains(".png does not count"))
        #expect(FileManager.default.fileExists(atPath: path), "a refused file stays where it was")
    }

    @Test func contentOfAnotherTypeThanTheHintIsRefused() throws {
        let failure = try refusal(AttachmentRequest(url: try samplePNG(), typeHint: "public.jpeg"))
        #expect(failure.code == .unrecognizedType)
        #expect(failure.diagnostic.message.contains("not of the hinted type public.jpeg"))
    }

    @Test(arguments: ["public.png", "public.image", "public.data"])
    func aHintTheContentConformsToIsAccepted(hint: String) throws {
        let admitted = try store.admit(AttachmentRequest(url: try samplePNG(), typeHint: hint), as: .move).get()
        #expect(admitted.attachment.type == "public.png")
    }

    @Test func anImageOverTenMegabytesIsRefused() throws {
        // The sample's bytes, then a sparse hole up to one byte over the limit.
        let path = try samplePNG()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 10_000_001)
        try handle.close()
        let failure = try refusal(AttachmentRequest(url: path))
        #expect(failure.code == .invalidFileSize)
        #expect(failure.diagnostic.message.contains("at most 10 MB (10,000,000 bytes)"))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func anImageOfExactlyTenMegabytesIsAccepted() throws {
        let path = try samplePNG()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 10_000_000)
        try handle.close()
        let admitted = try store.admit(AttachmentRequest(url: path), as: .move).get()
        #expect(admitted.attachment.size == 10_000_000)
    }

    @Test func anEmptyFileIsRefused() throws {
        let failure = try refusal(AttachmentRequest(url: try directory.write("", to: "empty.png")))
        #expect(failure.code == .invalidFileSize)
    }

    @Test func aSymbolicLinkIsRefusedEvenToAGoodFile() throws {
        let link = directory.file("link.png")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: try samplePNG())
        let failure = try refusal(AttachmentRequest(url: link))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("is a symbolic link"))
    }

    @Test func aDirectoryIsRefused() throws {
        let folder = directory.file("folder.png")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let failure = try refusal(AttachmentRequest(url: folder))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("is a directory"))
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let fifo = directory.file("pipe.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        let failure = try refusal(AttachmentRequest(url: fifo))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("is a FIFO"))
    }

    @Test func aDeviceIsRefused() throws {
        let failure = try refusal(AttachmentRequest(url: "/dev/zero"))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("is a character device"))
    }

    /// What may lie at an attachment's path instead of a regular file.
    enum Irregular: String, CaseIterable, Sendable {
        case fifo = "a FIFO"
        case directory = "a directory"
        case socket = "a socket"

        /// Makes one at `path`.
        func make(at path: String) throws {
            switch self {
            case .fifo:
                #expect(mkfifo(path, 0o600) == 0)
            case .directory:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            case .socket:
                let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                try #require(socket >= 0)
                defer { close(socket) }
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let bytes = Array(path.utf8)
                try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
                withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
                #expect(bound == 0)
            }
        }
    }

    @Test(arguments: Irregular.allCases, [false, true])
    func whatIsNotARegularFileIsRefusedByPathAndBeneathABase(kind: Irregular, relative: Bool) throws {
        let payloads = directory.file("payloads")
        try FileManager.default.createDirectory(atPath: payloads, withIntermediateDirectories: true)
        try kind.make(at: payloads + "/thing.png")
        let request = relative ? AttachmentRequest(url: "thing.png", base: payloads)
                               : AttachmentRequest(url: payloads + "/thing.png")
        let failure = try refusal(request)
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("is \(kind.rawValue)"), "\(failure.diagnostic.message)")
    }

    @Test func aDeviceIsRefusedBeneathABaseToo() throws {
        let failure = try refusal(AttachmentRequest(url: "null", base: "/dev"))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("is a character device"))
    }

    @Test func aMissingFileIsRefused() throws {
        let failure = try refusal(AttachmentRequest(url: directory.file("nowhere/photo.png")))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("does not exist"))
    }

    @Test func aRelativePathMayNotLeaveItsBase() throws {
        let payloads = directory.file("payloads")
        try FileManager.default.createDirectory(atPath: payloads, withIntermediateDirectories: true)
        _ = try samplePNG("outside.png")
        let failure = try refusal(AttachmentRequest(url: "../outside.png", base: payloads))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("leaves the directory"))
        #expect(FileManager.default.fileExists(atPath: directory.file("outside.png")))
    }

    @Test func aRelativePathMayNotLeaveItsBaseThroughALink() throws {
        let payloads = directory.file("payloads")
        try FileManager.default.createDirectory(atPath: payloads, withIntermediateDirectories: true)
        _ = try samplePNG("elsewhere/photo.png")
        try FileManager.default.createSymbolicLink(atPath: payloads + "/media", withDestinationPath: directory.file("elsewhere"))
        let failure = try refusal(AttachmentRequest(url: "media/photo.png", base: payloads))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("through a link"))
    }

    @Test func aRelativePathThroughALinkThatStaysInsideItsBaseIsAccepted() throws {
        _ = try samplePNG("payloads/albums/2026/photo.png")
        try FileManager.default.createSymbolicLink(atPath: directory.file("payloads/latest"),
                                                   withDestinationPath: "albums/2026")
        let admitted = try store.admit(AttachmentRequest(url: "latest/photo.png", base: directory.file("payloads")),
                                       as: .copy).get()
        #expect(admitted.attachment.type == "public.png")
    }

    @Test func aRelativePathThroughAnAbsoluteLinkIsRefusedEvenInsideItsBase() throws {
        _ = try samplePNG("payloads/albums/photo.png")
        try FileManager.default.createSymbolicLink(atPath: directory.file("payloads/latest"),
                                                   withDestinationPath: directory.file("payloads/albums"))
        let failure = try refusal(AttachmentRequest(url: "latest/photo.png", base: directory.file("payloads")))
        #expect(failure.code == .invalidURL)
        #expect(failure.diagnostic.message.contains("through a link"))
    }

    @Test func aRelativePathInsideItsBaseIsAccepted() throws {
        _ = try samplePNG("payloads/media/photo.png")
        let admitted = try store.admit(AttachmentRequest(url: "media/../media/./photo.png", base: directory.file("payloads")),
                                       as: .copy).get()
        #expect(admitted.source == directory.file("payloads/media/photo.png"))
    }

    @Test(arguments: ["https://example.com/photo.png", "photo.png", "file://relative/photo.png", ""])
    func whatIsNotALocalAbsoluteFileIsRefused(url: String) throws {
        let failure = try refusal(AttachmentRequest(url: url))
        #expect(failure.code == .invalidURL)
    }

    @Test func aDamagedFileOfAKnownTypeIsRefusedAsCorrupt() throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.png)))
        bytes.replaceSubrange(12..<16, with: Array("JUNK".utf8))  // the IHDR chunk's type
        let path = directory.file("damaged.png")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let failure = try refusal(AttachmentRequest(url: path))
        #expect(failure.code == .corrupt)
        #expect(failure.appleCode == 105)
    }

    @Test func aStoreThatCannotBeMadeRefusesWith104() throws {
        let blocked = try directory.write("a file where the store's folder would be", to: "blocked")
        let failure = try refusal(AttachmentRequest(url: try samplePNG()), in: AttachmentStore(directory: blocked + "/attachments"))
        #expect(failure.code == .moveIntoDataStoreFailed)
        #expect(failure.appleCode == 104)
        #expect(FileManager.default.fileExists(atPath: directory.file("photo.png")))
    }

    // MARK: Accepted

    @Test func aMovedFileLeavesItsPlaceAndIsPrivate() throws {
        let path = try samplePNG()
        let admitted = try store.admit(AttachmentRequest(identifier: "photo", url: "file://" + path), as: .move).get()
        #expect(admitted.transfer == .moved)
        #expect(admitted.source == path)
        #expect(!FileManager.default.fileExists(atPath: path))
        let stored = admitted.attachment
        #expect(stored.identifier == "photo")
        #expect(stored.type == "public.png")
        #expect(stored.size == UInt64(try Data(contentsOf: URL(fileURLWithPath: Self.png)).count))
        #expect(store.contains(stored.path))
        #expect(stored.path.hasSuffix(".png"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: stored.path)) == Data(contentsOf: URL(fileURLWithPath: Self.png)))
        #expect(mode(of: stored.path) == 0o600)
        #expect(mode(of: store.directory) == 0o700)
    }

    @Test(arguments: MediaFixture.all)
    func everySupportedTypeIsAcceptedUnderItsOwnExtension(fixture: MediaFixture) throws {
        let path = directory.file("incoming-" + fixture.name)
        try Data(try fixture.bytes).write(to: URL(fileURLWithPath: path))
        let admitted = try store.admit(AttachmentRequest(url: path), as: .move).get()
        #expect(admitted.mediaType == fixture.type)
        #expect(admitted.attachment.type == fixture.type.identifier)
        #expect(admitted.attachment.path.hasSuffix("." + fixture.type.fileExtension))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: admitted.attachment.path))) == fixture.bytes)
    }

    @Test func aSupportedTypeUnderAMisleadingNameIsTakenForWhatItIs() throws {
        let path = directory.file("cover.png")
        try Data(try MediaFixture.named("tagged.mp3")).write(to: URL(fileURLWithPath: path))
        let admitted = try store.admit(AttachmentRequest(url: path), as: .move).get()
        #expect(admitted.attachment.type == "public.mp3")
        #expect(admitted.attachment.path.hasSuffix(".mp3"))
    }

    @Test(arguments: [("audio.wav", UInt64(5_000_001), "audio attachments may be at most 5 MB"),
                      ("video.avi", UInt64(50_000_001), "video attachments may be at most 50 MB")])
    func eachFamilyHasItsSizeLimit(name: String, size: UInt64, message: String) throws {
        let path = directory.file(name)
        try Data(try MediaFixture.named(name)).write(to: URL(fileURLWithPath: path))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: size)
        try handle.close()
        let failure = try refusal(AttachmentRequest(url: path))
        #expect(failure.code == .invalidFileSize)
        #expect(failure.diagnostic.message.contains(message))
    }

    @Test func aCopiedFileStaysInItsPlace() throws {
        let path = try samplePNG()
        let admitted = try store.admit(AttachmentRequest(url: path), as: .copy).get()
        #expect(admitted.transfer == .copied)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(mode(of: admitted.attachment.path) == 0o600)
    }

    @Test func anEmptyIdentifierIsGenerated() throws {
        let first = try store.admit(AttachmentRequest(url: try samplePNG("a.png")), as: .move).get()
        let second = try store.admit(AttachmentRequest(url: try samplePNG("b.png")), as: .move).get()
        #expect(first.attachment.identifier.count == 36)
        #expect(first.attachment.identifier != second.attachment.identifier)
        #expect(first.attachment.path != second.attachment.path)
    }

    @Test func aMovedFileWithOtherHardLinksLosesOnlyTheNameItWasNamedBy() throws {
        let path = try samplePNG()
        let other = directory.file("other-name.png")
        try FileManager.default.linkItem(atPath: path, toPath: other)
        let admitted = try store.admit(AttachmentRequest(url: path), as: .move).get()
        #expect(admitted.transfer == .moved)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: other), "the file's other name is not the store's to remove")
        // Writing through the other name does not change the stored attachment.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: other))
        #expect(try Data(contentsOf: URL(fileURLWithPath: admitted.attachment.path)) == Data(contentsOf: URL(fileURLWithPath: Self.png)))
    }

    @Test func aFileOnAnotherFileSystemIsMovedLikeAnyOther() throws {
        var shared = stat(), temporary = stat()
        guard stat("/dev/shm", &shared) == 0, stat(directory.path, &temporary) == 0, shared.st_dev != temporary.st_dev
        else {
            // Nothing to prove here: /dev/shm is on the test directory's file system.
            return
        }
        let path = "/dev/shm/tidings-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).png"
        try FileManager.default.copyItem(atPath: Self.png, toPath: path)
        defer { unlink(path) }
        let admitted = try store.admit(AttachmentRequest(url: path), as: .move).get()
        #expect(admitted.transfer == .moved)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(store.contains(admitted.attachment.path))
    }

    @Test func anAttachmentRefusedAmongSeveralTakesTheOthersBackOut() throws {
        let good = try samplePNG("good.png")
        let bad = try directory.write("not an image", to: "bad.png")
        let requests = [AttachmentRequest(identifier: "good", url: good), AttachmentRequest(identifier: "bad", url: bad)]
        guard case .failure(let failure) = store.admit(all: requests, as: .move) else {
            Issue.record("admitted")
            return
        }
        #expect(failure.code == .unrecognizedType)
        #expect(store.fileNames().isEmpty)
        #expect(FileManager.default.fileExists(atPath: good), "the moved file is back in its place")
        #expect(try Data(contentsOf: URL(fileURLWithPath: good)) == Data(contentsOf: URL(fileURLWithPath: Self.png)))
    }

    @Test func anAttachmentAlreadyInTheStoreIsCopiedAndStaysWithItsNotification() throws {
        let first = try store.admit(AttachmentRequest(url: try samplePNG()), as: .move).get()
        let again = try store.admit(AttachmentRequest(url: first.attachment.path), as: .move).get()
        guard case .copiedInstead = again.transfer else {
            Issue.record("transfer: \(again.transfer)")
            return
        }
        #expect(FileManager.default.fileExists(atPath: first.attachment.path))
        #expect(again.attachment.path != first.attachment.path)
        #expect(store.fileNames().count == 2)
    }

    @Test func aRolledBackMoveLeavesTheFileAsItWas() throws {
        let good = try samplePNG("good.png")
        #expect(chmod(good, 0o644) == 0)
        var before = stat(), after = stat()
        #expect(stat(good, &before) == 0)
        let bad = try directory.write("not an image", to: "bad.png")
        _ = store.admit(all: [AttachmentRequest(url: good), AttachmentRequest(url: bad)], as: .move)
        #expect(stat(good, &after) == 0)
        #expect(after.st_ino == before.st_ino, "the file itself never left its place")
        #expect(mode(of: good) == 0o644)
    }

    @Test func takingBackAMovedAttachmentReturnsItToItsPlace() throws {
        let path = try samplePNG()
        let admitted = try store.admit(AttachmentRequest(url: path), as: .move).get()
        store.takeBack(admitted)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(store.fileNames().isEmpty)
        let copied = try store.admit(AttachmentRequest(url: path), as: .copy).get()
        store.takeBack(copied)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(store.fileNames().isEmpty)
    }

    @Test func aStoreThatIsALinkIsRefused() throws {
        let elsewhere = directory.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let linked = directory.file("linked-store")
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: elsewhere)
        let failure = try refusal(AttachmentRequest(url: try samplePNG()), in: AttachmentStore(directory: linked))
        #expect(failure.code == .moveIntoDataStoreFailed)
        #expect(failure.diagnostic.message.contains("\(linked) is a symbolic link, which Tidings never follows"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test func aStoreNamedWithATrailingSlashKnowsItsFiles() throws {
        let slashed = AttachmentStore(directory: store.directory + "/")
        let admitted = try slashed.admit(AttachmentRequest(url: try samplePNG()), as: .copy).get()
        #expect(slashed.contains(admitted.attachment.path))
        slashed.remove([admitted.attachment])
        #expect(slashed.fileNames().isEmpty)
    }

    @Test(arguments: ["file:///tmp/a%00b.png", "file:///tmp/%FF.png"])
    func aFileURLDecodingToNoFileNameIsRefused(url: String) throws {
        let failure = try refusal(AttachmentRequest(url: url))
        #expect(failure.code == .invalidURL)
    }

    @Test func aFileURLIsPercentDecoded() throws {
        let path = try samplePNG("with space é.png")
        let url = "file://localhost" + path.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "é", with: "%C3%A9")
        let admitted = try store.admit(AttachmentRequest(url: url), as: .copy).get()
        #expect(admitted.source == path)
    }

    @Test func removingTouchesOnlyTheStoresFiles() throws {
        let admitted = try store.admit(AttachmentRequest(url: try samplePNG()), as: .copy).get()
        let outside = NotificationAttachment(identifier: "x", type: "public.png", path: directory.file("photo.png"))
        store.remove([admitted.attachment, outside])
        #expect(store.fileNames().isEmpty)
        #expect(FileManager.default.fileExists(atPath: outside.path))
    }

    @Test func aStoreDirectoryOpenToOthersIsMadePrivate() throws {
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        _ = try store.admit(AttachmentRequest(url: try samplePNG()), as: .copy).get()
        #expect(mode(of: store.directory) == 0o700)
    }

    @Test func theDefaultStoreIsBelowTheStateDirectory() {
        #expect(AttachmentStore.defaultDirectory(in: ["XDG_STATE_HOME": "/state", "HOME": "/home/u"])
            == "/state/tidings/attachments")
        #expect(AttachmentStore.defaultDirectory(in: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"])
            == "/home/u/.local/state/tidings/attachments")
        #expect(AttachmentStore.defaultDirectory(in: [:]) == nil)
    }
}
