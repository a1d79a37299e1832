import Foundation
import TestSupport
import Testing

/// Shell completion offers the installed bundles where a command takes one
/// (uninstall, validate) and their apps for `--app`, asking the `tidings`
/// being completed (`tidings completions --installed`) in the directories
/// the command line's `--extensions` names, else on the search path.
@Suite struct InstalledCompletionTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("installed-completion")

    /// The samples installed in a directory of the test's own.
    func extensions() throws -> String {
        let directory = scratch.file("extensions")
        try tidings.installSamples(into: directory)
        return directory
    }

    /// What bash offers after `words` (the last being the one completed), `tidings` being the build's.
    func bash(_ words: [String], environment: [String: String] = [:]) throws -> Set<String> {
        let script = try scratch.write(try tidings.run("completions", "bash").standardOutput, to: "complete.bash")
        let quoted = ([Locations.product("tidings")] + words).map { "'\($0)'" }.joined(separator: " ")
        let program = "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count); _tidings; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try ProcessRunner.run("/bin/bash", ["-c", program], environment: [
            "HOME": tidings.home.path, "XDG_DATA_HOME": tidings.home.file("data"), "XDG_DATA_DIRS": tidings.home.file("system"),
            "TIDINGS_EXTENSIONS_PATH": "",
        ].merging(environment) { _, given in given })
        #expect(result.status == 0, "\(result.standardError)")
        return Set(result.standardOutput.split(separator: "\n").map(String.init))
    }

    @Test func theWordsAreTheInstalledIdentifiersNamesAndApps() throws {
        let directory = try extensions()
        let bundles = try tidings.run("completions", "--installed", "bundles", "--extensions", directory)
        #expect(bundles.status == 0)
        #expect(bundles.standardOutput == ["BuildStatus", "EventInvite", "NoOp", "com.example.bench.noop", "com.example.ci.build-status",
                                           "com.example.events.invite"].map { $0 + "\n" }.joined())
        let apps = try tidings.run("completions", "--installed", "apps", "--extensions", directory)
        #expect(apps.standardOutput == "com.example.bench\ncom.example.ci\ncom.example.events\n")
        #expect(try tidings.run("completions", "--installed", "widgets").status == 64)
    }

    @Test func bashOffersThemWhereACommandTakesThem() throws {
        let directory = try extensions()
        // uninstall: the bundles of the command line's --extensions, by identifier or name.
        #expect(try bash(["uninstall", "--extensions", directory, "com.example.e"]) == ["com.example.events.invite"])
        #expect(try bash(["uninstall", "--extensions", directory, "Ev"]) == ["EventInvite"])
        // validate: the bundles on the search path, beside the directories.
        let onPath = ["TIDINGS_EXTENSIONS_PATH": directory]
        #expect(try bash(["validate", "com.example.c"], environment: onPath) == ["com.example.ci.build-status"])
        // --app: the installed bundles' apps.
        #expect(try bash(["deliver", "payload.json", "--extensions", directory, "--app", "com.example.e"]) == ["com.example.events"])
        // Nothing installed: nothing offered, and no error.
        #expect(try bash(["uninstall", "com."]).isEmpty)
    }
}
