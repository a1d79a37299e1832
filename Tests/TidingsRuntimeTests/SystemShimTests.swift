import Foundation
import Testing
import TestSupport

/// The worker's seccomp filter and Landlock domain (TidingsSystemShims) on
/// the running kernel. Tests/Fixtures/Sandbox/shim_check.c, compiled with the
/// shim's C sources, forks a child per check and prints "ok NAME" or
/// "FAIL NAME: detail"; it exits 1 when a check failed.
@Suite struct SystemShimTests {
    /// shim_check built into a directory others may read and enter, with a
    /// scratch directory anyone may write for its temporary files.
    struct Built {
        let directory = TemporaryDirectory("shims")
        let program: String
        let scratch: String

        init() throws {
            let shims = Locations.repositoryFile("Sources/TidingsSystemShims")
            let sources = try FileManager.default.contentsOfDirectory(atPath: shims).filter { $0.hasSuffix(".c") }
                .sorted().map { shims + "/" + $0 }
            program = try CCompiler.executable(
                sources + [Locations.repositoryFile("Tests/Fixtures/Sandbox/shim_check.c")],
                output: directory.file("shim_check"), includeDirectories: [shims + "/include"],
                libraries: ["pthread", "dl"])
            scratch = directory.file("scratch")
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
            // mkdtemp made the directory 0700: the unprivileged run must enter it and write below it.
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: scratch)
        }

        /// Runs the program, through `launcher` (a program and its options, as setpriv's) when one is given.
        func run(through launcher: [String] = []) throws -> ProcessResult {
            let command = launcher + [program]
            return try ProcessRunner.run(command[0], Array(command.dropFirst()), environment: ["TMPDIR": scratch],
                                         directory: directory.path)
        }
    }

    /// What the run printed, for a failed expectation.
    func report(_ result: ProcessResult) -> Comment {
        "exit \(result.status)\n\(result.standardOutput)\(result.standardError)"
    }

    @Test func everyCheckPasses() throws {
        let built = try Built()
        let result = try built.run()
        #expect(result.status == 0, report(result))
        #expect(!result.standardOutput.contains("FAIL"), report(result))
        #expect(result.standardOutput.contains("# all passed"), report(result))
    }

    /// Without privileges (the worker's usual case): seccomp and Landlock need
    /// no_new_privs, which the shims set, and no capability.
    @Test(.enabled(if: getuid() == 0 && ProcessRunner.which("setpriv") != nil, "needs root and setpriv"))
    func everyCheckPassesUnprivileged() throws {
        let built = try Built()
        let setpriv = try #require(ProcessRunner.which("setpriv"))
        let result = try built.run(through: [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"])
        #expect(result.status == 0, report(result))
        #expect(!result.standardOutput.contains("FAIL"), report(result))
        #expect(result.standardOutput.contains("# all passed (uid 65534)"), report(result))
    }
}
