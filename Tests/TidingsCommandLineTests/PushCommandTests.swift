import Foundation
import Testing
import TestSupport

/// `tidings push register|list|unregister|status` against a scripted host
/// (`ScriptedHost`) answering the push methods as the protocol says: what
/// is sent, what is printed for people and for programs, and the command
/// line's errors. `PushCommandServerTests` runs them against a real `tidings serve`.
@Suite struct PushCommandTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("push")
    static let app = "com.example.chat"
    static let endpoint = "https://push.example.net/up/AbC123"
    static let publicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    /// A registration as the push methods answer it.
    static func registration(_ status: String, app: String = app, endpoint: String? = endpoint, message: String = "") -> String {
        #"{"app": "\#(app)", "token": "t-1", "endpoint": \#(endpoint.map { "\"\($0)\"" } ?? "null"), "publicKey": "\#(publicKey)", "auth": "\#(auth)", "status": "\#(status)", "distributor": "org.unifiedpush.Distributor.ntfy", "message": "\#(message)"}"#
    }

    /// A host answering `push.register` with `register` and `push.list` with `list`.
    func host(register: String = registration("registered"),
              list: String = #"{"registrations": [], "distributor": null, "status": "noFrontEnd"}"#,
              unregistered: Bool = true) throws -> ScriptedHost {
        try ScriptedHost(path: directory.file("host.sock")) { method, params in
            switch method {
            case "push.register": .result(register)
            case "push.list": .result(list)
            case "push.unregister":
                .result(#"{"app": "\#(params["app"] as? String ?? "")", "unregistered": \#(unregistered)}"#)
            default: .error(code: -32601, message: "No method \(method).")
            }
        }
    }

    @Test func registerPrintsTheDeviceTokenAndTheSubscriptionToHandTheServer() throws {
        let host = try host()
        let result = try tidings.run(["push", "register", "--app", Self.app, "--socket", host.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(host.call("push.register")?.params["app"] as? String == Self.app)
        let out = result.standardOutput
        #expect(out.hasPrefix("\(Self.app): registered with org.unifiedpush.Distributor.ntfy\n"), "\(out)")
        #expect(out.contains("  Endpoint      \(Self.endpoint)\n") && out.contains("  p256dh        \(Self.publicKey)\n")
                && out.contains("  auth          \(Self.auth)\n"))
        let line = try #require(out.split(separator: "\n").first { $0.hasPrefix("  Subscription  ") })
        let subscription = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(16).utf8)) as? [String: Any])
        #expect(subscription["endpoint"] as? String == Self.endpoint)
        #expect(subscription["keys"] as? [String: String] == ["p256dh": Self.publicKey, "auth": Self.auth])

        let json = try tidings.run(["push", "register", "--app", Self.app, "--socket", host.path, "--json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(json.status == 0 && answer["status"] as? String == "registered" && answer["token"] as? String == "t-1")
    }

    @Test func aRegistrationWithoutAnEndpointSaysWhy() throws {
        let pending = try host(register: Self.registration("pending", endpoint: nil))
        let waiting = try tidings.run(["push", "register", "--app", Self.app, "--socket", pending.path])
        #expect(waiting.status == 0 && waiting.standardOutput.contains("pending: tidings desktop is registering it"), "\(waiting.standardOutput)")
        #expect(waiting.standardOutput.contains("tidings push list shows it") && !waiting.standardOutput.contains("Endpoint"))
        pending.stop()

        let message = "No UnifiedPush distributor is on the session bus: install one, such as KUnifiedPush or ntfy's."
        let none = try host(register: Self.registration("noDistributor", endpoint: nil, message: message))
        let refused = try tidings.run(["push", "register", "--app", Self.app, "--socket", none.path])
        #expect(refused.status == 0 && refused.standardOutput.contains("no endpoint until one is installed"))
        #expect(refused.standardOutput.contains(message), "the server's message: \(refused.standardOutput)")
    }

    @Test func listPrintsATableAndStatusTheDistributor() throws {
        let list = #"{"registrations": [\#(Self.registration("registered")), \#(Self.registration("pending", app: "com.example.mail", endpoint: nil))], "distributor": "org.unifiedpush.Distributor.ntfy", "status": "registered"}"#
        let host = try host(list: list)
        let listed = try tidings.run(["push", "list", "--socket", host.path])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput == """
            Distributor: org.unifiedpush.Distributor.ntfy (tidings desktop registers the apps with it)
            APP               STATUS      ENDPOINT
            com.example.chat  registered  \(Self.endpoint)
            com.example.mail  pending     -
            2 registrations.

            """, "\(listed.standardOutput)")
        #expect(host.call("push.list")?.params.isEmpty == true)
        _ = try tidings.run(["push", "list", "--app", Self.app, "--socket", host.path])
        #expect(host.call("push.list", count: 2)?.params["app"] as? String == Self.app)

        let status = try tidings.run(["push", "status", "--socket", host.path])
        #expect(status.status == 0)
        #expect(status.standardOutput == """
            Distributor: org.unifiedpush.Distributor.ntfy (tidings desktop registers the apps with it)
            2 apps are registered for remote notifications (tidings push list).

            """, "\(status.standardOutput)")
        let json = try tidings.run(["push", "status", "--socket", host.path, "--json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(answer["distributor"] as? String == "org.unifiedpush.Distributor.ntfy")
        #expect((answer["registrations"] as? [Any])?.count == 2)
    }

    @Test func statusSaysWhatToInstallOrToStart() throws {
        let none = try host(list: #"{"registrations": [], "distributor": null, "status": "noDistributor"}"#)
        let missing = try tidings.run(["push", "status", "--socket", none.path])
        #expect(missing.status == 0)
        #expect(missing.standardOutput.hasPrefix("Distributor: none on the session bus\n"), "\(missing.standardOutput)")
        #expect(missing.standardOutput.contains("KUnifiedPush") && missing.standardOutput.contains("ntfy")
                && missing.standardOutput.contains("NextPush"))
        #expect(missing.standardOutput.hasSuffix("No app is registered for remote notifications.\n"))
        none.stop()

        let alone = try host(list: #"{"registrations": [], "distributor": null, "status": "noFrontEnd"}"#)
        let unconnected = try tidings.run(["push", "status", "--socket", alone.path])
        #expect(unconnected.standardOutput.contains("no tidings desktop has reported"), "\(unconnected.standardOutput)")
        #expect(unconnected.standardOutput.contains("Start tidings desktop"))
    }

    @Test func unregisterSaysWhetherThereWasARegistration() throws {
        let host = try host()
        let done = try tidings.run(["push", "unregister", "--app", Self.app, "--socket", host.path])
        #expect(done.status == 0 && done.standardOutput.hasPrefix("\(Self.app): unregistered"), "\(done.standardOutput)")
        #expect(host.call("push.unregister")?.params["app"] as? String == Self.app)
        host.stop()
        let never = try self.host(unregistered: false)
        let nothing = try tidings.run(["push", "unregister", "--app", Self.app, "--socket", never.path])
        #expect(nothing.status == 0 && nothing.standardOutput == "\(Self.app) was not registered for remote notifications.\n")
    }

    @Test func theCommandLineIsCheckedAndTheServersRefusalsMapToExitCodes() throws {
        let socket = directory.file("none.sock")
        for arguments in [["push"], ["push", "subscribe"], ["push", "register"], ["push", "unregister"],
                          ["push", "status", "--app", Self.app], ["push", "list", "extra"]] {
            let result = try tidings.run(arguments + ["--socket", socket])
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
        }
        let unserved = try tidings.run(["push", "status", "--socket", socket])
        #expect(unserved.status == 75 && unserved.standardError.contains("start one with"), "\(unserved.standardError)")

        let refusing = try ScriptedHost(path: directory.file("host.sock")) { _, _ in
            .error(code: -32013, message: "The push is refused.", data: #"{"code": "push.unknown-token"}"#)
        }
        let refused = try tidings.run(["push", "register", "--app", Self.app, "--socket", refusing.path])
        #expect(refused.status == 65 && refused.standardError.contains("The push is refused."), "\(refused.standardError)")
        refusing.stop()
        let old = try ScriptedHost(path: directory.file("old.sock")) { method, _ in .error(code: -32601, message: "No method \(method).") }
        let older = try tidings.run(["push", "list", "--socket", old.path])
        #expect(older.status == 75 && older.standardError.contains("older than this tidings"), "\(older.standardError)")
    }

    @Test func helpManualAndCompletionsKnowTheActions() throws {
        let help = try tidings.run("push", "--help")
        #expect(help.status == 0 && help.standardOutput.contains("Usage: tidings push register --app APP"))
        let manual = try tidings.run("manual", "push")
        #expect(manual.status == 0 && manual.standardOutput.contains(".TH TIDINGS\\-PUSH"))
        let script = try directory.write(try tidings.run("completions", "bash").standardOutput, to: "complete.bash")
        let program = "source '\(script)'; COMP_WORDS=(tidings push ''); COMP_CWORD=2; _tidings; printf '%s\\n' \"${COMPREPLY[@]}\""
        let offered = try ProcessRunner.run("/bin/bash", ["-c", program]).standardOutput
        #expect(Set(offered.split(separator: "\n").map(String.init)).isSuperset(of: ["register", "list", "unregister", "status"]),
                "\(offered)")
    }
}
