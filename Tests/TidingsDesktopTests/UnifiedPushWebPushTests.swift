import Foundation
import Testing
import TestSupport
import TidingsBase

/// pyenv's python3 (where pip installs), when it has PyPI's pywebpush; nil otherwise.
let webPushPython: String? = {
    guard let python = ProcessRunner.which("python3"),
          (try? ProcessRunner.run(python, ["-c", "import pywebpush, http_ece, cryptography"]))?.status == 0 else {
        print("SKIPPING the Web Push sender tests: no pywebpush for the python3 on PATH (python3 -m pip install pywebpush; .ci/run installs it)")
        return nil
    }
    return python
}()

/// Runs the fixture `script` (Tests/Fixtures/UnifiedPush) with `arguments` under `webPushPython`; its standard output.
/// A base64url value goes in the option's own argument (`--auth=VALUE`): it may begin with "-", which argparse
/// would take for an option.
func webPush(_ script: String, _ arguments: [String]) throws -> String {
    let result = try ProcessRunner.run(try #require(webPushPython), [Locations.repositoryFile("Tests/Fixtures/UnifiedPush/" + script)]
                                       + arguments, deadline: patience)
    try #require(result.status == 0, "\(script) failed (\(result.status)): \(result.standardOutput) \(result.standardError)")
    return result.standardOutput
}

/// What a real Web Push library sends reaches the server as it was sent:
/// pywebpush encrypts for a subscriber's keys (made by cryptography) and
/// POSTs to the endpoint the distributor double gave; the body the scripted
/// server receives in push.receive decrypts (http-ece) to the payload.
@Suite(.serialized, .enabled(if: canRunUnifiedPush && webPushPython != nil, "needs the D-Bus tests' tools and pywebpush"))
struct UnifiedPushWebPushTests {
    @Test func aMessagePywebpushSentReachesTheServerAsItWasSent() throws {
        let keys = try JSON.parse(Array(try webPush("webpush-keys.py", ["new"]).utf8))
        let publicKey = try #require(keys["publicKey"]?.stringValue), auth = try #require(keys["auth"]?.stringValue)
        let privateKey = try #require(keys["privateKey"]?.stringValue)
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-web")])
        try rig.startDistributor()
        try rig.startDesktop()
        let endpoint = try #require(try rig.waitForServerCall("push.endpoint")["endpoint"]?.stringValue)
        let payload = #"{"aps":{"alert":{"title":"Pushed","body":"from pywebpush"},"mutable-content":1}}"#
        let sent = try JSON.parse(Array(try webPush("webpush-send.py", ["--endpoint", endpoint, "--public-key=" + publicKey,
                                                                        "--auth=" + auth, "--payload", payload, "--vapid"]).utf8))
        #expect(sent["status"] == .integer(201), "\(sent)")
        let received = try rig.waitForServerCall("push.receive")
        let body = try #require(received["message"]?.stringValue)
        #expect(try webPush("webpush-keys.py", ["decrypt", privateKey, auth, body]) == payload)
    }
}
