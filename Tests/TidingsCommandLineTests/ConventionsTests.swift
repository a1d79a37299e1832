import Foundation
import TestSupport
import Testing

/// The manual pages, shell completions and install step: made from the text
/// of `--help`, they must say what it says and work in the tools that read them.
@Suite struct ConventionsTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("conventions")

    /// The commands `tidings --help` lists.
    func commands() throws -> [String] {
        let overview = try tidings.run("--help").standardOutput
        let lines = overview.split(separator: "\n").drop { !$0.hasPrefix("Commands:") }.dropFirst()
        return lines.prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The options a command's `--help` lists, without their dashes.
    func options(of command: String) throws -> [String] {
        let help = try tidings.run(command, "--help").standardOutput
        return help.split(separator: "\n").filter { $0.hasPrefix("  --") }.map { line in
            String(line.dropFirst(4).prefix { $0 != " " })
        }
    }

    /// Runs a shell command line, failing the test with its error output when it fails.
    func shell(_ program: String, _ arguments: String..., environment: [String: String] = [:]) throws -> String {
        let result = try ProcessRunner.run("/usr/bin/env", [program] + arguments, environment: environment)
        #expect(result.status == 0, "\(program) \(arguments.joined(separator: " ")): \(result.standardError)")
        return result.standardOutput
    }

    @Test func theManualOfEveryCommandListsEveryOptionOfItsHelp() throws {
        let commands = try commands()
        #expect(commands.contains("manual") && commands.contains("completions") && commands.count >= 7)
        let overview = try tidings.run("manual").standardOutput
        for command in commands {
            #expect(overview.contains(".BR tidings\\-\(command.replacing("-", with: "\\-")) (1)"))
            let page = try tidings.run("manual", command)
            #expect(page.status == 0)
            #expect(page.standardOutput.contains(".TH TIDINGS\\-\(command.uppercased())"))
            for option in try options(of: command) {
                #expect(page.standardOutput.contains("\\fB\\-\\-\(option.replacing("-", with: "\\-"))\\fR"),
                        "tidings-\(command)(1) lacks --\(option)")
            }
        }
        let unknown = try tidings.run("manual", "delivr")
        #expect(unknown.status == 64 && unknown.standardError.contains("Did you mean deliver?"))
    }

    @Test func thePagesRenderWithoutWarningsAndManFindsThem() throws {
        let directory = scratch.file("man1")
        #expect(try tidings.run("manual", "--directory", directory).status == 0)
        for command in try commands() {
            let page = "\(directory)/tidings-\(command).1"
            let rendered = try ProcessRunner.run("/usr/bin/env", ["man", "--warnings", "-l", "-P", "cat", page],
                                                 environment: ["MANWIDTH": "80"])
            #expect(rendered.status == 0 && rendered.standardError.isEmpty, "\(page): \(rendered.standardError)")
            #expect(rendered.standardOutput.contains("tidings \(command)"))
        }
    }

    @Test func eachShellReadsItsCompletionScript() throws {
        for (shell, check) in [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])] {
            let script = try tidings.run("completions", shell)
            #expect(script.status == 0)
            let path = try scratch.write(script.standardOutput, to: "tidings.\(shell)")
            let result = try ProcessRunner.run("/usr/bin/env", check + [path])
            #expect(result.status == 0, "\(shell): \(result.standardError)")
        }
        #expect(try tidings.run("completions", "tcsh").status == 64)
    }

    /// What bash offers after `words`, the last being the one completed.
    func bashCompletions(_ words: [String]) throws -> Set<String> {
        let script = try scratch.write(try tidings.run("completions", "bash").standardOutput, to: "complete.bash")
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tidings; printf '%s\\n' \"${COMPREPLY[@]}\""
        return Set(try shell("bash", "-c", program).split(separator: "\n").map(String.init))
    }

    @Test func bashCompletesCommandsOptionsAndTheirValues() throws {
        #expect(try bashCompletions(["tidings", "del"]) == ["deliver"])
        #expect(try bashCompletions(["tidings", "deliver", "--isol"]) == ["--isolation"])
        #expect(try bashCompletions(["tidings", "serve", "--isolation", ""]) == ["in-process", "process"])
        #expect(try bashCompletions(["tidings", "deliver", "--previews", "n"]) == ["never"])
        #expect(try bashCompletions(["tidings", "manifest", "set-"]) == ["set-ratio"])
        for option in try options(of: "serve") {
            #expect(try bashCompletions(["tidings", "serve", "--\(option)"]).contains("--\(option)"))
        }
        // The manual takes a command's name: every other command's.
        let others = Set(try commands()).subtracting(["manual"])
        #expect(try bashCompletions(["tidings", "manual", ""]) == others)
    }

    @Test func theInstallStepPutsEverythingWhereItsToolsLook() throws {
        let prefix = scratch.file("prefix")
        let install = try ProcessRunner.run("/bin/bash", [Locations.repositoryFile("Scripts/install.sh"), "--prefix", prefix,
                                                          "--binary", Locations.product("tidings")])
        #expect(install.status == 0, "\(install.standardError)")
        for file in ["bin/tidings", "include/tidings/tidings.h", "lib/pkgconfig/tidings.pc", "share/man/man1/tidings.1",
                     "share/man/man1/tidings-serve.1", "share/bash-completion/completions/tidings",
                     "share/zsh/site-functions/_tidings", "share/fish/vendor_completions.d/tidings.fish",
                     "lib/systemd/user/tidings.service", "lib/systemd/user/tidings-desktop.service",
                     "share/xdg-desktop-portal/portals/tidings.portal", "share/xdg-desktop-portal/tidings-portals.conf",
                     "share/dbus-1/services/org.freedesktop.impl.portal.desktop.tidings.service"] {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "missing \(file)")
        }
        // man tidings, as a user would type it.
        let manual = try shell("man", "-P", "cat", "tidings", environment: ["MANPATH": "\(prefix)/share/man", "MANWIDTH": "80"])
        #expect(manual.contains("tidings-serve(1)"))
        // An extension compiles against the installed header with pkg-config's flags alone.
        let flags = try shell("pkg-config", "--cflags", "tidings", environment: ["PKG_CONFIG_PATH": "\(prefix)/lib/pkgconfig"])
        #expect(flags.contains("/prefix/include/tidings"))
        let source = try scratch.write("#include <tidings.h>\nint tidings_check = TIDINGS_ABI_VERSION;\n", to: "uses-header.c")
        let compiled = try ProcessRunner.run("/usr/bin/env", ["cc", "-fsyntax-only"]
            + flags.split(whereSeparator: \.isWhitespace).map(String.init) + [source])
        #expect(compiled.status == 0, "\(compiled.standardError)")
        // The unit starts the installed binary.
        let unit = try String(contentsOfFile: "\(prefix)/lib/systemd/user/tidings.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/tidings serve"))
        let desktop = try String(contentsOfFile: "\(prefix)/lib/systemd/user/tidings-desktop.service", encoding: .utf8)
        #expect(desktop.contains("ExecStart=\(prefix)/bin/tidings desktop"))
        // The notification portal's backend: the name the front end owns, the interface, activation of the installed binary.
        let portal = try String(contentsOfFile: "\(prefix)/share/xdg-desktop-portal/portals/tidings.portal", encoding: .utf8)
        #expect(portal.contains("DBusName=org.freedesktop.impl.portal.desktop.tidings\n"))
        #expect(portal.contains("Interfaces=org.freedesktop.impl.portal.Notification;"))
        #expect(portal.contains("UseIn=tidings;"))
        let conf = try String(contentsOfFile: "\(prefix)/share/xdg-desktop-portal/tidings-portals.conf", encoding: .utf8)
        #expect(conf.contains("[preferred]") && conf.contains("org.freedesktop.impl.portal.Notification=tidings"))
        let service = try String(contentsOfFile:
            "\(prefix)/share/dbus-1/services/org.freedesktop.impl.portal.desktop.tidings.service", encoding: .utf8)
        #expect(service.contains("Name=org.freedesktop.impl.portal.desktop.tidings\n"))
        #expect(service.contains("Exec=\(prefix)/bin/tidings desktop\n"))
    }
}

extension ConventionsTests {
    @Test func everyUsageLineNamesEveryOption() throws {
        for command in try commands() {
            let help = try tidings.run(command, "--help").standardOutput
            let usage = try #require(help.split(separator: "\n").first { $0.hasPrefix("Usage: ") })
            for option in try options(of: command) where option != "help" {
                let named = usage.split(whereSeparator: { " []|.".contains($0) }).contains("--\(option)")
                #expect(named, "tidings \(command)'s usage line lacks --\(option)")
            }
        }
    }
}
