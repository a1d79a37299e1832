import Glibc
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `tidings schedule`: local notifications on a running `tidings serve`:
/// schedule a request with a trigger, list the pending ones, remove them,
/// report the device's position.
enum ScheduleCommand: Command {
    static let spec = CommandSpec(
        name: "schedule",
        summary: "Schedule a local notification request on a running server (tidings serve) for a time interval, a date or a region; list, remove, or report a position.",
        usage: "PAYLOAD [--app APP] [--identifier ID] [--in DURATION | --every DURATION | --at DATE-OR-TIME | [--year N] [--month N] [--day N] [--hour N] [--minute N] [--second N] [--weekday DAY] [--weekday-ordinal N] [--week-of-month N] [--week-of-year N] [--time-zone ZONE] | --region LAT,LON,RADIUS [--region-id ID] [--on-entry] [--on-exit]] [--repeats] | --list [--app APP] | --remove ID... --app APP | --remove-all --app APP | --location LAT,LON[,ACCURACY]; any with [--json] [--socket PATH]",
        options: [
            .init(name: "app", value: "APP",
                  help: "The app the request is for (default, chosen by the command line: the one app that registered the request's category with the server, else the one app whose content extension serves it; the server itself requires one). With --list: that app's only. Needed by --remove and --remove-all."),
            .init(name: "identifier", value: "ID",
                  help: "The request's identifier (default: the file's \"identifier\", else one the server makes). A request pending with the same identifier is replaced."),
        ] + ScheduleTrigger.options + [
            .init(name: "list", value: nil, help: "List the pending requests, soonest first, each with its trigger in words and its next date."),
            .init(name: "remove", value: nil, help: "Remove the pending requests the arguments name, of --app."),
            .init(name: "remove-all", value: nil, help: "Remove every pending request of --app."),
            .init(name: "location", value: "LAT,LON[,ACCURACY]",
                  help: "Report the device's position (degrees; accuracy in metres), as a front end does: the regions it enters or leaves fire."),
            .init(name: "json", value: nil, help: "Print the server's answer as JSON."),
            SocketOption.option,
        ],
        arguments: .file,
        discussion: [
            "PAYLOAD is a request as JSON — {\"identifier\", \"content\": {\"title\", \"body\", \"categoryIdentifier\", \"threadIdentifier\", \"sound\", \"userInfo\", …}}, the same as tidings deliver takes — in a file, or - for standard input. It may carry its \"trigger\" ({\"timeInterval\": 90, \"repeats\": false}, {\"dateMatching\": {\"hour\": 8, \"minute\": 30}, \"repeats\": true}, {\"region\": {…}}) instead of the trigger options. An APNs payload ({\"aps\": …}) is a remote notification's and is refused: a local request has no aps dictionary.",
            "Triggers, with Apple's rules: --in fires once after a time interval (more than 0 s); --every repeats one (at least 60 s). --at and the calendar fields (--year --month --day --hour --minute --second --weekday --weekday-ordinal --week-of-month --week-of-year) match dates in the user's time zone (or --time-zone): a component left out matches any value when a smaller one is given (--minute 30 alone: every hour at half past), its smallest when only larger ones are (--hour 8 alone: 08:00:00). --region fires when a front end reports (--location, or location.update) a position that enters or leaves the circle. Without --repeats a request fires once and is no longer pending.",
            "The server keeps an app's 64 soonest-firing pending requests (tidings serve --pending-limit N): one more drops the latest-firing, and what was dropped is printed. Pending requests survive the server's restart; a one-shot whose time passed while it was down fires once at its start, marked late.",
            "Dates print in local time (TZ, else the system's zone) and relative to now.",
            "Exit status: 0 done (removing an identifier that is not pending is no error); 64 the command line is wrong; 65 the server refused the request (its message says why: an interval of 0, a repeating interval under 60 s, a component out of range, no app found); 66 PAYLOAD cannot be read; 75 no server listens at the socket (start one with tidings serve), or it is busy or too old; 77 the socket is not the user's own.",
        ],
        examples: [
            "tidings schedule reminder.json --app com.example.todo --in 1h30m",
            "tidings schedule standup.json --app com.example.todo --at 09:15 --repeats",
            "tidings schedule launch.json --app com.example.todo --at 2026-12-24T18:00",
            "tidings schedule weekly.json --app com.example.todo --weekday mon --hour 9 --repeats",
            "tidings schedule arrived.json --app com.example.todo --region 48.8566,2.3522,100 --region-id office --on-entry",
            "echo '{\"content\": {\"title\": \"Tea\"}}' | tidings schedule - --app com.example.todo --in 4m --identifier tea",
            "tidings schedule --list",
            "tidings schedule --remove tea standup --app com.example.todo",
            "tidings schedule --remove-all --app com.example.todo",
            "tidings schedule --location 48.8567,2.3522,10",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        let modes = ["list", "remove", "remove-all", "location"].filter { arguments.flag($0) }
        guard modes.count <= 1 else { throw .usage(modes.map { "--\($0)" }.joined(separator: " and ") + " exclude each other.") }
        if let mode = modes.first {
            let given = (ScheduleTrigger.options.map(\.name) + ["identifier"]).filter { arguments.flag($0) }
            guard given.isEmpty else { throw .usage("--\(mode) takes no --\(given[0]): triggers go with a request to schedule.") }
        }
        let json = arguments.flag("json")
        let text = ScheduleText(terminal: Terminal(descriptor: 1, environment: environment), now: Payload.currentTime())
        switch modes.first {
        case "list"?:
            guard arguments.positionals.isEmpty else { throw .usage("--list takes no arguments.") }
            let app = arguments.value("app")
            let answer = try SocketOption.call(.requestsPending, .object(app.map { [("app", .string($0))] } ?? []), arguments, environment: environment)
            print(json ? answer.serialized(pretty: true) + "\n" : text.pending(answer, app: app), terminator: "")
        case "remove"?, "remove-all"?:
            let all = modes.first == "remove-all"
            guard let app = arguments.value("app") else { throw .usage("--\(modes[0]) needs --app APP: pending requests are an app's.") }
            guard all ? arguments.positionals.isEmpty : !arguments.positionals.isEmpty else {
                throw .usage(all ? "--remove-all takes no identifiers; --remove takes them." : "--remove needs the identifiers to remove.")
            }
            var params: [(String, JSON)] = [("app", .string(app))]
            if !all { params.append(("identifiers", .array(arguments.positionals.map(JSON.string)))) }
            let answer = try SocketOption.call(.requestsRemove, .object(params), arguments, environment: environment)
            print(json ? answer.serialized(pretty: true) + "\n" : text.removed(answer, app: app, asked: all ? nil : arguments.positionals),
                  terminator: "")
        case "location"?:
            guard arguments.positionals.isEmpty, arguments.value("app") == nil else {
                throw .usage("--location takes no arguments and no --app: a position is the device's, for every app.")
            }
            let numbers = try ScheduleTrigger.coordinates(arguments.value("location")!, option: "location",
                                                          form: "LAT,LON[,ACCURACY]", counts: 2...3)
            // The typed call front ends make: a position out of range is refused here, never sent.
            let update: LocationUpdate
            do throws(Diagnostic) {
                update = try LocationUpdate(latitude: numbers[0], longitude: numbers[1], accuracy: numbers.count == 3 ? numbers[2] : nil)
            } catch {
                throw .usage("--location: \(error.message)")
            }
            let answer = try SocketOption.call(.locationUpdate, update.params, arguments, environment: environment)
            print(json ? answer.serialized(pretty: true) + "\n" : text.fired(answer), terminator: "")
        default:
            let (request, trigger) = try request(arguments)
            var params: [(String, JSON)] = [("request", request)]
            // The server routes nothing by category: the command line names the app, its default chosen here.
            let app: String
            if let named = arguments.value("app") {
                app = named
            } else {
                app = try DefaultApp.find(for: request, client: SocketOption.connect(arguments, environment: environment))
            }
            params.insert(("app", .string(app)), at: 0)
            let answer = try SocketOption.call(.requestsAdd, .object(params), arguments, environment: environment)
            print(json ? answer.serialized(pretty: true) + "\n" : text.scheduled(answer, trigger: trigger), terminator: "")
        }
        return .success
    }

    /// The request to add: PAYLOAD's, with `--identifier` and the options'
    /// trigger; and the trigger it carries.
    private static func request(_ arguments: ParsedArguments) throws(CommandFailure) -> (JSON, JSON) {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw .usage("tidings schedule takes one request file (- for standard input), or --list, --remove, --remove-all or --location (see tidings schedule --help).")
        }
        let payload: JSON
        do throws(Diagnostic) {
            payload = try JSON.parse(path == "-" ? try standardInput() : try FileSystem.readFile(path, limit: payloadLimit),
                                     file: path == "-" ? "standard input" : path)
        } catch {
            throw .input(error)
        }
        guard var members = payload.objectMembers else {
            throw CommandFailure(.dataError, [.error(.payloadNotRequest, "The request must be a JSON object: {\"identifier\", \"content\": {…}}; it is \(payload.typeDescription).",
                                                     at: .init(file: path))])
        }
        if payload["aps"] != nil {
            throw CommandFailure(.dataError, [.error(.payloadNotRequest,
                "This is an APNs payload, a remote notification's; a local request is {\"identifier\", \"content\": {\"title\", \"body\", …}} with its trigger (see tidings schedule --help).",
                at: .init(file: path))])
        }
        if let identifier = arguments.value("identifier") {
            members.removeAll { $0.0 == "identifier" }
            members.insert(("identifier", .string(identifier)), at: 0)
        }
        let given = try ScheduleTrigger.make(arguments, identifier: arguments.value("identifier") ?? payload["identifier"]?.stringValue)
        switch (given, payload["trigger"]) {
        case (let trigger?, nil):
            members.append(("trigger", trigger))
            return (.object(members), trigger)
        case (nil, let trigger?):
            return (.object(members), trigger)
        case (_?, _?):
            throw .usage("The request carries a \"trigger\" of its own and the options give another: keep one.")
        case (nil, nil):
            throw .usage("Give a trigger: --in, --every, --at, calendar fields (--hour, --weekday, …) or --region, or a \"trigger\" in the request.")
        }
    }

    /// The largest request read.
    private static let payloadLimit = 1 << 20

    /// Standard input, read to its end (at most `payloadLimit` bytes).
    /// The corresponding C function is `read`.
    private static func standardInput() throws(Diagnostic) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in SystemCall.retrying { read(0, buffer.baseAddress, buffer.count) } }
            guard count >= 0 else {
                throw .error(.fileUnreadable, "Standard input cannot be read: \(SystemError.current()).")
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= payloadLimit else {
                throw .error(.fileTooLarge, "Standard input holds more than \(payloadLimit) bytes, the most a request may be.")
            }
        }
    }
}

extension Diagnostic.Code {
    /// What `tidings schedule` was given is not a local request (an APNs payload, not an object).
    static let payloadNotRequest = Self("cli.not-a-request")
}
