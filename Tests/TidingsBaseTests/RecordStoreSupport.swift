import Glibc
import TestSupport
@testable import TidingsBase

/// A fresh directory under the temporary directory, removed with everything
/// in it when the value goes away.
final class ScratchDirectory: Sendable {
    /// Its path.
    let path: String

    /// Creates the directory.
    init() {
        let parent = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(parent)/tidings-records-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        try? FileSystem.removeTree(path)
    }

    /// A path inside the directory.
    func file(_ name: String) -> String {
        path + "/" + name
    }
}

/// The payload of record `number`: its number, then filler whose length and
/// bytes depend on the number, now and then larger than a page.
func record(_ number: Int) -> [UInt8] {
    let filler = number % 50 == 49 ? 9_000 : number * 37 % 300
    return Array("record \(number) ".utf8) + [UInt8](repeating: UInt8(truncatingIfNeeded: number * 7), count: filler)
}

/// The bytes of the file at `path`.
func contents(_ path: String) throws -> [UInt8] {
    try FileSystem.readFile(path, limit: .max)
}

/// Writes `bytes` as the whole file at `path` (created with mode 0600),
/// without flushing: the way a test forges what a crash leaves.
func overwrite(_ path: String, with bytes: [UInt8]) throws {
    let file = try FileDescriptor(opening: path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
    try file.write(bytes)
}

/// The permission bits of `path`.
func permissions(_ path: String) -> mode_t {
    var info = stat()
    guard stat(path, &info) == 0 else { return 0 }
    return info.st_mode & 0o7777
}

/// The codes of `diagnostics`, in order.
func codes(_ diagnostics: [Diagnostic]) -> [Diagnostic.Code] {
    diagnostics.map(\.code)
}

/// A child process started with `posix_spawn`.
struct ChildProcess {
    /// Its process id.
    let id: pid_t
    /// The reading end of a pipe from its standard output.
    let output: Int32

    /// Starts `executable` with `arguments`, this process's environment plus
    /// `environment` (`NAME=value` strings), its standard output to a pipe
    /// and its standard error to the file `errorLog`.
    init(_ executable: String, _ arguments: [String], environment: [String], errorLog: String) throws {
        var ends: [Int32] = [-1, -1]
        // pipe2 is not imported; another thread's spawn between these calls
        // could inherit the pipe, which only delays its end-of-file.
        guard pipe(&ends) == 0 else { throw SystemError.current() }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let overridden = Set(environment.map { $0.prefix { $0 != "=" } })
        var inherited: [String] = []
        var variable = environ
        while let entry = variable.pointee {
            let text = String(cString: entry)
            if !overridden.contains(text.prefix { $0 != "=" }) { inherited.append(text) }
            variable += 1
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = (inherited + environment).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw SystemError(code: spawned)
        }
        id = child
        output = ends[0]
    }

    /// What the child wrote before `deadline` (see `MonotonicClock`), up to
    /// 64 KiB at a time; empty at the deadline, nil at the end of the output.
    func read(until deadline: UInt64) -> [UInt8]? {
        let now = MonotonicClock.now()
        guard now < deadline else { return [] }
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32((deadline - now) / 1_000_000) + 1)
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress!, $0.count) }
        if count < 0 { return errno == EINTR ? [] : nil }
        return count == 0 ? nil : Array(buffer[..<count])
    }

    /// Sends `SIGKILL`, reads the rest of the output, waits for the child
    /// and returns its wait status.
    func kill(collectingInto bytes: inout [UInt8]) -> Int32 {
        Glibc.kill(id, SIGKILL)
        let deadline = MonotonicClock.deadline(after: patience)
        while let more = read(until: deadline), MonotonicClock.now() < deadline { bytes += more }
        close(output)
        var status: Int32 = 0
        while waitpid(id, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}

/// The path of the running executable. The corresponding C function is `readlink`.
func currentExecutable() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/proc/self/exe"
}

extension RecordStore {
    /// Folds everything appended so far into a snapshot holding `records`,
    /// the two steps a server takes on two threads, here on one.
    func compact(into records: [[UInt8]]) throws(Diagnostic) {
        let generation = try startSegment()
        try writeSnapshot(generation: generation, records: records)
    }
}
