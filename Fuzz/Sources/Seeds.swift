import TidingsBase
import TidingsIsolation
import TidingsManifest
import TidingsProtocol
import TidingsRuntime

/// The seed corpus in `Fuzz/Corpus/TARGET/`: the repository's fixtures
/// (manifests, payloads, category and interface files), what the project's
/// own encoders make of them (the other property-list formats, RPC lines,
/// worker messages, journals and snapshots), and a few inputs for what the
/// fixtures do not reach. Written again by `Fuzz/run --seeds` when a format
/// changes; a file of the same name is replaced, other files are kept.
enum Seeds {
    /// Writes the seeds into `directory`; reads the fixtures relative to the
    /// current directory, the repository's root. False, with a message, when
    /// a fixture cannot be read or a seed cannot be written.
    static func write(into directory: String) -> Bool {
        do throws(Diagnostic) {
            var seeds: [(FuzzTarget, String, [UInt8])] = []
            let manifests = try files(in: ["Manifests", "Tests/TidingsManifestTests/Fixtures"], ending: ".plist")
            for (name, bytes) in manifests {
                let target: FuzzTarget = bytes.starts(with: "bplist".utf8) ? .plistBinary : .plistXML
                seeds.append((target, name, bytes))
                guard let value = try? PropertyList.decode(bytes).value else { continue }
                for (format, other) in [(PropertyListFormat.binary, FuzzTarget.plistBinary), (.json, .plistJSON)]
                where other != target {
                    if let converted = try? PropertyListEncoding.encode(value, as: format) {
                        seeds.append((other, Path.deletingExtension(of: name) + ".\(format.rawValue)", converted))
                    }
                }
            }
            let payloads = try files(in: ["Plugins/BuildStatus/Payloads", "Plugins/EventInvite/Payloads",
                                          "Plugins/InviteService/Payloads"], ending: ".json")
            let interfaces = try files(in: ["Plugins/BuildStatus", "Plugins/EventInvite"], ending: ".json")
            for (name, bytes) in payloads + [("localized.json", Array(localizedPayload.utf8))] {
                seeds.append((.payload, name, bytes))
                seeds.append((.json, name, bytes))
            }
            seeds += interfaces.map { (.json, "interface-" + $0.0, $0.1) }
            seeds += json.enumerated().map { (.json, "edge-\($0.offset).json", Array($0.element.utf8)) }
            seeds += rpcLines(payloads).enumerated().map { (.rpc, "line-\($0.offset).json", $0.element) }
            seeds += try workerMessages(payloads).map { (.workerMessage, $0.0 + ".bin", $0.1.encoded) }
            seeds += journals(payloads).map { (.journal, $0.0, $0.1) }
            seeds += numbers.map { number in
                (.numbers, "number-\(number)", (0..<8).map { UInt8(truncatingIfNeeded: number.bitPattern >> (8 * $0)) })
            }
            for (target, name, bytes) in seeds {
                let folder = Path.join(directory, target.rawValue)
                if !FileSystem.isDirectory(folder) { try FileSystem.createDirectory(folder) }
                try FileSystem.writeFileAtomically(Path.join(folder, name), bytes)
            }
            print("wrote \(seeds.count) seeds into \(directory)")
            return true
        } catch {
            print("tidings-fuzz: \(error.message)")
            return false
        }
    }

    /// The files ending in `suffix` in each of `directories`, by name.
    private static func files(in directories: [String], ending suffix: String) throws(Diagnostic) -> [(String, [UInt8])] {
        var found: [(String, [UInt8])] = []
        for directory in directories {
            for name in try FileSystem.contentsOfDirectory(directory).sorted() where name.hasSuffix(suffix) {
                found.append((name, try FileSystem.readFile(Path.join(directory, name))))
            }
        }
        return found
    }

    /// Numbers at the edges of what the numeric parameters take, for `NumberChecks`.
    private static let numbers: [Double] = [90, 60, 0, -1, 0.5, 1e10, 1e10 + 1, 9.3e18, 1e300, -1e300, 2e19, 9999, 10_000,
                                            253_402_300_799, 253_402_300_800, .nan, .infinity]

    /// An APNs payload whose alert is localized with the payload target's strings.
    private static let localizedPayload = #"""
        {"aps": {"alert": {"title-loc-key": "INVITE", "title-loc-args": ["Ada", "Grace", "the offsite"],
                           "loc-key": "GREETING", "loc-args": ["Ada"], "subtitle-loc-key": "PERCENT"},
                 "badge": 3, "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.5},
                 "mutable-content": 1, "interruption-level": "time-sensitive", "relevance-score": 0.75,
                 "target-content-id": "offsite"},
         "nested": {"list": [1, 2.5, null, false]}}
        """#

    /// JSON texts for what the fixtures do not hold: escapes, surrogate
    /// pairs, numbers at the edges, deep nesting, a byte order mark.
    private static let json = [
        #"["\"\\\/\b\f\n\r\t", "\u00e9\u20ac\ud83d\ude00", "\u0000", "é€😀"]"#,
        #"[0, -0, 1e308, -1.7976931348623157e308, 5e-324, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.0, 1E+2, 0.1e-2]"#,
        #"{"a": {"b": {"c": [[[[[[[[{"d": []}]]]]]]]]}}, "a": null, "": true}"#,
        "\u{FEFF}{\"bom\": \"before\"}",
        " \t\r\n\"only a string\" \n",
    ]

    /// Requests as front ends send them: the README's session, a delivery of
    /// every payload, a registration of every category file, and a batch.
    private static func rpcLines(_ payloads: [(String, [UInt8])]) -> [[UInt8]] {
        var lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"server.describe"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"apps":["com.example.events"]}}"#,
            #"{"jsonrpc":"2.0","id":"r-4","method":"notifications.respond","params":{"identifier":"invite-1","action":"comment","text":"On my way"}}"#,
            #"{"jsonrpc":"2.0","method":"notifications.remove","params":{"identifiers":["invite-1"]}}"#,
            #"[{"jsonrpc":"2.0","id":5,"method":"notifications.list"},{"jsonrpc":"2.0","id":null,"method":"categories.list","params":[]}]"#,
        ].map { Array($0.utf8) }
        for (position, (name, bytes)) in payloads.enumerated() {
            guard let json = try? JSON.parse(bytes) else { continue }
            let request: JSON = name == "categories.json"
                ? .object([("jsonrpc", .string("2.0")), ("id", .integer(Int64(10 + position))),
                           ("method", .string("categories.register")), ("params", json)])
                : .object([("jsonrpc", .string("2.0")), ("id", .integer(Int64(10 + position))),
                           ("method", .string("notifications.deliver")),
                           ("params", .object([("identifier", .string(Path.deletingExtension(of: name))),
                                               ("payload", json)]))])
            lines.append(Array(request.serialized().utf8))
        }
        return lines
    }

    /// One message of every kind, carrying the payloads' notifications.
    private static func workerMessages(_ payloads: [(String, [UInt8])]) throws(Diagnostic) -> [(String, WorkerMessage)] {
        let notifications = payloads.compactMap { (name, bytes) -> UserNotification? in
            guard name != "categories.json", let json = try? JSON.parse(bytes) else { return nil }
            return Payload.decode(json, identifier: Path.deletingExtension(of: name), now: 1_764_000_000).notification
        }
        guard let notification = notifications.first, let request = notifications.last else {
            throw .error(.init("fuzz.seeds"), "No payload fixture decodes to a notification.")
        }
        var sandbox = WorkerSandboxSettings()
        sandbox.paths = [.init("/usr/lib", .readExecute), .init("/tmp/scratch", .readWrite), .init("/dev/null", .readWriteFiles)]
        sandbox.memoryLimit = 64 << 20
        sandbox.cpuTimePerCall = 2
        sandbox.cpuTimeTotal = 30
        sandbox.scratchSize = 16 << 20
        let failure = Diagnostic.error(.init("extension.load-failed"), "dlopen failed: libMissing.so: cannot open shared object file",
                                       at: .init(file: "/usr/share/tidings/extensions/EventInvite.appex/libEventInvite.so"))
        let actions = [NotificationAction(identifier: "accept", title: "Accept"),
                       NotificationAction(identifier: "decline", title: "Decline", options: .destructive),
                       NotificationAction(identifier: "comment", title: "Comment", options: [.authenticationRequired, .foreground],
                                          textInput: .init(buttonTitle: "Send", placeholder: "Add a comment"))]
        let calls: [HostCall] = [
            .log(.warning, "low on memory"), .setText(element: "eventTitle", text: "Team offsite"),
            .setTextColor(element: "eventResponse", color: 0x34C7_59FF), .setImage(element: "eventImage", attachment: "event-image"),
            .setImage(element: "eventImage", attachment: nil), .setHidden(element: "eventResponse", hidden: true),
            .setPreferredContentHeight(320), .setTitle("Offsite"), .setTitle(nil), .setActions(actions),
            .setMediaButton(.init(type: 1, frame: (10, 20, 44, 44), tint: Color(rgba: 0xFF00_00FF))),
            .setMediaButton(.init(type: 2, frame: nil, tint: nil)), .mediaPlayingStarted, .mediaPlayingPaused,
            .performDefaultAction, .dismiss, .invalid("set_text: the text is not UTF-8"),
        ]
        var messages: [(String, WorkerMessage)] = [
            ("hello", .hello(version: WorkerMessage.version, bundle: "/usr/share/tidings/extensions/EventInvite.appex",
                             manifest: nil, interface: nil, sandbox: sandbox, host: WorkerHostTable(abiVersion: 3, callRate: CallRate(perSecond: 200, burst: 50)))),
            ("create", .create(call: 1, instance: 1, mayOverrideTitle: true, service: false,
                               callRate: CallRate(perSecond: 200, burst: 50))),
            ("create-service", .create(call: 2, instance: 2, mayOverrideTitle: false, service: true, callRate: nil)),
            ("receive-notification", .receiveNotification(call: 3, instance: 1, notification: notification,
                                                          categoryActions: actions)),
            ("receive-response", .receiveResponse(call: 4, instance: 1, notification: notification, categoryActions: actions,
                                                  response: ResponseRequest(actionIdentifier: "comment", userText: "On my way"),
                                                  token: 7, deadline: 5_000_000_000)),
            ("receive-request", .receiveRequest(call: 5, instance: 2, request: request, token: 8, deadline: 30_000_000_000)),
            ("time-will-expire", .timeWillExpire(call: 6, instance: 2)), ("media-play", .mediaPlay(call: 7, instance: 1)),
            ("media-pause", .mediaPause(call: 8, instance: 1)), ("destroy", .destroy(call: 9, instance: 1)),
            ("attachment-made", .attachmentMade(.made(identifier: "event-image", type: "public.png", size: 4_096))),
            ("attachment-refused", .attachmentMade(.refused(code: 102))), ("attachment-failed", .attachmentMade(.failed(status: -5))),
            ("attachment-opened", .attachmentOpened(found: true)),
            ("element-event", .elementEvent(call: 10, instance: 1, event: .submit(element: "note", text: "See you"))),
            ("ready", .ready(handlesResponses: true, handlesMedia: false, handlesElementEvents: true,
                             sandbox: [SandboxLayer("seccomp", .active, ""), SandboxLayer("cgroup", .weakened, "cgroup v1")])),
            ("launch-failed", .launchFailed(failure)), ("done", .done(call: 3, failure: nil)),
            ("done-failed", .done(call: 4, failure: failure)),
            ("complete-response", .completeResponse(token: 7, instance: nil, option: 1)),
            ("complete-request", .completeRequest(token: 8, instance: 2, answer: ServiceAnswer(
                content: request.content, attachmentIdentifiers: ["photo"], problems: [failure]))),
            ("complete-request-original", .completeRequest(token: 8, instance: nil, answer: nil)),
            ("create-attachment", .createAttachment(instance: 2, attachment: AttachmentRequest(
                identifier: "photo", url: "file:///tmp/scratch/photo.png", typeHint: "public.png",
                thumbnail: ThumbnailOptions(hidden: false, clippingRect: .init(x: 0, y: 0, width: 1, height: 0.5), time: 0)))),
            ("open-attachment", .openAttachment(instance: 1, identifier: "event-image")),
            ("report", .report(.warning(.init("worker.stderr"), "the extension wrote to stderr"))),
        ]
        messages += calls.enumerated().map { ("host-call-\($0.offset)", .hostCall(instance: 1, call: $0.element)) }
        messages.append(("batch", .batch(calls.map { .hostCall(instance: 1, call: $0) } + [.done(call: 3, failure: nil)])))
        return messages
    }

    /// Journals and snapshots whose records are the payloads: whole, empty,
    /// of a later generation, cut short, damaged, and a snapshot.
    private static func journals(_ payloads: [(String, [UInt8])]) -> [(String, [UInt8])] {
        var journal = RecordFraming.header(.journal, generation: 0)
        for (_, bytes) in payloads { RecordFraming.appendFrame(bytes, to: &journal) }
        var damaged = journal
        damaged[RecordFraming.headerSize + RecordFraming.frameHeaderSize + 5] ^= 0x20
        var later = RecordFraming.header(.journal, generation: 3)
        RecordFraming.appendFrame([], to: &later)
        RecordFraming.appendFrame(payloads.first?.1 ?? [], to: &later)
        return [
            ("journal", journal), ("journal-empty", RecordFraming.header(.journal, generation: 0)),
            ("journal-generation-3", later), ("journal-torn", Array(journal.dropLast(7))), ("journal-damaged", damaged),
            ("snapshot", RecordFraming.snapshot(generation: 2, records: payloads.map(\.1))),
        ]
    }
}
