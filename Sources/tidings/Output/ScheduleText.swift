import Glibc
import TidingsBase

/// What `tidings schedule` prints: triggers in words ("every day at 08:30",
/// "in 42 s", "on entering office"), dates in local time and relative to
/// now, the pending requests as a table, what was removed or fired.
struct ScheduleText {
    let terminal: Terminal
    /// Now, in seconds since 1970 UTC: what relative dates count from.
    let now: Double

    /// The answer of `requests.add` for `trigger`, the trigger sent.
    func scheduled(_ answer: JSON, trigger: JSON) -> String {
        let identifier = answer["identifier"]?.stringValue ?? "?"
        let app = answer["app"]?.stringValue ?? "?"
        let next = answer["nextTriggerDate"]?.stringValue.flatMap(ISO8601.parse)
        let replaced = answer["replaced"]?.boolValue == true ? " (it replaces the request pending with that identifier)" : ""
        var text = terminal.bold("Scheduled \(identifier)") + " for \(app)\(replaced)\n"
        text += "  Trigger  \(words(trigger, next: next))\n"
        text += "  Next     \(nextDate(next, trigger: trigger))\n"
        let dropped = answer["dropped"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if !dropped.isEmpty {
            text += "  " + terminal.yellow("Dropped") + "  \(dropped.joined(separator: ", ")): the app's pending limit keeps the soonest-firing (tidings serve --pending-limit)\n"
        }
        return text
    }

    /// The answer of `requests.pending` as a table, soonest first (as the server lists them).
    func pending(_ answer: JSON, app: String?) -> String {
        let requests = answer["requests"]?.arrayValue ?? []
        guard !requests.isEmpty else { return "No pending requests" + (app.map { " for \($0)" } ?? "") + ".\n" }
        let header = ["IDENTIFIER", "APP", "TRIGGER", "NEXT"]
        let rows = requests.map { request -> [String] in
            let next = request["nextTriggerDate"]?.stringValue.flatMap(ISO8601.parse)
            let trigger = request["trigger"] ?? request["request"]?["trigger"] ?? .null
            return [request["identifier"]?.stringValue ?? "?", request["app"]?.stringValue ?? "?",
                    words(trigger, next: next), nextDate(next, trigger: trigger)]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { column, cell in
                column == cells.count - 1 ? cell.0 : cell.0.rightPadded(to: cell.1 + 2)
            }.joined()
        }
        return terminal.bold(line(header)) + "\n" + rows.map { line($0) + "\n" }.joined()
            + "\(requests.count) pending request\(requests.count == 1 ? "" : "s").\n"
    }

    /// The answer of `requests.remove` for `asked` (nil: all of `app`'s).
    func removed(_ answer: JSON, app: String, asked: [String]?) -> String {
        let removed = answer["removed"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard let asked else {
            return removed.isEmpty ? "\(app) had no pending requests.\n"
                : "Removed the \(removed.count) pending request\(removed.count == 1 ? "" : "s") of \(app): \(removed.joined(separator: ", ")).\n"
        }
        var text = removed.isEmpty ? "" : "Removed \(removed.joined(separator: ", ")) (\(app)).\n"
        let absent = asked.filter { !removed.contains($0) }
        if !absent.isEmpty { text += "Not pending for \(app): \(absent.joined(separator: ", ")).\n" }
        return text
    }

    /// The answer of `location.update`.
    func fired(_ answer: JSON) -> String {
        let fired = answer["fired"]?.arrayValue ?? []
        guard !fired.isEmpty else { return "Nothing fired: no pending region was entered or left.\n" }
        return "Fired:\n" + fired.map { entry in
            let crossing = entry["crossing"]?.stringValue == "exit" ? "on leaving its region" : "on entering its region"
            return "  \(entry["identifier"]?.stringValue ?? "?") (\(entry["app"]?.stringValue ?? "?")) \(crossing)\n"
        }.joined()
    }

    /// The next date of a request: local time and relative; what stands for it when it has none.
    func nextDate(_ next: Double?, trigger: JSON) -> String {
        guard let next else {
            return trigger["region"] != nil ? "when the device crosses the region's edge" : "never: no date matches"
        }
        return "\(Self.local(next)) (\(relative(next - now)))"
    }

    /// A trigger in words; `next`, its next date, words a one-shot interval as the time left.
    func words(_ trigger: JSON, next: Double?) -> String {
        let repeats = trigger["repeats"]?.boolValue ?? false
        if let seconds = trigger["timeInterval"]?.doubleValue {
            if repeats { return "every \(Self.span(seconds))" }
            return next.map { relative($0 - now) } ?? "after \(Self.span(seconds))"
        }
        if let matching = trigger["dateMatching"] { return Self.calendar(matching, repeats: repeats) }
        if let region = trigger["region"] {
            let name = region["identifier"]?.stringValue ?? "a region"
            let (entry, exit) = (region["notifyOnEntry"]?.boolValue ?? true, region["notifyOnExit"]?.boolValue ?? true)
            let crossing = entry && exit ? "on entering or leaving" : entry ? "on entering" : "on leaving"
            return "\(crossing) \(name)" + (repeats ? ", every time" : "")
        }
        return trigger["push"] != nil ? "a push" : "no trigger"
    }

    /// `seconds` from now in words: "in 1 h 30 min", "42 s ago", "now".
    func relative(_ seconds: Double) -> String {
        guard abs(seconds) >= 0.5 else { return "now" }
        return seconds > 0 ? "in \(Self.span(seconds))" : "\(Self.span(-seconds)) ago"
    }

    /// A length of time in its two largest units, rounded to the smaller:
    /// "1 h 30 min", "42 s", "3 d 4 h", "0.5 s".
    static func span(_ seconds: Double) -> String {
        guard seconds >= 1 else { return "\(NumberText.short(seconds)) s" }
        // What a server sends is input: past some 30 million years (1e15 s), days do.
        guard seconds < 1e15 else { return "\(NumberText.short((seconds / 86_400).rounded())) d" }
        let units = [(86_400, "d"), (3_600, "h"), (60, "min"), (1, "s")]
        let largest = units.firstIndex { Int(seconds.rounded()) >= $0.0 } ?? units.count - 1
        let step = units[min(largest + 1, units.count - 1)].0
        var rest = Int((seconds / Double(step)).rounded()) * step
        var parts: [String] = []
        for (size, unit) in units where rest >= size && parts.count < 2 {
            parts.append("\(rest / size) \(unit)")
            rest %= size
        }
        return parts.joined(separator: " ")
    }

    /// `seconds` since 1970 as the local date and time: "Fri 2026-11-27 08:30:00 +0100".
    /// The corresponding C function is `localtime_r` (the zone of `TZ`, else the system's).
    static func local(_ seconds: Double) -> String {
        var time = time_t(saturating: seconds, .down)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return ISO8601.format(seconds) }
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let offset = parts.tm_gmtoff
        let zone = (offset < 0 ? "-" : "+") + pad(Int(abs(offset)) / 3600) + pad(Int(abs(offset)) % 3600 / 60)
        return "\(days[Int(parts.tm_wday) % 7]) \(parts.tm_year + 1900)-\(pad(Int(parts.tm_mon) + 1))-\(pad(Int(parts.tm_mday))) "
            + "\(pad(Int(parts.tm_hour))):\(pad(Int(parts.tm_min))):\(pad(Int(parts.tm_sec))) \(zone)"
    }

    /// "st", "nd", "rd" or "th" after `number`.
    private static func suffix(_ number: Int) -> String {
        if (11...13).contains(number % 100) { return "th" }
        return [1: "st", 2: "nd", 3: "rd"][number % 10] ?? "th"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// A calendar trigger's components in words: "every day at 08:30",
    /// "every Monday at 09:00", "on 2026-12-24 at 18:00", "every hour at :30".
    static func calendar(_ matching: JSON, repeats: Bool) -> String {
        func component(_ name: String) -> Int? { matching[name]?.integerValue.map { Int($0) } }
        let (year, month, day) = (component("year"), component("month"), component("day"))
        let (hour, minute, second) = (component("hour"), component("minute"), component("second"))
        let zone = matching["timeZone"]?.stringValue.map { " (\($0))" } ?? ""
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        var days: [String] = []
        if let year, let month, let day {
            days.append("\(year)-\(pad(month))-\(pad(day))")
        } else {
            if let weekday = component("weekday"), (1...7).contains(weekday) {
                let ordinals = ["first", "second", "third", "fourth", "fifth"]
                if let ordinal = component("weekdayOrdinal"), (1...5).contains(ordinal) {
                    days.append("the \(ordinals[ordinal - 1]) \(weekdays[weekday - 1]) of the month")
                } else {
                    days.append(weekdays[weekday - 1])
                }
            }
            switch (day, month.flatMap { (1...12).contains($0) ? months[$0 - 1] : nil }) {
            case let (day?, month?): days.append("\(day) \(month)")
            case let (day?, nil): days.append("the \(day)\(suffix(day)) of the month")
            case let (nil, month?): days.append(month)
            case (nil, nil): break
            }
            if let week = component("weekOfMonth") { days.append("week \(week) of the month") }
            if let week = component("weekOfYear") { days.append("week \(week) of the year") }
            if let year { days.append("in \(year)") }
        }
        // "every Monday", but "on the first Monday of the month" (every month when repeating).
        let lead = repeats && !(days.first?.hasPrefix("the ") ?? false) ? "every " : "on "
        if let hour {
            let time = "\(pad(hour)):\(pad(minute ?? 0))" + (second.map { $0 == 0 ? "" : ":\(pad($0))" } ?? "")
            if days.isEmpty { return (repeats ? "every day at " : "at ") + time + zone }
            return lead + days.joined(separator: ", ") + " at " + time + zone
        }
        let within = minute.map { ":\(pad($0))" + (second.map { ":\(pad($0))" } ?? "") } ?? second.map { "second \($0)" }
        if days.isEmpty {
            guard let within else { return "every second" + zone }
            let unit = minute == nil ? "minute" : "hour"
            return (repeats ? "every \(unit) at " : "at the next ") + within + zone
        }
        return lead + days.joined(separator: ", ") + (within.map { " at \($0) of each hour" } ?? "") + zone
    }
}
