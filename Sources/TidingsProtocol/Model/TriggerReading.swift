import TidingsBase

extension NotificationTrigger {
    /// The outcome of reading a trigger: the trigger, and what was wrong either way.
    package struct Reading: Sendable {
        /// The trigger; nil when the JSON is not one an app may schedule.
        package var trigger: NotificationTrigger?
        /// What was wrong or unknown in it.
        package var diagnostics: [Diagnostic]
    }

    /// Reads a trigger an app schedules (see the type's summary), refusing
    /// what iOS refuses: an interval of 0 or less, a repeating interval under
    /// 60 seconds (and one longer than `longestInterval`, which no clock here holds:
    /// `number.out-of-range`), a region without a radius; with `allowingPush` false
    /// (an app's request), also a push trigger, which only a remote
    /// notification has. With `allowingPush` true it reads back a trigger
    /// the host made (a kept notification, a worker's message).
    /// - Parameters:
    ///   - path: where the trigger is in the document, for diagnostics.
    ///   - zoneExists: whether the system knows a zone of this name; a
    ///     `timeZone` it does not know is refused. Nil, the zone is not looked
    ///     up: for what the host wrote, and where no zone database is at hand
    ///     (the app library reading what the server gave it).
    package static func read(_ json: JSON, at path: [String] = ["trigger"], allowingPush: Bool = false,
                             zoneExists: ((String) -> Bool)?) -> Reading {
        var fields = JSONFieldReader(file: nil, invalidCode: .triggerInvalid, unknownMemberCode: .triggerUnknownKey)
        guard let members = fields.object(json, at: path) else { return Reading(trigger: nil, diagnostics: fields.diagnostics) }
        let kinds = members.map(\.0).filter { ["timeInterval", "dateMatching", "region", "push"].contains($0) }
        guard kinds.count == 1, let kind = kinds.first else {
            fields.report(.error, .triggerInvalid,
                          "A trigger has exactly one of \"timeInterval\", \"dateMatching\" or \"region\"; this one has \(kinds.isEmpty ? "none" : kinds.joined(separator: " and ")).",
                          at: path)
            return Reading(trigger: nil, diagnostics: fields.diagnostics)
        }
        fields.checkMembers(members, allowed: [kind] + (kind == "push" ? [] : ["repeats"]), at: path)
        let repeats = fields.bool(json["repeats"], at: path + ["repeats"]) ?? false
        var trigger: NotificationTrigger?
        switch kind {
        case "timeInterval":
            if let seconds = fields.number(json["timeInterval"], at: path + ["timeInterval"]) {
                if seconds <= 0 {
                    fields.report(.error, .triggerIntervalNotPositive,
                                  "A time interval must be greater than 0 seconds; it is \(seconds).", at: path + ["timeInterval"])
                } else if seconds > longestInterval {
                    fields.report(.error, .numberOutOfRange,
                                  "\"timeInterval\" must be at most \(NumberText.short(longestInterval)) seconds (about 317 years); it is \(seconds).",
                                  at: path + ["timeInterval"])
                } else if repeats && seconds < shortestRepeatingInterval {
                    fields.report(.error, .triggerRepeatTooSoon,
                                  "A repeating time interval must be at least 60 seconds; it is \(seconds).",
                                  at: path + ["timeInterval"])
                } else {
                    trigger = .timeInterval(seconds: seconds, repeats: repeats)
                }
            }
        case "dateMatching":
            if let matching = DateMatching.read(json["dateMatching"], at: path + ["dateMatching"], zoneExists: zoneExists,
                                                into: &fields) {
                trigger = .calendar(matching, repeats: repeats)
            }
        case "region":
            if let region = CircularRegion.read(json["region"], at: path + ["region"], into: &fields) {
                trigger = .location(region, repeats: repeats)
            }
        default:
            if allowingPush {
                trigger = .push
            } else {
                fields.report(.error, .triggerInvalid,
                              "A push trigger marks a remote notification; an app schedules a time interval, a date or a region.",
                              at: path + ["push"])
            }
        }
        return Reading(trigger: fields.failed ? nil : trigger, diagnostics: fields.diagnostics)
    }
}

extension DateMatching {
    /// The largest value each component may take, and its smallest (a
    /// year of four digits, as the dates of `CheckedNumbers.dates`).
    private static let ranges: [String: ClosedRange<Int64>] = [
        "era": 0...1, "year": 1...9999, "month": 1...12, "day": 1...31, "hour": 0...23, "minute": 0...59,
        "second": 0...59, "weekday": 1...7, "weekdayOrdinal": 1...5, "weekOfMonth": 1...6, "weekOfYear": 1...53,
    ]

    /// Reads the components of a calendar trigger at `path`, reporting into
    /// `fields`; with `zoneExists`, a `timeZone` it does not know is refused.
    static func read(_ json: JSON?, at path: [String], zoneExists: ((String) -> Bool)?,
                     into fields: inout JSONFieldReader) -> DateMatching? {
        guard let members = fields.object(json, at: path) else { return nil }
        fields.checkMembers(members, allowed: componentNames + ["timeZone"], at: path)
        var matching = DateMatching()
        for name in componentNames {
            guard let value = fields.integer(json?[name], at: path + [name]) else { continue }
            guard let range = ranges[name], range.contains(value) else {
                let range = ranges[name] ?? 0...0
                fields.report(.error, .numberOutOfRange,
                              "\"\(name)\" must be between \(range.lowerBound) and \(range.upperBound); it is \(value).",
                              at: path + [name])
                continue
            }
            matching[component: name] = Int(value)
        }
        matching.timeZone = fields.string(json?["timeZone"], at: path + ["timeZone"])
        if let zoneExists, let zone = matching.timeZone, !zoneExists(zone) {
            fields.report(.error, .triggerInvalid,
                          "\"timeZone\" must name a zone of the system's time-zone database (such as \"Europe/Paris\"); \"\(zone)\" is not one.",
                          at: path + ["timeZone"])
            matching.timeZone = nil
        }
        return matching
    }
}

extension CircularRegion {
    /// Reads the region of a location trigger at `path`, reporting into `fields`.
    static func read(_ json: JSON?, at path: [String], into fields: inout JSONFieldReader) -> CircularRegion? {
        guard let members = fields.object(json, at: path) else { return nil }
        fields.checkMembers(members, allowed: ["identifier", "latitude", "longitude", "radius", "notifyOnEntry", "notifyOnExit"],
                            at: path)
        let identifier = fields.string(json?["identifier"], at: path + ["identifier"])
        let latitude = fields.number(json?["latitude"], at: path + ["latitude"], in: -90...90)
        let longitude = fields.number(json?["longitude"], at: path + ["longitude"], in: -180...180)
        let radius = fields.number(json?["radius"], at: path + ["radius"])
        let entry = fields.bool(json?["notifyOnEntry"], at: path + ["notifyOnEntry"]) ?? true
        let exit = fields.bool(json?["notifyOnExit"], at: path + ["notifyOnExit"]) ?? true
        for (name, value) in [("identifier", identifier as Any?), ("latitude", latitude), ("longitude", longitude), ("radius", radius)]
        where value == nil && json?[name] == nil {
            fields.report(.error, .triggerInvalid, "A region needs its \"\(name)\".", at: path + [name])
        }
        if let radius, radius <= 0 {
            fields.report(.error, .triggerInvalid, "A region's radius must be more than 0 metres; it is \(radius).",
                          at: path + ["radius"])
        }
        if !entry && !exit {
            fields.report(.error, .triggerInvalid, "A region that notifies on neither entry nor exit never fires.",
                          at: path + ["notifyOnEntry"])
        }
        guard let identifier, let latitude, let longitude, let radius, radius > 0, entry || exit else { return nil }
        return CircularRegion(identifier: identifier, latitude: latitude, longitude: longitude, radius: radius,
                              notifyOnEntry: entry, notifyOnExit: exit)
    }
}

extension Diagnostic.Code {
    /// A trigger that is not one: the wrong shape, a value out of range.
    package static let triggerInvalid = Self("trigger.invalid")
    /// A trigger member the format does not define.
    package static let triggerUnknownKey = Self("trigger.unknown-key")
    /// A time interval of 0 seconds or less (iOS: "time interval must be greater than 0").
    package static let triggerIntervalNotPositive = Self("trigger.interval-not-positive")
    /// A repeating time interval under 60 seconds (iOS: "time interval must be at least 60 if repeating").
    package static let triggerRepeatTooSoon = Self("trigger.repeat-too-soon")
}
