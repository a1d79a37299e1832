import Foundation
import Testing
import TestSupport

/// Hostile bundles handed to `tidings install`: it never reads a library
/// whole, never follows a link or opens a special file it is to copy
/// (`--force` included), and cleans what a killed install left. Run as root
/// and as an unprivileged user (see AttackTests.swift's header for the command).
@Suite struct InstallAttackTests {
    let tidings = Tidings()
    let work = TemporaryDirectory("install-attack")

    /// The sample manifest and library, copied into the test's directory.
    func sample() throws -> (manifest: String, library: String) {
        let manifest = work.file("EventInvite.plist")
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Manifests/EventInvite.plist"), toPath: manifest)
        let library = work.file("libEventInvite.so")
        try FileManager.default.copyItem(atPath: Locations.product("libEventInvite.so"), toPath: library)
        return (manifest, library)
    }

    /// What `directory` holds, hidden entries included; none when it does not exist.
    func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test func aSparseTenGibibyteLibraryIsInstalledInBoundedMemory() throws {
        let (manifest, real) = try sample()
        // A valid ELF header, then 10 GiB of holes: reading it whole would need 10 GiB.
        let library = work.file("libEventInvite-big.so")
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: real)).readData(ofLength: 64)
        try #require(FileManager.default.createFile(atPath: library, contents: header))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library))
        try handle.truncate(atOffset: 10 << 30)
        try handle.close()
        let extensions = work.file("extensions")
        // Its peak resident memory, read by its parent when it ended: a whole read of the library would
        // touch 10 GiB. (Not an address-space limit: a sanitizer's runtime reserves terabytes for its shadow.)
        let result = try ProcessRunner.run("/usr/bin/python3", [
            "-c", "import resource, subprocess, sys; status = subprocess.call(sys.argv[1:]); "
                + "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(status)",
            Locations.product("tidings"), "install", manifest, library, "--into", extensions, "--force",
        ], environment: ["HOME": tidings.home.path, "XDG_DATA_HOME": tidings.home.file("data"), "NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.standardError)")
        let peakKiB = Int(result.standardOutput.split(separator: "\n").last ?? "") ?? Int.max
        #expect(peakKiB < 512 << 10, "install's peak resident memory was \(peakKiB) KiB for a 10 GiB sparse library")
        let installed = extensions + "/EventInvite.appex/libEventInvite.so"
        var info = stat()
        #expect(stat(installed, &info) == 0)
        #expect(info.st_size == 10 << 30, "the copy has the library's size")
        #expect(Int64(info.st_blocks) * 512 < 64 << 20, "the copy stays sparse: \(info.st_blocks) blocks")
        #expect(entries(extensions) == ["EventInvite.appex"], "no staging directory is left")
    }

    @Test func aManifestLinkedToASecretIsRefusedEvenWithForce() throws {
        let (manifest, library) = try sample()
        let secret = try work.write("root:$6$secret-hash:19000:0:99999:7:::\n", to: "shadow")
        let link = work.file("Info.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
        let extensions = work.file("extensions")
        let result = try tidings.run(["install", link, library, "--into", extensions, "--force"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("[file.link]"), "\(result.standardError)")
        #expect(entries(extensions).isEmpty, "nothing was copied: \(entries(extensions))")
        _ = manifest
    }

    @Test(arguments: ["link", "fifo", "library-link"])
    func aResourceOrLibraryThatIsNoRegularFileIsRefused(_ kind: String) throws {
        let (manifest, library) = try sample()
        var arguments = ["install", manifest, library]
        let planted = work.file(kind == "library-link" ? "libLinked.so" : "MainInterface.json")
        switch kind {
        case "fifo":
            #expect(mkfifo(planted, 0o644) == 0)
            arguments.append(planted)
        case "link":
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: "/etc/passwd")
            arguments.append(planted)
        default:
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: library)
            arguments[2] = planted
        }
        let extensions = work.file("extensions")
        // A FIFO is refused without waiting for a writer: the deadline only keeps a regression from hanging the suite.
        let result = try tidings.run(arguments + ["--into", extensions, "--force"], deadline: 60)
        #expect(!result.timedOut)
        #expect(result.status != 0)
        #expect(result.standardError.contains(kind == "fifo" ? "is a FIFO, not a regular file" : "[file.link]"),
                "\(result.standardError)")
        #expect(entries(extensions).isEmpty)
    }

    @Test func aKilledInstallsStagingIsRemovedByTheNextWithoutFollowingItsLinks() throws {
        let (manifest, library) = try sample()
        let extensions = work.file("extensions")
        // What a killed install of another bundle left: a staging directory with a link to a directory
        // outside, and a planted link in the place of an old bundle's.
        let outside = work.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let precious = try work.write("keep me", to: "outside/precious")
        let abandoned = extensions + "/.Other.appex.new"
        try FileManager.default.createDirectory(atPath: abandoned, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: abandoned + "/escape", withDestinationPath: outside)
        try "half".write(toFile: abandoned + "/Info.plist", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: extensions + "/.EventInvite.appex.old", withDestinationPath: outside)
        let result = try tidings.run(["install", manifest, library, "--into", extensions])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(entries(extensions) == ["EventInvite.appex"])
        #expect(entries(outside) == ["precious"], "nothing outside was touched")
        #expect((try? String(contentsOfFile: precious, encoding: .utf8)) == "keep me")
    }
}
