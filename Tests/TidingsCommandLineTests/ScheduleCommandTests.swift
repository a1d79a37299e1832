import Foundation
import Testing
import TestSupport

/// `tidings schedule` against a real `tidings serve` on a socket of the
/// test's own: it answers at once, so nothing here waits for a trigger to
/// fire (firing is the server tests').
@Suite struct ScheduleCommandTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("schedule")
    static let app = "com.example.todo"

    /// Starts `tidings serve` with no extension, its state and socket in the test's directory, and `options`.
    func serve(_ options: [String] = []) throws -> (BackgroundProcess, String) {
        try tidings.serve(in: directory, options)
    }

    var log: String { (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? "" }

    /// A request file titled `title`, with `identifier` when given.
    func request(_ title: String, identifier: String? = nil) throws -> String {
        let named = identifier.map { #""identifier": "\#($0)", "# } ?? ""
        return try directory.write(#"{\#(named)"content": {"title": "\#(title)", "body": "Now."}}"#, to: "\(title).json")
    }

    /// Runs `tidings schedule` with `arguments` and `--socket socket`, in UTC.
    func schedule(_ arguments: [String], socket: String) throws -> ProcessResult {
        try tidings.run(["schedule"] + arguments + ["--socket", socket], environment: ["TZ": "UTC"])
    }

    /// The JSON `tidings schedule … --json` prints.
    func answer(_ arguments: [String], socket: String) throws -> [String: Any] {
        let result = try schedule(arguments + ["--json"], socket: socket)
        #expect(result.status == 0, "\(result.standardError)\nserver: \(log)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    @Test func scheduledRequestsAreListedSoonestFirstAndRemoved() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let tea = try schedule([try request("Tea"), "--app", Self.app, "--identifier", "tea", "--in", "1h30m"], socket: socket)
        #expect(tea.status == 0, "\(tea.standardError)\nserver: \(log)")
        #expect(tea.standardOutput.contains("Scheduled tea for \(Self.app)"))
        #expect(tea.standardOutput.contains("Next     "), "\(tea.standardOutput)")
        let standup = try schedule([try request("Standup"), "--app", Self.app, "--identifier", "standup", "--at", "08:30", "--repeats"],
                                   socket: socket)
        #expect(standup.status == 0, "\(standup.standardError)")
        #expect(standup.standardOutput.contains("every day at 08:30"))
        let water = try schedule([try request("Water"), "--app", Self.app, "--identifier", "water", "--every", "2d"], socket: socket)
        #expect(water.standardOutput.contains("every 2 d"), "\(water.standardOutput)\(water.standardError)")

        let listed = try schedule(["--list"], socket: socket)
        #expect(listed.status == 0, "\(listed.standardError)")
        // Soonest first: the 1 h 30 min before the 2 days (the next 08:30 comes where the day has it).
        let rows = listed.standardOutput.split(separator: "\n").dropFirst().prefix(3).compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(Set(rows) == ["tea", "standup", "water"], "\(listed.standardOutput)")
        #expect(rows.firstIndex(of: "tea")! < rows.firstIndex(of: "water")!, "\(listed.standardOutput)")
        #expect(listed.standardOutput.contains("3 pending requests."))

        let removed = try schedule(["--remove", "tea", "nothing", "--app", Self.app], socket: socket)
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(removed.standardOutput.contains("Removed tea (\(Self.app))."))
        #expect(removed.standardOutput.contains("Not pending for \(Self.app): nothing."))
        #expect(!(try schedule(["--list"], socket: socket)).standardOutput.contains("tea"))

        let all = try schedule(["--remove-all", "--app", Self.app], socket: socket)
        #expect(all.standardOutput.contains("Removed the 2 pending requests of \(Self.app)"), "\(all.standardOutput)")
        #expect(try schedule(["--list"], socket: socket).standardOutput == "No pending requests.\n")
    }

    @Test func jsonPrintsTheServersAnswers() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let file = try request("Tea", identifier: "tea")
        let first = try answer([file, "--app", Self.app, "--hour", "8", "--minute", "30"], socket: socket)
        #expect(first["identifier"] as? String == "tea")
        #expect(first["app"] as? String == Self.app)
        #expect(first["replaced"] as? Bool == false)
        #expect((first["dropped"] as? [Any])?.isEmpty == true)
        #expect(first.keys.contains("nextTriggerDate"))
        let again = try answer([file, "--app", Self.app, "--weekday", "mon", "--hour", "9", "--repeats"], socket: socket)
        #expect(again["replaced"] as? Bool == true)

        let pending = try #require(try answer(["--list", "--app", Self.app], socket: socket)["requests"] as? [[String: Any]])
        #expect(pending.count == 1)
        let trigger = try #require(pending.first?["trigger"] as? [String: Any])
        #expect(trigger["dateMatching"] as? [String: Int] == ["weekday": 2, "hour": 9])
        #expect(try answer(["--remove", "tea", "--app", Self.app], socket: socket)["removed"] as? [String] == ["tea"])
        #expect(try answer(["--location", "48.8566,2.3522,10"], socket: socket)["fired"] as? [Any] != nil)
    }

    @Test func aRegionFiresOnTheCrossingAPositionReports() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let scheduled = try schedule([try request("Milk"), "--app", Self.app, "--identifier", "milk",
                                      "--region", "48.8566,2.3522,100", "--region-id", "shop", "--on-entry"], socket: socket)
        #expect(scheduled.standardOutput.contains("on entering shop"), "\(scheduled.standardOutput)\(scheduled.standardError)")
        // The first position only tells where the device is; the next one crosses into the region.
        #expect(try schedule(["--location", "48.80,2.35"], socket: socket).standardOutput.hasPrefix("Nothing fired"))
        let entered = try schedule(["--location", "48.8566,2.3522,10"], socket: socket)
        #expect(entered.status == 0, "\(entered.standardError)")
        #expect(entered.standardOutput == "Fired:\n  milk (\(Self.app)) on entering its region\n")
    }

    @Test func whatThePendingLimitDropsIsPrinted() throws {
        let (server, socket) = try serve(["--pending-limit", "2"])
        defer { server.stop() }
        let file = try request("Tea")
        for (identifier, delay) in [("soon", "1h"), ("later", "2h")] {
            #expect(try schedule([file, "--app", Self.app, "--identifier", identifier, "--in", delay], socket: socket).status == 0)
        }
        let third = try schedule([file, "--app", Self.app, "--identifier", "sooner", "--in", "30m"], socket: socket)
        #expect(third.status == 0, "\(third.standardError)")
        #expect(third.standardOutput.contains("Dropped  later: the app's pending limit keeps the soonest-firing"), "\(third.standardOutput)")
    }

    @Test func aRequestComesFromStandardInputWithItsOwnTrigger() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let input = try directory.write(#"{"identifier": "kettle", "content": {"title": "Kettle"}, "trigger": {"timeInterval": 240, "repeats": false}}"#,
                                        to: "stdin.json")
        let result = try ProcessRunner.run("/bin/sh", ["-c", "\"$0\" schedule - --app \(Self.app) --socket \"$1\" < \"$2\"",
                                                      Locations.product("tidings"), socket, input], environment: ["NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Scheduled kettle"))
        #expect(result.standardOutput.contains("Trigger  in 4 min") || result.standardOutput.contains("Trigger  in 3 min"))
    }

    @Test func aTriggerTheServerRefusesShowsItsMessage() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let file = try request("Tea")
        let tooSoon = try schedule([file, "--app", Self.app, "--every", "30s"], socket: socket)
        #expect(tooSoon.status == 65)
        #expect(tooSoon.standardError.contains("at least 60 seconds"), "\(tooSoon.standardError)")
        #expect(tooSoon.standardError.split(separator: "\n").count == 1)
        let zero = try schedule([file, "--app", Self.app, "--in", "0"], socket: socket)
        #expect(zero.status == 65)
        #expect(zero.standardError.contains("greater than 0"), "\(zero.standardError)")
    }

    @Test func withoutAServerItSaysHowToStartOne() throws {
        let socket = directory.file("none.sock")
        let result = try schedule(["--list"], socket: socket)
        #expect(result.status == 75)
        #expect(result.standardError == "tidings schedule: error: No server listens at \(socket); start one with `tidings serve --socket \(socket)`. [cli.no-server]\n",
                "\(result.standardError)")
        let json = try schedule(["--list", "--json"], socket: socket)
        #expect(json.standardOutput.contains(#""exitCode": 75"#), "\(json.standardOutput)")
    }

    @Test func theCommandLineIsCheckedBeforeAnyServerIsAsked() throws {
        let socket = directory.file("none.sock")
        let file = try request("Tea")
        let apns = try directory.write(#"{"aps": {"alert": "Hi"}}"#, to: "apns.json")
        let refusals: [([String], Int32, String)] = [
            ([apns, "--in", "5m"], 65, "APNs payload"),
            ([file, "--in", "5m", "--at", "08:00"], 64, "--in and --at exclude each other"),
            ([file], 64, "Give a trigger"),
            ([file, "--in", "5 minutes"], 64, "--in takes a duration"),
            ([file, "--at", "25:00"], 64, "--at takes"),
            ([file, "--weekday", "someday"], 64, "--weekday takes"),
            ([file, "--in", "5m", "--time-zone", "UTC"], 64, "--time-zone goes with"),
            (["--remove", "tea"], 64, "needs --app"),
            (["--list", "--in", "5m"], 64, "--list takes no --in"),
            (["--location", "north"], 64, "--location takes LAT,LON[,ACCURACY]"),
            (["--location", "91,0"], 64, "--location: A latitude is -90 to 90 degrees"),
            (["--location", "0,0,-5"], 64, "--location: An accuracy is a finite number of metres"),
        ]
        for (arguments, status, message) in refusals {
            let result = try schedule(arguments, socket: socket)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }

    @Test func aDurationNoClockHoldsIsAUsageErrorAndTheServerGoesOn() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let file = try request("Tea")
        for duration in ["999999999999999999999d", "1e300", "10000000001s"] {
            let result = try schedule([file, "--app", Self.app, "--in", duration], socket: socket)
            #expect(result.status == 64, "\(duration): \(result.standardError)")
            #expect(result.standardError.contains("--in takes at most 10000000000 seconds"), "\(duration): \(result.standardError)")
        }
        let every = try schedule([file, "--app", Self.app, "--every", "999999999999999999999d"], socket: socket)
        #expect(every.status == 64 && every.standardError.contains("--every takes at most"), "\(every.standardError)")
        // The server was never asked, and answers.
        let listed = try schedule(["--list"], socket: socket)
        #expect(listed.status == 0, "\(listed.standardError)")
    }

    @Test func helpExplainsWithExamples() throws {
        let help = try tidings.run("schedule", "--help")
        #expect(help.status == 0)
        for text in ["--every DURATION", "--at DATE-OR-TIME", "--region LAT,LON,RADIUS", "--location LAT,LON[,ACCURACY]",
                     "tidings schedule --list", "--pending-limit", "Examples:"] {
            #expect(help.standardOutput.contains(text), "--help lacks \(text)")
        }
        #expect(try tidings.run("--help").standardOutput.contains("  schedule "))
    }
}
