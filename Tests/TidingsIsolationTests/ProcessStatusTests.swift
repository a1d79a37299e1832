import Glibc
import Testing
import TestSupport
import TidingsBase
@testable import TidingsIsolation

/// The one reader of `/proc` (`ProcessStatus`) and the digests a quarantine
/// is keyed by (`ContentDigests`), which open a file as the project's
/// checked opening does.
struct ProcessStatusTests {
    @Test func amountsAreReadInBytes() {
        let status = ProcessStatus(text: "Name:\tw\nState:\tT (stopped)\nVmHWM:\t   2048 kB\nVmData:\t12 MB\nThreads:\t3\n")
        #expect(status.bytes("VmHWM") == 2048 * 1024)
        #expect(status.bytes("VmData") == nil)
        #expect(status.bytes("VmRSS") == nil)
        #expect(status.numbers("Threads") == [3])
        #expect(status.isStopped)
        #expect(!ProcessStatus(text: "State:\tS (sleeping)\n").isStopped)
        #expect(ProcessStatus(text: "VmHWM:\t\(UInt64.max) kB\n").bytes("VmHWM") == nil)
    }

    @Test func thisProcessIsReadable() throws {
        let status = try #require(ProcessStatus(of: "self"))
        #expect(status.numbers("Threads").first ?? 0 >= 1)
        #expect(status.bytes("VmHWM") ?? 0 > 0)
        #expect(ProcessStatus.processes()?.contains("\(getpid())") == true)
    }

    @Test func aDigestIsOfARegularFileReachedWithoutALink() throws {
        let directory = TemporaryDirectory("digests")
        let file = directory.file("library.so")
        try FileSystem.writeFileAtomically(file, Array("abc".utf8), mode: 0o644)
        let digests = ContentDigests()
        #expect(digests.digest(of: file) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let link = directory.file("link.so")
        #expect(symlink(file, link) == 0)
        #expect(digests.digest(of: link) == "missing")
        let fifo = directory.file("fifo.so")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(digests.digest(of: fifo) == "missing")
        #expect(digests.digest(of: directory.path) == "missing")
        #expect(FaultLedger.digests(of: [file, link]).map(\.sha256) == [digests.digest(of: file), "missing"])
    }
}
