import Foundation
import Glibc
import Testing
import TestSupport

/// Every file and directory Tidings keeps — cache, fault ledger, state,
/// attachment store, configuration, socket — with something planted in its
/// place: a FIFO, a directory for a file, a symbolic link, one of another
/// user's, one others can write. Each command that opens it stops at once with one line naming the
/// path and exit status 77; none waits, none follows the link. The commands
/// run as processes with a deadline, so that a hang fails the test.
@Suite struct KeptPathTests {
    let tidings = Tidings()
    /// Where links point: what must stay untouched.
    let elsewhere = TemporaryDirectory("elsewhere")

    /// A path Tidings keeps, and the commands that open it.
    enum KeptPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case cacheDirectory, cacheFile, stateDirectory, ledger, journal, snapshot, lock, attachments,
             configurationDirectory, configurationFile, socketDirectory, socket

        /// Below the test's home.
        var relative: String {
            switch self {
            case .cacheDirectory: "cache/tidings"
            case .cacheFile: "cache/tidings/index.v2"
            case .stateDirectory: "state/tidings"
            case .ledger: "state/tidings/faults.json"
            case .journal: "state/tidings/server.journal.0"
            case .snapshot: "state/tidings/server.snapshot"
            case .lock: "state/tidings/server.lock"
            case .attachments: "state/tidings/attachments"
            case .configurationDirectory: "config/tidings"
            case .configurationFile: "config/tidings/config.json"
            case .socketDirectory: "run"
            case .socket: "run/tidings.sock"
            }
        }

        enum Kind { case file, directory, socket }

        var kind: Kind {
            switch self {
            case .cacheDirectory, .stateDirectory, .attachments, .configurationDirectory, .socketDirectory: .directory
            case .socket: .socket
            default: .file
            }
        }

        /// What a file holds when it is what it must be.
        var content: String {
            switch self {
            case .ledger: #"{"bundles": {}}"#
            case .configurationFile: "{}"
            default: ""
            }
        }

        /// The commands (arguments, given the home) that open the path.
        func commands(home: String, payload: String) -> [[String]] {
            let list = ["list", "--isolation", "in-process"]
            let deliver = ["deliver", payload, "--app", "com.example", "--isolation", "in-process"]
            let serve = ["serve", "--stdio", "--isolation", "in-process"]
            switch self {
            case .cacheDirectory, .cacheFile, .ledger: return [list, deliver, serve]
            case .stateDirectory: return [list, serve]
            case .journal, .snapshot, .lock, .attachments: return [serve]
            case .configurationDirectory, .configurationFile: return [list]
            case .socketDirectory, .socket:
                return [["serve", "--socket", home + "/run/tidings.sock", "--isolation", "in-process"],
                        ["schedule", "--list", "--socket", home + "/run/tidings.sock"]]
            }
        }

        var testDescription: String { relative }
    }

    /// The environment: every XDG directory below the test's home.
    var environment: [String: String] {
        ["XDG_CACHE_HOME": tidings.home.file("cache"), "XDG_STATE_HOME": tidings.home.file("state"),
         "XDG_CONFIG_HOME": tidings.home.file("config"), "XDG_RUNTIME_DIR": tidings.home.file("runtime")]
    }

    /// Makes the directories above `path` (0700, the user's own).
    func makeParents(of path: KeptPath) throws {
        try FileManager.default.createDirectory(atPath: (tidings.home.file(path.relative) as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Makes at `place` what `path` must be: a directory (0700), a file
    /// (0600) with its content, or a socket no one listens on.
    func makeProper(_ path: KeptPath, at place: String) throws {
        switch path.kind {
        case .directory:
            try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        case .file:
            try Data(path.content.utf8).write(to: URL(fileURLWithPath: place))
            #expect(chmod(place, 0o600) == 0)
        case .socket:
            try Self.bindSocket(at: place)
        }
    }

    /// Runs each command that opens `path`, and checks that it stopped with
    /// one line naming `path` and `code`, exit status 77, before its deadline.
    func expectRefusal(of path: KeptPath, code: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let payload = try tidings.home.write(#"{"aps": {"alert": "Hello"}}"#, to: "payload.json")
        let place = tidings.home.file(path.relative)
        for command in path.commands(home: tidings.home.path, payload: payload) {
            let result = try tidings.run(command, environment: environment, deadline: 60)
            let name = "tidings \(command[0])"
            #expect(!result.timedOut, "\(name) waited on \(place)", sourceLocation: sourceLocation)
            #expect(result.status == 77, "\(name): \(result.standardError)", sourceLocation: sourceLocation)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(name): \(result.standardError)", sourceLocation: sourceLocation)
            #expect(lines.first?.contains("\(name): \(place): error: \(place) ") == true, "\(result.standardError)",
                    sourceLocation: sourceLocation)
            #expect(lines.first?.hasSuffix("[\(code)]") == true, "\(result.standardError)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: KeptPath.allCases)
    func aFIFOInPlaceOfAKeptPathIsRefusedWithoutWaiting(path: KeptPath) throws {
        try makeParents(of: path)
        #expect(mkfifo(tidings.home.file(path.relative), 0o600) == 0)
        try expectRefusal(of: path, code: "file.wrong-kind")
    }

    @Test(arguments: KeptPath.allCases.filter { $0.kind != .directory })
    func aDirectoryInPlaceOfAKeptFileIsRefused(path: KeptPath) throws {
        try makeParents(of: path)
        try FileManager.default.createDirectory(atPath: tidings.home.file(path.relative), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        try expectRefusal(of: path, code: "file.wrong-kind")
    }

    @Test(arguments: KeptPath.allCases)
    func aLinkInPlaceOfAKeptPathIsRefusedAndNotFollowed(path: KeptPath) throws {
        try makeParents(of: path)
        let target = elsewhere.file("target")
        try makeProper(path, at: target)
        try FileManager.default.createSymbolicLink(atPath: tidings.home.file(path.relative), withDestinationPath: target)
        let before = try FileManager.default.attributesOfItem(atPath: target)
        try expectRefusal(of: path, code: "file.link")
        let after = try FileManager.default.attributesOfItem(atPath: target)
        #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date, "written through the link")
        #expect(after[.size] as? Int == before[.size] as? Int)
        if path.kind == .directory { #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty) }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"), arguments: KeptPath.allCases)
    func aKeptPathOfAnotherUserIsRefused(path: KeptPath) throws {
        try makeParents(of: path)
        let place = tidings.home.file(path.relative)
        try makeProper(path, at: place)
        #expect(lchown(place, 65534, 65534) == 0)
        try expectRefusal(of: path, code: "file.foreign")
    }

    @Test(arguments: KeptPath.allCases)
    func aKeptPathOthersCanWriteIsRefused(path: KeptPath) throws {
        try makeParents(of: path)
        let place = tidings.home.file(path.relative)
        try makeProper(path, at: place)
        #expect(chmod(place, path.kind == .file ? 0o666 : 0o777) == 0)
        try expectRefusal(of: path, code: "file.open-to-others")
    }

    @Test func theDirectoriesTidingsMakesArePrivate() throws {
        let payload = try tidings.home.write(#"{"aps": {"alert": "Hello"}}"#, to: "payload.json")
        let result = try tidings.run(["deliver", payload, "--app", "com.example", "--isolation", "in-process"],
                                     environment: environment, deadline: 60)
        #expect(result.status == 0, "\(result.standardError)")
        let served = try tidings.run(["serve", "--stdio", "--isolation", "in-process"], environment: environment, deadline: 60)
        #expect(served.status == 0, "\(served.standardError)")
        for directory in ["cache", "cache/tidings", "state", "state/tidings", "state/tidings/attachments"] {
            let mode = try FileManager.default.attributesOfItem(atPath: tidings.home.file(directory))[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(directory)")
        }
        for file in ["cache/tidings/index.v2", "state/tidings/server.journal.0", "state/tidings/server.lock"] {
            let mode = try FileManager.default.attributesOfItem(atPath: tidings.home.file(file))[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }

    /// Leaves a socket file at `path` that no one listens on.
    static func bindSocket(at path: String) throws {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: Array(path.utf8) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0, "cannot bind \(path)")
        #expect(chmod(path, 0o600) == 0)
    }
}
