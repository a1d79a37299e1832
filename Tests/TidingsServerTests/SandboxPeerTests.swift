import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsServer

/// Sandboxed peers cannot lie: a client in a Flatpak-like sandbox (bwrap
/// with a `/.flatpak-info` as Flatpak writes one) arrives as an app
/// connection of the sandbox's app id and is refused when it claims
/// another app or a front end; a peer whose process cannot be inspected is
/// no front end.
@Suite struct SandboxPeerTests {
    let fixture = ServerFixture()

    /// `/.flatpak-info` as Flatpak writes it.
    static let flatpakInfo = """
        [Application]
        name=org.example.Pills
        runtime=runtime/org.freedesktop.Platform/x86_64/23.08

        [Instance]
        instance-id=2093477981
        branch=stable
        arch=x86_64
        flatpak-version=1.14.4
        session-bus-proxy=true
        system-bus-proxy=true

        [Context]
        shared=network;ipc;
        sockets=x11;wayland;pulseaudio;

        """

    /// A small client: connects to argv[1], optionally makes itself not
    /// dumpable (argv[2] == "undumpable"), sends each later argument (a
    /// method and its params, "method {json}") and prints each answer as a line.
    static let client = """
        import ctypes, json, socket, sys
        path, mode, calls = sys.argv[1], sys.argv[2], sys.argv[3:]
        if mode == "undumpable":
            ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        f = s.makefile("rwb")
        for number, call in enumerate(calls, 1):
            method, _, params = call.partition(" ")
            request = {"jsonrpc": "2.0", "id": number, "method": method}
            if params:
                request["params"] = json.loads(params)
            f.write((json.dumps(request) + "\\n").encode())
            f.flush()
            while True:
                answer = json.loads(f.readline())
                if answer.get("id") == number:
                    break
            print(json.dumps(answer), flush=True)
        """

    /// Debian's python3 (the client needs nothing else).
    static let python = "/usr/bin/python3"

    /// Runs the client with `calls`, in a bwrap sandbox with a
    /// `/.flatpak-info` when `flatpak`; its answers, one per call.
    func run(_ calls: [String], flatpak: Bool, mode: String = "plain") throws -> [JSON] {
        let script = try fixture.directory.write(Self.client, to: "client.py")
        var command = [Self.python, script, fixture.socketPath, mode] + calls
        if flatpak {
            let info = try fixture.directory.write(Self.flatpakInfo, to: "flatpak-info")
            let bwrap = try #require(ProcessRunner.which("bwrap"), "bwrap is not installed")
            // A root of its own (a tmpfs), as Flatpak makes one: /usr, /proc, /dev, the test's
            // directory, and /.flatpak-info, which the host's root never gets.
            command = [bwrap, "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                       "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
                       "--bind", fixture.directory.path, fixture.directory.path,
                       "--ro-bind", info, "/.flatpak-info", "--unshare-pid", "--die-with-parent"] + command
        }
        let result = try ProcessRunner.run(command[0], Array(command.dropFirst()))
        try #require(result.status == 0, "the client failed: \(result.standardError)")
        return try result.standardOutput.split(separator: "\n").map { try JSON.parse(Array($0.utf8)) }
    }

    @Test func aFlatpakPeerIsItsSandboxsAppAndCannotClaimAnother() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "Debian's python3 is needed")
        try fixture.start()
        let answers = try run([
            "server.describe",
            #"server.hello {"role": "frontEnd"}"#,
            #"server.hello {"role": "app", "app": "org.example.Impostor"}"#,
            #"authorization.decide {"app": "org.example.Pills", "decision": "allow"}"#,
            #"badge.set {"app": "org.example.Other", "count": 1}"#,
            #"server.hello {"role": "app", "app": "org.example.Pills"}"#,
            #"badge.set {"count": 3}"#,
        ], flatpak: true)
        try #require(answers.count == 7)
        let connection = answers[0]["result"]?["connection"]
        #expect(connection?["role"] == .string("app") && connection?["app"] == .string("org.example.Pills"), "\(answers[0])")
        #expect(connection?["sandbox"] == .object([("kind", .string("flatpak")), ("app", .string("org.example.Pills")),
                                                    ("instance", .string("2093477981"))]))
        #expect((connection?["peer"]?["pid"]?.integerValue ?? 0) > 0)
        for refused in answers[1...4] {
            #expect(refused["error"]?["code"] == .integer(-32011), "\(refused)")
        }
        #expect(answers[5]["result"]?["sandbox"]?["kind"] == .string("flatpak"))
        #expect(answers[6]["result"]?["app"] == .string("org.example.Pills"))
    }

    @Test func theSameClientOutsideASandboxIsAFrontEnd() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "Debian's python3 is needed")
        try fixture.start()
        let answers = try run(["server.describe", #"authorization.decide {"app": "org.example.Pills", "decision": "allow"}"#],
                              flatpak: false)
        #expect(answers.first?["result"]?["connection"]?["role"] == .string("frontEnd"))
        #expect(answers.first?["result"]?["connection"]?["sandbox"] == .null)
        #expect(answers.last?["result"]?["status"] == .string("authorized"))
    }

    /// A peer that made itself not dumpable cannot be inspected by a server
    /// that is not root (root may read any process's root): it is no front end.
    @Test func anUninspectablePeerIsNoFrontEnd() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "Debian's python3 is needed")
        try fixture.start()
        let answers = try run([
            "server.describe",
            #"authorization.decide {"app": "org.example.Pills", "decision": "allow"}"#,
            #"server.hello {"role": "frontEnd"}"#,
            #"server.hello {"role": "app", "app": "org.example.Pills"}"#,
            #"badge.set {"count": 1}"#,
        ], flatpak: false, mode: "undumpable")
        try #require(answers.count == 5)
        if geteuid() == 0 {
            #expect(answers[0]["result"]?["connection"]?["role"] == .string("frontEnd"))
            return
        }
        #expect(answers[0]["result"]?["connection"]?["role"] == .string("app"))
        #expect(answers[0]["result"]?["connection"]?["app"] == .null)
        #expect(answers[1]["error"]?["code"] == .integer(-32011), "\(answers[1])")
        #expect(answers[2]["error"]?["code"] == .integer(-32011), "\(answers[2])")
        #expect(answers[3]["result"]?["app"] == .string("org.example.Pills"))
        #expect(answers[4]["result"]?["badge"] == .integer(1))
    }

    @Test func sandboxFilesNameTheirApp() {
        let flatpak = SandboxFiles.flatpak(info: Self.flatpakInfo)
        #expect(flatpak == PeerSandbox(kind: .flatpak, app: "org.example.Pills", instance: "2093477981"))
        #expect(SandboxFiles.flatpak(info: "[Instance]\nname=org.example.NotTheApp\n") == nil)
        #expect(SandboxFiles.flatpak(info: "") == nil)
        #expect(SandboxFiles.snap(label: "snap.pills.pills (enforce)") == PeerSandbox(kind: .snap, app: "pills", instance: "pills"))
        #expect(SandboxFiles.snap(label: "unconfined") == nil)
        #expect(SandboxFiles.snap(label: "/usr/bin/evince (enforce)") == nil)
        let cgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.pills.reminder-3f2e1a.scope\n"
        #expect(SandboxFiles.snap(cgroup: cgroup) == PeerSandbox(kind: .snap, app: "pills", instance: "reminder"))
        #expect(SandboxFiles.snap(cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n") == nil)
    }
}
