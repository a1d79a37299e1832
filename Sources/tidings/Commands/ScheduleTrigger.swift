import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The trigger options of `tidings schedule`, and the request trigger
/// (`requests.add`'s JSON) they make. Only the form is checked here; the
/// server refuses what iOS refuses (an interval of 0, a repeating one under
/// 60 s, a component out of range) with its own message.
enum ScheduleTrigger {
    /// The calendar fields: option name and date component.
    static let calendarFields: [(option: String, component: String)] = [
        ("year", "year"), ("month", "month"), ("day", "day"), ("hour", "hour"), ("minute", "minute"), ("second", "second"),
        ("weekday", "weekday"), ("weekday-ordinal", "weekdayOrdinal"), ("week-of-month", "weekOfMonth"), ("week-of-year", "weekOfYear"),
    ]

    /// The options that choose a trigger, one form at a time.
    static let options: [CommandSpec.Option] = [
        .init(name: "in", value: "DURATION",
              help: "Fire once after DURATION (90, 90s, 5m, 2h, 1h30m, 1d): a time interval trigger (UNTimeIntervalNotificationTrigger)."),
        .init(name: "every", value: "DURATION",
              help: "Fire every DURATION, the first time DURATION from now: a repeating time interval (at least 60 s, as on iOS)."),
        .init(name: "at", value: "DATE-OR-TIME",
              help: "Fire at an ISO 8601 date and time (2026-12-24T18:00, with :SS, Z or ±HH:MM if wanted; a date alone is its midnight), or at the next HH:MM[:SS] (with --repeats, every day then): a calendar trigger."),
    ] + calendarFields.map { field in
        .init(name: field.option, value: field.option == "weekday" ? "DAY" : "N",
              help: field.option == "weekday"
                ? "Calendar field: the day of the week, 1 (Sunday) … 7 (Saturday) or its name (sun, mon, … or in full)."
                : "Calendar field: the \(field.option.replacing("-", with: " ")) to match (UNCalendarNotificationTrigger's dateMatching).")
    } + [
        .init(name: "time-zone", value: "ZONE",
              help: "Match --at or the calendar fields in this zone (Europe/Paris, UTC) instead of the user's."),
        .init(name: "region", value: "LAT,LON,RADIUS",
              help: "Fire when the device enters or leaves the circle of RADIUS metres around LAT,LON (degrees), as a front end reports it with --location: a location trigger."),
        .init(name: "region-id", value: "ID", help: "The region's identifier (default: the request's, else \"region\")."),
        .init(name: "on-entry", value: nil, help: "Fire on entering the region only (with --on-exit too: both, the default)."),
        .init(name: "on-exit", value: nil, help: "Fire on leaving the region only (with --on-entry too: both, the default)."),
        .init(name: "repeats", value: nil, help: "Fire again after firing: every DURATION with --in, every matching date, every crossing of the region."),
    ]

    /// The trigger the options give, nil when they give none; `identifier`
    /// names the region when --region-id does not.
    static func make(_ arguments: ParsedArguments, identifier: String?) throws(CommandFailure) -> JSON? {
        let calendar = calendarFields.filter { arguments.value($0.option) != nil }
        var forms = ["in", "every", "at", "region"].filter { arguments.value($0) != nil }.map { "--\($0)" }
        if !calendar.isEmpty { forms.append("calendar fields") }
        guard forms.count <= 1 else { throw .usage("Give one trigger: \(forms.joined(separator: " and ")) exclude each other.") }
        let form = forms.first
        if arguments.value("time-zone") != nil && form != "--at" && form != "calendar fields" {
            throw .usage("--time-zone goes with --at or the calendar fields.")
        }
        for option in ["region-id", "on-entry", "on-exit"] where arguments.flag(option) && form != "--region" {
            throw .usage("--\(option) goes with --region.")
        }
        let repeats = arguments.flag("repeats")
        if form == nil && repeats { throw .usage("--repeats goes with a trigger: --in, --at, calendar fields or --region.") }
        switch form {
        case "--in"?:
            return interval(try seconds(arguments.value("in")!, option: "in"), repeats: repeats)
        case "--every"?:
            return interval(try seconds(arguments.value("every")!, option: "every"), repeats: true)
        case "--at"?:
            return calendarTrigger(try at(arguments.value("at")!, zone: arguments.value("time-zone")), repeats: repeats)
        case "--region"?:
            return try region(arguments, identifier: identifier, repeats: repeats)
        case "calendar fields"?:
            var members: [(String, JSON)] = []
            for field in calendar {
                members.append((field.component, .integer(Int64(try number(arguments.value(field.option)!, option: field.option)))))
            }
            if let zone = arguments.value("time-zone") { members.append(("timeZone", .string(zone))) }
            return calendarTrigger(members, repeats: repeats)
        default:
            return nil
        }
    }

    private static func interval(_ seconds: Double, repeats: Bool) -> JSON {
        .object([("timeInterval", .double(seconds)), ("repeats", .bool(repeats))])
    }

    private static func calendarTrigger(_ components: [(String, JSON)], repeats: Bool) -> JSON {
        .object([("dateMatching", .object(components)), ("repeats", .bool(repeats))])
    }

    /// Seconds in a DURATION: a number of seconds (90), or numbers with
    /// units d, h, m, s one after another (1h30m, 2.5h, 45s); at most
    /// `NotificationTrigger.longestInterval`, which the server takes.
    static func seconds(_ text: String, option: String) throws(CommandFailure) -> Double {
        let total = try duration(text, option: option)
        guard total <= NotificationTrigger.longestInterval else {
            throw .usage("--\(option) takes at most \(NumberText.short(NotificationTrigger.longestInterval)) seconds (about 317 years); \"\(text)\" is \(NumberText.short(total)).")
        }
        return total
    }

    /// Seconds in a DURATION, however many.
    private static func duration(_ text: String, option: String) throws(CommandFailure) -> Double {
        let refusal = CommandFailure.usage("--\(option) takes a duration such as 90, 90s, 5m, 2h or 1h30m; it is \"\(text)\".")
        if let plain = Double(text), plain.isFinite { return plain }
        let units: [Character: Double] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        var total = 0.0
        var digits = ""
        var last = Double.infinity
        for character in text {
            if let unit = units[character] {
                guard let value = Double(digits), value.isFinite, value >= 0, unit < last else { throw refusal }
                total += value * unit
                digits = ""
                last = unit
            } else {
                digits.append(character)
            }
        }
        guard digits.isEmpty, last.isFinite, total.isFinite else { throw refusal }
        return total
    }

    /// A whole number given to `--option`: a weekday's name for --weekday.
    private static func number(_ text: String, option: String) throws(CommandFailure) -> Int {
        if let value = Int(text) { return value }
        if option == "weekday", let day = weekday(named: text) { return day }
        throw .usage(option == "weekday"
            ? "--weekday takes 1 (Sunday) … 7 (Saturday) or a day's name (sun, mon, … or in full); it is \"\(text)\"."
            : "--\(option) takes a whole number; it is \"\(text)\".")
    }

    /// 1 (Sunday) … 7 (Saturday) for a day's name, in full or its first three letters, any case.
    static func weekday(named name: String) -> Int? {
        let days = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        let lowered = name.lowercased()
        guard lowered.count >= 3, let position = days.firstIndex(where: { $0.hasPrefix(lowered) }) else { return nil }
        return position + 1
    }

    /// The date components of `--at`: a date and time (in `zone`, the
    /// user's when nil; with `Z` or an offset, the instant's in UTC) or a time of day.
    static func at(_ text: String, zone: String?) throws(CommandFailure) -> [(String, JSON)] {
        let refusal = CommandFailure.usage("--at takes an ISO 8601 date and time (2026-12-24T18:00, 2026-12-24T18:00:00Z, 2026-12-24) or a time of day (08:30, 08:30:15); it is \"\(text)\".")
        func components(_ names: [String], _ values: [Int]) -> [(String, JSON)] {
            zip(names, values).map { ($0, .integer(Int64($1))) }
        }
        if !text.contains("-") {
            guard let time = clock(text[...]) else { throw refusal }
            return components(["hour", "minute", "second"], time) + (zone.map { [("timeZone", .string($0))] } ?? [])
        }
        let parts = text.split(separator: text.contains("T") ? "T" : " ", maxSplits: 1)
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard date.count == 3, let year = date[0], let month = date[1], let day = date[2], parts[0].count == 10,
              (1...12).contains(month), (1...31).contains(day)
        else { throw refusal }
        var time = [0, 0, 0]
        var offset: String?
        if parts.count == 2 {
            var rest = parts[1]
            if rest.hasSuffix("Z") || rest.hasSuffix("z") {
                offset = "Z"
                rest = rest.dropLast()
            } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
                offset = String(rest[sign...])
                rest = rest[..<sign]
            }
            guard let clockTime = clock(rest) else { throw refusal }
            time = clockTime + Array(repeating: 0, count: 3 - clockTime.count)
        }
        guard let offset else {
            return components(["year", "month", "day", "hour", "minute", "second"], [year, month, day] + time)
                + (zone.map { [("timeZone", .string($0))] } ?? [])
        }
        // An instant: its date and time in UTC, matched in UTC.
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let stamp = "\(year)-\(pad(month))-\(pad(day))T\(pad(time[0])):\(pad(time[1])):\(pad(time[2]))\(offset)"
        guard zone == nil else { throw .usage("--at with Z or an offset names an instant: leave --time-zone out.") }
        guard let instant = ISO8601.parse(stamp) else { throw refusal }
        let utc = ISO8601.format(instant)
        let numbers = utc.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int($0) }
        return components(["year", "month", "day", "hour", "minute", "second"], numbers) + [("timeZone", .string("UTC"))]
    }

    /// HH:MM or HH:MM:SS as its numbers; nil for anything else.
    private static func clock(_ text: Substring) -> [Int]? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), fields.allSatisfy({ $0.count == 2 }) else { return nil }
        let numbers = fields.compactMap { Int($0) }
        guard numbers.count == fields.count, numbers[0] < 24, numbers[1] < 60, numbers.count < 3 || numbers[2] < 60 else { return nil }
        return numbers
    }

    /// The location trigger of `--region LAT,LON,RADIUS`, `--region-id`, `--on-entry` and `--on-exit`.
    private static func region(_ arguments: ParsedArguments, identifier: String?, repeats: Bool) throws(CommandFailure) -> JSON {
        let numbers = try coordinates(arguments.value("region")!, option: "region", form: "LAT,LON,RADIUS", counts: 3...3)
        let (entry, exit) = (arguments.flag("on-entry"), arguments.flag("on-exit"))
        let region = JSON.object([
            ("identifier", .string(arguments.value("region-id") ?? identifier ?? "region")),
            ("latitude", .double(numbers[0])), ("longitude", .double(numbers[1])), ("radius", .double(numbers[2])),
            ("notifyOnEntry", .bool(entry || !exit)), ("notifyOnExit", .bool(exit || !entry)),
        ])
        return .object([("region", region), ("repeats", .bool(repeats))])
    }

    /// The numbers of `--option`'s comma-separated `form`, as many as `counts` allows.
    static func coordinates(_ text: String, option: String, form: String, counts: ClosedRange<Int>) throws(CommandFailure) -> [Double] {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        guard counts.contains(numbers.count), numbers.allSatisfy({ $0?.isFinite ?? false }) else {
            throw .usage("--\(option) takes \(form), numbers separated by commas (48.8566,2.3522\(counts.upperBound > 2 ? ",100" : "")); it is \"\(text)\".")
        }
        return numbers.map { $0! }
    }
}
