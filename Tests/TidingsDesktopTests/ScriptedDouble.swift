import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

/// A test double that is a script run by Debian's
/// python3: it writes a JSON line on standard output for everything it
/// does (its log, `lines`), and reads commands, one a line, from a FIFO
/// (`send`). Stopped (by pid) when the value goes away.
final class ScriptedDouble: @unchecked Sendable {
    /// The double's process.
    let process: BackgroundProcess
    /// Its log: a JSON line per thing done.
    let log: String
    /// The FIFO it reads its commands from.
    private let commands: String
    /// The FIFO's writing end, opened at the first command.
    private var writer: FileHandle?
    /// What it is, for failure messages.
    private let label: String

    /// Runs the fixture `script` of Tests/Fixtures/UnifiedPush with
    /// `arguments` (the FIFO is the argument `fifoArgument` replaces), its
    /// files named after `label` in `directory`.
    convenience init(_ script: String, _ arguments: [String], label: String, in directory: TemporaryDirectory,
                     environment: [String: String] = [:]) throws {
        try self.init(path: Locations.repositoryFile("Tests/Fixtures/UnifiedPush/" + script), arguments, label: label,
                      in: directory, environment: environment)
    }

    /// Runs the script at `path` with `arguments` (the FIFO is the argument
    /// `fifoArgument` replaces), its files named after `label` in `directory`.
    init(path: String, _ arguments: [String], label: String, in directory: TemporaryDirectory,
         environment: [String: String] = [:]) throws {
        self.label = label
        let commands = directory.file("\(label).fifo")
        self.commands = commands
        log = directory.file("\(label).log")
        if access(commands, F_OK) != 0 { try #require(mkfifo(commands, 0o600) == 0, "cannot make \(label)'s FIFO") }
        process = try BackgroundProcess(debianPython, [path] + arguments.map { $0 == Self.fifoArgument ? commands : $0 },
                                        environment: environment, log: log)
    }

    /// Stands for the FIFO's path among the arguments.
    static let fifoArgument = "@FIFO"

    deinit {
        try? writer?.close()
        process.stop(with: SIGKILL)
    }

    /// What the double logged, in order.
    var lines: [JSON] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            line.hasPrefix("{") ? try? JSON.parse(Array(line.utf8)) : nil
        }
    }

    /// The lines with the member `key` for which `condition` holds.
    func lines(_ key: String, _ condition: (JSON) -> Bool = { _ in true }) -> [JSON] {
        lines.filter { $0[key] != nil && condition($0) }
    }

    /// Waits for the `count`-th line with the member `key` for which `condition` holds (1: the first).
    @discardableResult
    func waitFor(_ key: String, count: Int = 1, _ condition: (JSON) -> Bool = { _ in true }) throws -> JSON {
        var found: JSON?
        _ = eventually {
            let matching = lines(key, condition)
            found = matching.count >= count ? matching[count - 1] : nil
            return found != nil || !process.isRunning
        }
        return try #require(found, "\(label) logged no \(key) #\(count) that fits:\n\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Sends the command `line`.
    func send(_ line: String) throws {
        if writer == nil { writer = try FileHandle(forWritingTo: URL(fileURLWithPath: commands)) }
        writer?.write(Data((line + "\n").utf8))
    }
}
