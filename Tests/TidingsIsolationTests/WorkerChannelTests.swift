import RuntimeTestSupport
import Foundation
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsRuntime

/// The socket pair between the host and a worker: whole messages, in order,
/// with descriptors beside them; the ends of the channel; the limits.
@Suite struct WorkerChannelTests {
    /// Both ends as channels.
    func channels() throws -> (host: WorkerChannel, worker: WorkerChannel) {
        let pair = try WorkerChannel.pair()
        let host = pair.host
        return (host, WorkerChannel(adopting: pair.takeWorker().take()))
    }

    /// The inode of descriptor `file`; nil when it is not open.
    func inode(of file: Int32) -> (dev_t, ino_t)? {
        var info = stat()
        guard fstat(file, &info) == 0 else { return nil }
        return (info.st_dev, info.st_ino)
    }

    /// The descriptors of this process open on the file of `inode`.
    func descriptors(on inode: (dev_t, ino_t)) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap(Int32.init).filter {
            guard let other = self.inode(of: $0) else { return false }
            return other == inode
        }
    }

    @Test func messagesArriveWholeAndInOrder() throws {
        let (host, worker) = try channels()
        let messages: [[UInt8]] = [[1], [2, 3], Array(repeating: 7, count: 70_000), Array("hello".utf8), [0]]
        for message in messages { try host.send(message) }
        for message in messages {
            let received = try #require(try worker.receive())
            #expect(received.bytes == message)
            #expect(received.fileCount == 0)
        }
        try worker.send([42])
        #expect(try host.receive()?.bytes == [42])
    }

    @Test func descriptorsTravelBesideAMessage() throws {
        let directory = TemporaryDirectory("channel")
        let contents = ["first", "second file", "third"]
        let originals: [Int32] = try contents.enumerated().map { index, text in
            try FileDescriptor(opening: try directory.write(text, to: "\(index).txt"), O_RDONLY).take()
        }
        defer { for original in originals { close(original) } }
        let (host, worker) = try channels()
        try host.send([9, 9], files: originals)
        // Borrowed: the sender's descriptors are still open.
        for original in originals { #expect(fcntl(original, F_GETFD) >= 0) }

        let message = try #require(try worker.receive())
        #expect(message.bytes == [9, 9])
        #expect(message.fileCount == 3)
        for (index, text) in contents.enumerated() {
            guard let file = message.takeFile(at: index) else {
                Issue.record("descriptor \(index) did not arrive")
                continue
            }
            #expect(!originals.contains(file.rawValue))
            #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
            #expect(try file.read(at: 0, count: 100) == Array(text.utf8))
        }
        #expect(message.takeDescriptor(at: 0) == nil)
        #expect(message.takeDescriptor(at: 3) == nil)
        #expect(message.takeDescriptor(at: -1) == nil)
    }

    @Test func descriptorsNotTakenAreClosedWithTheMessage() throws {
        let directory = TemporaryDirectory("channel")
        let original = try FileDescriptor(opening: try directory.write("shared", to: "shared.txt"), O_RDONLY)
        let file = try #require(inode(of: original.rawValue))
        let (host, worker) = try channels()
        try host.send([1], files: [original.rawValue, original.rawValue, original.rawValue])

        var message = try #require(try worker.receive())
        let kept = FileDescriptor(adopting: try #require(message.takeDescriptor(at: 1)))
        let received = try descriptors(on: file).filter { $0 != original.rawValue && $0 != kept.rawValue }
        #expect(received.count == 2)
        message = try #require(try { try host.send([2]); return try worker.receive() }())

        // The message with the two not taken is gone: they are closed (or,
        // should another test have opened a descriptor since, not this file's).
        for descriptor in received {
            #expect(fcntl(descriptor, F_GETFD) == -1 || inode(of: descriptor).map { $0 != file } ?? true)
        }
        #expect(try descriptors(on: file).sorted() == [original.rawValue, kept.rawValue].sorted())
        #expect(message.bytes == [2])
    }

    @Test func receiveEndsWhenThePeerCloses() throws {
        let pair = try WorkerChannel.pair()
        let host = pair.host
        do {
            let worker = WorkerChannel(adopting: pair.takeWorker().take())
            try worker.send([1])
        }
        // What was sent before the close still arrives.
        #expect(try host.receive()?.bytes == [1])
        #expect(try host.receive() == nil)
        #expect(throws: WorkerChannel.Failure(.closed, systemError: SystemError(code: EPIPE))) {
            try host.send([2])
        }
    }

    @Test func shutdownWakesAWaitingReceive() throws {
        let (host, worker) = try channels()
        let result = Mutex<Result<Bool, WorkerChannel.Failure>?>(nil)
        let done = Latch()
        #expect(Threads.start {
            let outcome = Result { () throws(WorkerChannel.Failure) in try host.receive() == nil }
            result.withLock { $0 = outcome }
            done.open()
        })
        host.shutdown()
        #expect(done.wait(until: MonotonicClock.deadline(after: patience)))
        #expect(try result.withLock { $0 }?.get() == true)
        #expect(try host.receive() == nil)
        #expect(throws: WorkerChannel.Failure.self) { try host.send([1]) }
        // The other end sees the end too.
        #expect(try worker.receive() == nil)
        #expect(throws: WorkerChannel.Failure(.closed, systemError: SystemError(code: EPIPE))) {
            try worker.send([1])
        }
    }

    @Test func aSendTimesOutWhenThePeerNeverReads() throws {
        let (host, worker) = try channels()
        let chunk = [UInt8](repeating: 1, count: 64 * 1024)
        var failure: WorkerChannel.Failure?
        var sent = 0
        while failure == nil && sent < 1000 {
            do {
                try host.send(chunk, timeout: 0.02)
                sent += 1
            } catch {
                failure = error
            }
        }
        #expect(failure?.code == .timedOut)
        #expect(failure?.systemError == nil)
        #expect(sent > 0)
        // What was sent is intact, and there is room again once it is read.
        for _ in 0..<sent { #expect(try worker.receive()?.bytes == chunk) }
        try host.send([5], timeout: 0)
        #expect(try worker.receive()?.bytes == [5])
    }

    @Test func tooLargeMessagesAreRefused() throws {
        let (host, worker) = try channels()
        let largest = [UInt8](repeating: 3, count: WorkerChannel.maximumMessageSize)
        try host.send(largest)
        #expect(try worker.receive()?.bytes == largest)

        #expect(throws: WorkerChannel.Failure(.tooLarge)) { try host.send(largest + [0]) }
        let files = [Int32](repeating: 0, count: WorkerChannel.maximumFileCount + 1)
        #expect(throws: WorkerChannel.Failure(.tooLarge)) { try host.send([1], files: files) }
        let empty = WorkerChannel.Failure(.system, systemError: SystemError(code: EINVAL))
        #expect(throws: empty) { try host.send([]) }
        #expect(WorkerChannel.Failure(.tooLarge).description.hasPrefix("The message is larger than"))

        // A datagram larger than the receive buffer (sent around the
        // channel, which the send buffer `pair()` asks for allows) is dropped
        // as too large; the next one arrives.
        let oversize = [UInt8](repeating: 4, count: WorkerChannel.maximumMessageSize + 1024)
        let sent = oversize.withUnsafeBytes { Glibc.send(host.rawValue, $0.baseAddress, $0.count, 0) }
        try #require(sent == oversize.count, "the send buffer took \(sent) bytes: \(SystemError.current())")
        #expect(throws: WorkerChannel.Failure(.tooLarge)) { try worker.receive() }
        try host.send([6])
        #expect(try worker.receive()?.bytes == [6])
    }

    @Test func sendsFromSeveralThreadsDoNotInterleave() throws {
        let (host, worker) = try channels()
        let threads = 4
        let perThread = 50
        let finished = Mutex(0)
        let done = Latch()
        for thread in 0..<threads {
            Threads.start {
                for index in 0..<perThread {
                    let size = 1 + (index * 997 + thread * 131) % 20_000
                    try? host.send([UInt8](repeating: UInt8(thread), count: size))
                }
                if finished.withLock({ $0 += 1; return $0 }) == threads { done.open() }
            }
        }
        var counts = [Int](repeating: 0, count: threads)
        for _ in 0..<(threads * perThread) {
            let message = try #require(try worker.receive())
            let thread = Int(try #require(message.bytes.first))
            #expect(message.bytes.allSatisfy { Int($0) == thread })
            let index = counts[thread]
            #expect(message.bytes.count == 1 + (index * 997 + thread * 131) % 20_000)
            counts[thread] += 1
        }
        #expect(counts == [Int](repeating: perThread, count: threads))
        #expect(done.wait(until: MonotonicClock.deadline(after: patience)))
    }
}

extension WorkerChannel.Message {
    /// The `index`th descriptor's number, taken (the caller closes it); nil when there is none to take.
    func takeDescriptor(at index: Int) -> Int32? {
        guard let file = takeFile(at: index) else { return nil }
        return file.take()
    }
}
