import RuntimeTestSupport
import Testing
import TidingsBase
import TidingsRuntime

/// The file diagnostics are placed in.
private let payloadFile = "payload.json"
/// The directory relative attachment paths are taken from.
private let payloadDirectory = "/srv/payloads"
/// The moment decoding takes as now.
private let now = 1_800_000_000.0

/// Decodes `text`, checking the rule every reading keeps: a notification
/// exactly when no diagnostic is an error, and attachment requests only with one.
private func read(_ text: String, identifier: String? = "request-1", strings: [String: String] = [:],
                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Payload.Reading {
    let json = try JSON.parse(Array(text.utf8))
    let reading = Payload.decode(json, file: payloadFile, baseDirectory: payloadDirectory, identifier: identifier,
                                 strings: strings, now: now)
    #expect((reading.notification == nil) == reading.diagnostics.containsError,
            "a notification must exist exactly when there is no error: \(reading.diagnostics)",
            sourceLocation: sourceLocation)
    if reading.notification == nil {
        #expect(reading.attachments.isEmpty, "a refused payload asks for no attachment", sourceLocation: sourceLocation)
    }
    return reading
}

/// The notification of `text`, which must decode without any diagnostic.
private func decoded(_ text: String, identifier: String? = "request-1", strings: [String: String] = [:],
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> UserNotification {
    let reading = try read(text, identifier: identifier, strings: strings, sourceLocation: sourceLocation)
    #expect(reading.diagnostics.isEmpty, "\(reading.diagnostics)", sourceLocation: sourceLocation)
    return try #require(reading.notification, sourceLocation: sourceLocation)
}

/// The content of `text`, which must decode without any diagnostic.
private func contentOf(_ text: String, strings: [String: String] = [:],
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> NotificationContent {
    try decoded(text, strings: strings, sourceLocation: sourceLocation).content
}

/// The errors of `text`, which must be refused.
private func errorsOf(_ text: String, identifier: String? = "request-1",
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> [Diagnostic] {
    let reading = try read(text, identifier: identifier, sourceLocation: sourceLocation)
    #expect(reading.notification == nil, "the payload must be refused", sourceLocation: sourceLocation)
    return reading.diagnostics.filter { $0.severity == .error }
}

/// The one error of `text`, which must be refused with exactly one.
private func onlyError(_ text: String, identifier: String? = "request-1",
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let found = try errorsOf(text, identifier: identifier, sourceLocation: sourceLocation)
    #expect(found.count == 1, "\(found)", sourceLocation: sourceLocation)
    return try #require(found.first, sourceLocation: sourceLocation)
}

/// The warnings of `text`, which must still decode.
private func warningsOf(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Diagnostic] {
    let reading = try read(text, sourceLocation: sourceLocation)
    #expect(reading.notification != nil, "\(reading.diagnostics)", sourceLocation: sourceLocation)
    return reading.diagnostics.filter { $0.severity == .warning }
}

/// The one field `text` (an APNs payload) has that a device cannot read:
/// ignored with a warning, and the rest delivered.
private func onlyIgnored(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let reading = try read(text, sourceLocation: sourceLocation)
    #expect(reading.notification != nil, "the rest must be delivered: \(reading.diagnostics)", sourceLocation: sourceLocation)
    let ignored = reading.diagnostics.filter { $0.code == .payloadFieldIgnored }
    #expect(ignored.count == 1 && ignored.allSatisfy { $0.severity == .warning }, "\(reading.diagnostics)",
            sourceLocation: sourceLocation)
    let warning = try #require(ignored.first, sourceLocation: sourceLocation)
    #expect(warning.message.hasSuffix("A device ignores the field and delivers the rest of the notification, and so does Tidings."),
            sourceLocation: sourceLocation)
    return warning
}

/// An APNs payload whose `aps` has `members` (JSON text without braces).
private func aps(_ members: String) -> String {
    #"{"aps": {\#(members)}}"#
}

/// A request whose `content` has `members` (JSON text without braces).
private func request(_ members: String) -> String {
    #"{"identifier": "request-1", "content": {\#(members)}}"#
}

/// A request with the given `attachments` entries (JSON text without brackets).
private func attachments(_ entries: String) -> String {
    request(#""title": "Photos", "attachments": [\#(entries)]"#)
}

/// Where a payload's attachment entry at `position` was written.
private func entry(_ position: Int) -> Diagnostic.Location {
    .init(file: payloadFile, path: "/content/attachments/\(position)")
}

@Suite struct PayloadTests {
    // MARK: APNs alerts

    @Test func alertStringIsTheBody() throws {
        let content = try contentOf(aps(#""alert": "Dinner at eight""#))
        #expect(content.body == "Dinner at eight")
        #expect(content.title.isEmpty)
        #expect(content.subtitle.isEmpty)
    }

    @Test func alertDictionaryGivesTitleSubtitleAndBody() throws {
        let content = try contentOf(aps(#""alert": {"title": "Dinner", "subtitle": "Friday", "body": "At eight, by the pier"}"#))
        #expect(content.title == "Dinner")
        #expect(content.subtitle == "Friday")
        #expect(content.body == "At eight, by the pier")
    }

    @Test func alertDictionaryWithoutTextLeavesItEmpty() throws {
        let content = try contentOf(aps(#""alert": {"launch-image": "Launch.png"}, "badge": 1"#))
        #expect(!content.hasAlert)
    }

    @Test func locKeysAreLookedUpInTheStringsTableAndTakeTheirArguments() throws {
        let strings = [
            "INVITE_TITLE": "%@ invites you",
            "INVITE_SUBTITLE": "%2$@, then %1$@",
            "INVITE_BODY": "100%% sure: %@ at %@",
        ]
        let content = try contentOf(aps(#"""
            "alert": {
              "title-loc-key": "INVITE_TITLE", "title-loc-args": ["Ann"],
              "subtitle-loc-key": "INVITE_SUBTITLE", "subtitle-loc-args": ["dinner", "drinks"],
              "loc-key": "INVITE_BODY", "loc-args": ["Ann", "the pier"]
            }
            """#), strings: strings)
        #expect(content.title == "Ann invites you")
        #expect(content.subtitle == "drinks, then dinner")
        #expect(content.body == "100% sure: Ann at the pier")
    }

    @Test func locKeyMissingFromTheStringsTableStandsForItself() throws {
        let content = try contentOf(aps(#"""
            "alert": {"title-loc-key": "INVITE_TITLE", "subtitle-loc-key": "INVITE_SUBTITLE",
                      "loc-key": "Hello %@, 50%% done", "loc-args": ["Ann"]}
            """#), strings: ["SOMETHING_ELSE": "Unused"])
        #expect(content.title == "INVITE_TITLE")
        #expect(content.subtitle == "INVITE_SUBTITLE")
        #expect(content.body == "Hello Ann, 50% done")
    }

    @Test func locKeyWithoutAnyStringsTableStandsForItself() throws {
        let content = try contentOf(aps(#""alert": {"loc-key": "GREETING", "loc-args": ["unused"]}"#))
        #expect(content.body == "GREETING")
    }

    @Test func locArgumentsThatAreNotStringsAreWrittenAsJSON() throws {
        let content = try contentOf(aps(#""alert": {"loc-key": "COUNT", "loc-args": [3, true, null]}"#),
                                  strings: ["COUNT": "%@ new, %@, %@"])
        #expect(content.body == "3 new, true, null")
    }

    @Test func locArgumentsThatAreNotAnArrayAreIgnored() throws {
        let warning = try onlyIgnored(aps(#""alert": {"loc-key": "COUNT", "loc-args": "3"}"#))
        #expect(warning.location == .init(file: payloadFile, path: "/aps/alert/loc-args"))
        #expect(warning.message.contains("must be an array"))
    }

    @Test func locKeyThatIsNotAStringIsIgnored() throws {
        let warning = try onlyIgnored(aps(#""alert": {"title-loc-key": ["KEY"], "body": "x"}"#))
        #expect(warning.location.path == "/aps/alert/title-loc-key")
    }

    @Test func substitutionFillsWhatItCanAndLeavesOtherSpecifiersAlone() {
        // Missing and out-of-range arguments are empty; %0$@ names none.
        #expect(LocalizedFormat.substitute("[%@][%@]", ["a"]) == "[a][]")
        #expect(LocalizedFormat.substitute("[%3$@][%0$@][%1$@]", ["a", "b"]) == "[][][a]")
        // Positional arguments do not move the sequential ones on, and may repeat.
        #expect(LocalizedFormat.substitute("%2$@ %@ %2$@", ["a", "b"]) == "b a b")
        // Other specifiers, a lone % and a % at the end are kept as written.
        #expect(LocalizedFormat.substitute("%d items, 5% off, %", ["a"]) == "%d items, 5% off, %")
        #expect(LocalizedFormat.substitute("%%@ %%%@", ["a"]) == "%@ %a")
        // Arguments are inserted, never read as formats.
        #expect(LocalizedFormat.substitute("%@ and %@", ["%@", "%%"]) == "%@ and %%")
    }

    @Test(arguments: [
        (#"{"aps": {"alert": {"loc-key": "K"}}}"#, true),
        (#"{"aps": {"alert": {"title-loc-key": "K"}}}"#, true),
        (#"{"aps": {"alert": {"subtitle-loc-key": "K"}}}"#, true),
        (#"{"aps": {"alert": {"action-loc-key": "K", "body": "B"}}}"#, false),
        (#"{"aps": {"alert": "loc-key"}}"#, false),
        (#"{"content": {"loc-key": "K"}}"#, false),
    ])
    func localizationIsNeededOnlyForLocKeysOfTheAlert(payload: String, uses: Bool) throws {
        #expect(Payload.usesLocalization(try JSON.parse(Array(payload.utf8))) == uses)
    }

    // MARK: APNs members

    @Test func badgeZeroIsKeptAndAbsentBadgeIsNil() throws {
        #expect(try contentOf(aps(#""badge": 0"#)).badge == 0)
        #expect(try contentOf(aps(#""badge": 12"#)).badge == 12)
        #expect(try contentOf(aps(#""alert": "No badge""#)).badge == nil)
    }

    @Test func badgeThatIsNotAnIntegerIsIgnoredAndTheAlertShown() throws {
        let warning = try onlyIgnored(aps(#""alert": "Hi", "badge": "3""#))
        #expect(warning.location.path == "/aps/badge")
        #expect(warning.message.hasPrefix("\"badge\" must be an integer; it is a string."))
        let reading = try read(aps(#""alert": "Hi", "badge": 1.5"#))
        #expect(reading.notification?.content.badge == nil)
        #expect(reading.notification?.content.body == "Hi")
        #expect(try onlyIgnored(aps(#""alert": "Hi", "badge": 1.5"#)).message.contains("must be an integer"))
    }

    @Test func soundNameIsTheSound() throws {
        #expect(try contentOf(aps(#""sound": "default""#)).sound == "default")
        #expect(try contentOf(aps(#""alert": "Quiet""#)).sound == nil)
    }

    @Test func criticalSoundDictionaryGivesItsNameCriticalityAndVolume() throws {
        let content = try contentOf(aps(#""sound": {"critical": 1, "name": "alarm.caf", "volume": 0.75}"#))
        #expect(content.sound == "alarm.caf")
        #expect(content.criticalSound)
        #expect(content.soundVolume == 0.75)
        let plain = try contentOf(aps(#""sound": "default""#))
        #expect(!plain.criticalSound && plain.soundVolume == nil)
    }

    @Test func theAlertsLaunchImageSummaryAndTheFilterAndBackgroundFlagsAreKept() throws {
        let content = try contentOf(aps(#"""
            "alert": {"body": "Hi", "launch-image": "Splash", "summary-arg": "Ann", "summary-arg-count": 3},
            "filter-criteria": "work", "content-available": 1
            """#))
        #expect(content.launchImageName == "Splash")
        #expect(content.summaryArgument == "Ann")
        #expect(content.summaryArgumentCount == 3)
        #expect(content.filterCriteria == "work")
        #expect(content.contentAvailable)
        #expect(!content.isLocal)
        let ignored = try onlyIgnored(aps(#""alert": {"body": "Hi", "summary-arg-count": -1}"#))
        #expect(ignored.location.path == "/aps/alert/summary-arg-count")
    }

    @Test func aRequestCarriesTheSameFieldsUnderApplesNamesAndIsLocal() throws {
        let content = try contentOf(request(#"""
            "title": "Hi", "launchImageName": "Splash", "summaryArgument": "Ann", "summaryArgumentCount": 2,
            "filterCriteria": "work", "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.25}
            """#))
        #expect(content.launchImageName == "Splash" && content.summaryArgument == "Ann" && content.summaryArgumentCount == 2)
        #expect(content.filterCriteria == "work" && content.criticalSound && content.soundVolume == 0.25)
        #expect(content.isLocal)
    }

    @Test func soundDictionaryMembersOfAnotherTypeAreIgnored() throws {
        let volume = try onlyIgnored(aps(#""sound": {"critical": 1, "name": "alarm.caf", "volume": 2}"#))
        #expect(volume.location.path == "/aps/sound/volume")
        #expect(volume.message.contains("between 0.0 and 1.0"))
        let reading = try read(aps(#""sound": {"critical": 1, "name": "alarm.caf", "volume": 2}"#))
        #expect(reading.notification?.content.sound == "alarm.caf")
        #expect(reading.notification?.content.soundVolume == nil)
        #expect(try onlyIgnored(aps(#""sound": {"name": "alarm.caf", "volume": "loud"}"#)).location.path == "/aps/sound/volume")
        let critical = try onlyIgnored(aps(#""sound": {"critical": "yes", "name": "alarm.caf"}"#))
        #expect(critical.location.path == "/aps/sound/critical")
        #expect(critical.message.contains("must be the number 1 (or 0)"))
        #expect(try onlyIgnored(aps(#""alert": "Hi", "sound": {"name": 5}"#)).location.path == "/aps/sound/name")
    }

    @Test func soundOfAnotherTypeIsIgnored() throws {
        let warning = try onlyIgnored(aps(#""alert": "Hi", "sound": true"#))
        #expect(warning.location.path == "/aps/sound")
        #expect(warning.message.hasPrefix("\"sound\" must be a sound name or a dictionary; it is a Boolean."))
        #expect(try read(aps(#""alert": "Hi", "sound": 5"#)).notification?.content.sound == nil)
    }

    @Test func misspeltSoundKeyIsWarned() throws {
        let warning = try #require(try warningsOf(aps(#""sound": {"name": "ping.caf", "volumes": 0.5}"#)).first)
        #expect(warning.location.path == "/aps/sound/volumes")
        #expect(warning.message.hasSuffix("did you mean \"volume\"?"))
    }

    @Test func soundDictionaryWithoutNameIsSilentAndWarned() throws {
        let reading = try read(aps(#""alert": "Hi", "sound": {"critical": 1, "volume": 0.5}"#))
        #expect(try #require(reading.notification).content.sound == nil)
        let warning = try #require(reading.diagnostics.first { $0.severity == .warning })
        #expect(warning.location.path == "/aps/sound")
        #expect(warning.message.contains("no \"name\", so the notification is silent"))
    }

    @Test func threadCategoryAndTargetContentIdentifiers() throws {
        let content = try contentOf(aps(#""alert": "Hi", "thread-id": "book-club", "category": "event-invite", "target-content-id": "room-2""#))
        #expect(content.threadIdentifier == "book-club")
        #expect(content.categoryIdentifier == "event-invite")
        #expect(content.targetContentIdentifier == "room-2")
        let bare = try contentOf(aps(#""alert": "Nothing else""#))
        #expect(bare.threadIdentifier.isEmpty)
        #expect(bare.categoryIdentifier.isEmpty)
        #expect(bare.targetContentIdentifier == nil)
    }

    @Test(arguments: [
        ("passive", InterruptionLevel.passive), ("active", .active), ("time-sensitive", .timeSensitive),
        ("timeSensitive", .timeSensitive), ("critical", .critical),
    ])
    func interruptionLevelIsReadInEitherSpelling(name: String, level: InterruptionLevel) throws {
        #expect(try contentOf(aps(#""alert": "Hi", "interruption-level": "\#(name)""#)).interruptionLevel == level)
        #expect(try contentOf(request(#""body": "Hi", "interruptionLevel": "\#(name)""#)).interruptionLevel == level)
    }

    @Test func interruptionLevelIsActiveByDefault() throws {
        #expect(try contentOf(aps(#""alert": "Hi""#)).interruptionLevel == .active)
    }

    @Test func unknownInterruptionLevelIsIgnoredAndTheLevelActive() throws {
        let warning = try onlyIgnored(aps(#""alert": "Hi", "interruption-level": "urgent""#))
        #expect(warning.location.path == "/aps/interruption-level")
        #expect(warning.message.contains("\"urgent\" is not an interruption level"))
        #expect(warning.message.contains("time-sensitive"))
        #expect(try read(aps(#""alert": "Hi", "interruption-level": "urgent""#)).notification?.content.interruptionLevel == .active)
        #expect(try onlyIgnored(aps(#""alert": "Hi", "interruption-level": 2"#)).location.path == "/aps/interruption-level")
    }

    @Test func aRequestsUnknownInterruptionLevelIsStillAnError() throws {
        #expect(try onlyError(request(#""body": "Hi", "interruptionLevel": "urgent""#)).code == .payloadInvalid)
    }

    @Test(arguments: [0.0, 0.25, 1.0])
    func relevanceScoreInRangeIsKept(score: Double) throws {
        #expect(try contentOf(aps(#""alert": "Hi", "relevance-score": \#(score)"#)).relevanceScore == score)
    }

    @Test(arguments: ["1.5", "-0.1", "\"high\""])
    func relevanceScoreOutOfRangeOrNotANumberIsIgnored(score: String) throws {
        let text = aps(#""alert": "Hi", "relevance-score": \#(score)"#)
        #expect(try onlyIgnored(text).location.path == "/aps/relevance-score")
        #expect(try read(text).notification?.content.relevanceScore == 0)
    }

    @Test func mutableContentOneMakesTheNotificationMutable() throws {
        #expect(try contentOf(aps(#""alert": "x", "mutable-content": 1"#)).mutableContent)
        #expect(try !contentOf(aps(#""alert": "x", "mutable-content": 0"#)).mutableContent)
        #expect(try !contentOf(aps(#""alert": "x""#)).mutableContent)
    }

    @Test(arguments: ["\"yes\"", "true", "2", "-1", "0.5"])
    func mutableContentOtherThanZeroOrOneIsIgnored(value: String) throws {
        let text = aps(#""alert": "x", "mutable-content": \#(value)"#)
        let warning = try onlyIgnored(text)
        #expect(warning.location.path == "/aps/mutable-content")
        #expect(warning.message.hasPrefix("\"mutable-content\" must be the number 1 (or 0); it is \(value)."))
        #expect(try read(text).notification?.content.mutableContent == false)
    }

    @Test func contentAvailableIsAZeroOrOneFlag() throws {
        let silent = try decoded(aps(#""content-available": 1"#))
        #expect(!silent.content.hasAlert)
        #expect(try decoded(aps(#""content-available": 0, "alert": "x""#)).content.body == "x")
        #expect(try onlyIgnored(aps(#""alert": "x", "content-available": "1""#)).location.path == "/aps/content-available")
        #expect(try onlyIgnored(aps(#""alert": "x", "content-available": 2"#)).location.path == "/aps/content-available")
        // Ignored, it leaves nothing to deliver: refused, as an empty aps.
        #expect(try errorsOf(aps(#""content-available": true"#)).map(\.code) == [.notificationNoContent])
    }

    @Test func wholePayloadIncludingApsIsUserInfoInOrder() throws {
        let text = #"""
            {"zone": "pier", "aps": {"alert": "Hi", "badge": 2}, "event": {"id": 7, "tags": ["a", "b"]}, "after": null}
            """#
        let content = try contentOf(text)
        #expect(content.userInfo.map(\.0) == ["zone", "aps", "event", "after"])
        #expect(JSON.object(content.userInfo) == (try JSON.parse(Array(text.utf8))))
    }

    @Test func apnsIdentifierIsTheOneGivenOrAFreshUUID() throws {
        let given = try decoded(aps(#""alert": "x""#), identifier: "book")
        #expect(given.identifier == "book")
        #expect(given.date == now)
        let first = try decoded(aps(#""alert": "x""#), identifier: nil).identifier
        let second = try decoded(aps(#""alert": "x""#), identifier: nil).identifier
        #expect(first != second)
        for identifier in [first, second] {
            let parts = identifier.split(separator: "-", omittingEmptySubsequences: false)
            #expect(parts.map(\.count) == [8, 4, 4, 4, 12], "\(identifier)")
            #expect(identifier.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isLowercase }, "\(identifier)")
        }
    }

    // MARK: Unknown keys

    @Test func misspeltApsKeysAreWarnedWithASuggestionAndIgnored() throws {
        let reading = try read(aps(#""alert": "x", "mutable_content": 1, "categroy": "invite""#))
        let notification = try #require(reading.notification)
        #expect(!notification.content.mutableContent)
        #expect(notification.content.categoryIdentifier.isEmpty)
        #expect(reading.diagnostics.codes == ["payload.unknown-key", "payload.unknown-key"])
        #expect(reading.diagnostics.map(\.severity) == [.warning, .warning])
        #expect(reading.diagnostics.map(\.location.path) == ["/aps/mutable_content", "/aps/categroy"])
        #expect(reading.diagnostics[0].message.hasSuffix("did you mean \"mutable-content\"?"))
        #expect(reading.diagnostics[1].message.hasSuffix("did you mean \"category\"?"))
    }

    @Test func misspeltAlertKeyIsWarnedWithASuggestion() throws {
        let warning = try #require(try warningsOf(aps(#""alert": {"tilte": "Dinner", "body": "At eight"}"#)).first)
        #expect(warning.location == .init(file: payloadFile, path: "/aps/alert/tilte"))
        #expect(warning.message.hasSuffix("did you mean \"title\"?"))
    }

    @Test func unknownKeyFarFromAnyNameHasNoSuggestion() throws {
        let warning = try #require(try warningsOf(aps(#""alert": "x", "zzzzzzzz": 1"#)).first)
        #expect(warning.message.hasSuffix("is ignored."))
        #expect(!warning.message.contains("did you mean"))
    }

    @Test func customKeysBesideApsAreNeverWarned() throws {
        #expect(try read(#"{"aps": {"alert": "Hi"}, "categroy": 1, "mutable_content": 1}"#).diagnostics.isEmpty)
    }

    // MARK: Wrong types

    @Test(arguments: [#"{"aps": "alert"}"#, #"{"aps": [1]}"#])
    func apsThatIsNotAnObjectIsAnError(payload: String) throws {
        let error = try onlyError(payload)
        #expect(error.code == .payloadInvalid)
        #expect(error.location == .init(file: payloadFile, path: "/aps"))
        #expect(error.message.contains("must be an object"), "\(error.message)")
    }

    /// Each field Payload reads from `aps`, of a type or value a device cannot read.
    @Test(arguments: [
        (#""sound": "ping.caf", "alert": 5"#, "/aps/alert", "a string (the body) or a dictionary"),
        (#""alert": {"title": 5, "body": "x"}"#, "/aps/alert/title", "a string"),
        (#""alert": {"subtitle": [], "body": "x"}"#, "/aps/alert/subtitle", "a string"),
        (#""alert": {"body": null, "title": "x"}"#, "/aps/alert/body", "a string"),
        (#""alert": {"subtitle-loc-key": 1, "body": "x"}"#, "/aps/alert/subtitle-loc-key", "a string"),
        (#""alert": {"loc-key": "K", "loc-args": {}}"#, "/aps/alert/loc-args", "an array"),
        (#""alert": {"body": "x", "launch-image": 1}"#, "/aps/alert/launch-image", "a string"),
        (#""alert": {"body": "x", "summary-arg": 1}"#, "/aps/alert/summary-arg", "a string"),
        (#""alert": {"body": "x", "summary-arg-count": "2"}"#, "/aps/alert/summary-arg-count", "a whole number"),
        (#""alert": "x", "badge": "3""#, "/aps/badge", "an integer"),
        (#""alert": "x", "sound": 5"#, "/aps/sound", "a sound name or a dictionary"),
        (#""alert": "x", "thread-id": 7"#, "/aps/thread-id", "a string"),
        (#""alert": "x", "category": ["a"]"#, "/aps/category", "a string"),
        (#""alert": "x", "target-content-id": {}"#, "/aps/target-content-id", "a string"),
        (#""alert": "x", "interruption-level": "loud""#, "/aps/interruption-level", "passive, active, time-sensitive or critical"),
        (#""alert": "x", "relevance-score": "0.5""#, "/aps/relevance-score", "a number"),
        (#""alert": "x", "relevance-score": 7"#, "/aps/relevance-score", "between 0.0 and 1.0"),
        (#""alert": "x", "filter-criteria": 1"#, "/aps/filter-criteria", "a string"),
        (#""alert": "x", "content-available": "1""#, "/aps/content-available", "the number 1 (or 0)"),
        (#""alert": "x", "mutable-content": true"#, "/aps/mutable-content", "the number 1 (or 0)"),
    ])
    func wrongTypeIsIgnoredAtItsPointerAndTheRestDelivered(members: String, pointer: String, expected: String) throws {
        let warning = try onlyIgnored(aps(members))
        #expect(warning.location == .init(file: payloadFile, path: pointer))
        #expect(warning.message.contains(expected), "\(warning.message)")
    }

    @Test func everyUnreadableFieldIsReportedAndNothingLeftIsRefusedAsEmpty() throws {
        let reading = try read(aps(#""alert": 5, "badge": "3", "thread-id": 7, "interruption-level": "loud""#))
        #expect(reading.notification == nil)
        #expect(reading.diagnostics.filter { $0.code == .payloadFieldIgnored }.map(\.location.path)
            == ["/aps/alert", "/aps/badge", "/aps/thread-id", "/aps/interruption-level"])
        let refusal = try #require(reading.diagnostics.first { $0.severity == .error })
        #expect(refusal.code == .notificationNoContent)
        #expect(Payload.appleCode(of: reading.diagnostics) == 1401)
    }

    // MARK: Empty notifications

    @Test(arguments: [#"{"aps": {}}"#, #"{"aps": {"category": "c", "mutable-content": 1, "thread-id": "t"}}"#,
                      #"{"aps": {"alert": {}}}"#, #"{"aps": {"alert": ""}, "custom": 1}"#])
    func anEmptyApsIsRefusedWithApplesNoContentError(payload: String) throws {
        let error = try onlyError(payload)
        #expect(error.code == .notificationNoContent)
        #expect(error.location.path == "/aps")
        #expect(error.message.contains("Apple's error 1401, UNErrorCodeNotificationInvalidNoContent"))
        #expect(Payload.appleCode(of: [error]) == 1401)
    }

    @Test(arguments: [#""badge": 0"#, #""sound": "default""#, #""content-available": 1"#, #""alert": {"subtitle": "s"}"#])
    func anApsWithABadgeASoundAWakeOrAnAlertIsNotEmpty(members: String) throws {
        _ = try decoded(aps(members))
    }

    @Test(arguments: [#"{"identifier": "e", "content": {}}"#,
                      #"{"identifier": "e", "content": {"title": "", "categoryIdentifier": "c", "userInfo": {"a": 1}}}"#])
    func aRequestWithEmptyContentIsRefusedWithApplesNoContentError(payload: String) throws {
        let error = try onlyError(payload)
        #expect(error.code == .notificationNoContent)
        #expect(error.location.path == "/content")
        #expect(error.message.contains("1401"))
    }

    @Test(arguments: [#""subtitle": "s""#, #""badge": 3"#, #""sound": "default""#,
                      #""attachments": [{"path": "a.png"}]"#])
    func aRequestWithATextABadgeASoundOrAnAttachmentIsNotEmpty(members: String) throws {
        _ = try decoded(request(members))
    }

    @Test func aRequestsWrongTypesAreStillErrors() throws {
        #expect(try onlyError(request(#""body": "x", "badge": "3""#)).code == .payloadInvalid)
    }

    @Test(arguments: ["{}", #"{"alert": "Hi", "title": "T"}"#, "[]", #"[{"aps": {}}]"#, #""aps""#, "null", "5"])
    func neitherApsNorContentIsUnrecognized(payload: String) throws {
        let error = try onlyError(payload)
        #expect(error.code == .payloadUnrecognized)
        #expect(error.location == .init(file: payloadFile, path: ""))
    }

    @Test func apsWinsOverContent() throws {
        let content = try contentOf(#"{"aps": {"alert": "Remote"}, "content": {"body": "Local"}}"#)
        #expect(content.body == "Remote")
        #expect(content.userInfo.map(\.0) == ["aps", "content"])
    }

    // MARK: Requests

    @Test func requestReadsEveryContentMember() throws {
        let notification = try decoded(#"""
            {"identifier": "invite-1", "date": "2026-11-21T09:30:00Z", "content": {
              "title": "Team offsite", "subtitle": "Thursday", "body": "You are invited.", "badge": 0, "sound": "default",
              "threadIdentifier": "offsite", "categoryIdentifier": "event-invite", "targetContentIdentifier": "pier",
              "interruptionLevel": "time-sensitive", "relevanceScore": 0.5,
              "userInfo": {"z": 1, "a": {"list": [true, null]}}
            }}
            """#, identifier: nil)
        #expect(notification.identifier == "invite-1")
        #expect(notification.date == 1_795_253_400)
        var expected = NotificationContent()
        expected.title = "Team offsite"
        expected.subtitle = "Thursday"
        expected.body = "You are invited."
        expected.badge = 0
        expected.sound = "default"
        expected.threadIdentifier = "offsite"
        expected.categoryIdentifier = "event-invite"
        expected.targetContentIdentifier = "pier"
        expected.interruptionLevel = .timeSensitive
        expected.relevanceScore = 0.5
        expected.isLocal = true
        expected.userInfo = [("z", .integer(1)), ("a", .object([("list", .array([.bool(true), .null]))]))]
        #expect(notification.content == expected)
        #expect(notification.content.userInfo.map(\.0) == ["z", "a"])
        #expect(!notification.content.mutableContent)
    }

    @Test(arguments: [
        (#""2026-11-21T09:30:00Z""#, 1_795_253_400.0),
        (#""2026-11-21T09:30:00.250+02:00""#, 1_795_246_200.25),
        ("1800000123", 1_800_000_123.0),
        ("1800000123.5", 1_800_000_123.5),
    ])
    func requestDateIsISO8601OrSecondsSince1970(date: String, seconds: Double) throws {
        let notification = try decoded(#"{"identifier": "d", "date": \#(date), "content": {"body": "x"}}"#)
        #expect(notification.date == seconds)
    }

    @Test func requestWithoutDateIsDeliveredNow() throws {
        #expect(try decoded(request(#""body": "x""#)).date == now)
    }

    @Test func badDateIsAnError() throws {
        let error = try onlyError(#"{"identifier": "d", "date": "tomorrow", "content": {"body": "x"}}"#)
        #expect(error.location.path == "/date")
        #expect(error.message.contains("ISO 8601"))
        #expect(error.message.contains("\"tomorrow\""))
        #expect(try onlyError(#"{"identifier": "d", "date": true, "content": {"body": "x"}}"#).location.path == "/date")
        #expect(try onlyError(#"{"identifier": "d", "date": "2026-13-40T99:00:00Z", "content": {"body": "x"}}"#).location.path == "/date")
    }

    @Test func requestIdentifierIsTheGivenOneThenThePayloadsThenAFreshOne() throws {
        let payload = #"{"identifier": "from-payload", "content": {"body": "x"}}"#
        #expect(try decoded(payload, identifier: nil).identifier == "from-payload")
        #expect(try decoded(payload, identifier: "from-option").identifier == "from-option")
        let generated = try decoded(#"{"content": {"body": "x"}}"#, identifier: nil).identifier
        #expect(generated.count == 36)
    }

    @Test func emptyIdentifierIsAnError() throws {
        let error = try onlyError(#"{"identifier": "", "content": {"body": "x"}}"#, identifier: nil)
        #expect(error.location.path == "/identifier")
        #expect(error.message == "\"identifier\" is empty.")
        let notString = try onlyError(#"{"identifier": 42, "content": {"body": "x"}}"#, identifier: nil)
        #expect(notString.location.path == "/identifier")
    }

    @Test func contentMustBeAnObject() throws {
        let error = try onlyError(#"{"identifier": "r", "content": "Hello"}"#)
        #expect(error.location.path == "/content")
        #expect(error.message == "\"content\" must be an object; it is a string.")
    }

    @Test func requestMembersHaveTheirTypes() throws {
        let errors = try errorsOf(request(#"""
            "title": 1, "badge": "2", "sound": 5, "userInfo": [], "attachments": {},
            "interruptionLevel": "loud", "relevanceScore": 2
            """#))
        #expect(errors.map(\.location.path) == [
            "/content/title", "/content/badge", "/content/sound", "/content/interruptionLevel",
            "/content/relevanceScore", "/content/userInfo", "/content/attachments",
        ])
    }

    @Test func misspeltRequestKeysAreWarnedWithSuggestions() throws {
        let reading = try read(#"{"identifer": "x", "content": {"body": "b", "categoryIdentifer": "c", "userinfo": {}}}"#,
                               identifier: nil)
        #expect(reading.notification?.content.categoryIdentifier == "")
        let warnings = reading.diagnostics.filter { $0.severity == .warning }
        #expect(warnings.map(\.location.path) == ["/identifer", "/content/categoryIdentifer", "/content/userinfo"])
        #expect(warnings[0].message.hasSuffix("did you mean \"identifier\"?"))
        #expect(warnings[1].message.hasSuffix("did you mean \"categoryIdentifier\"?"))
        #expect(warnings[2].message.hasSuffix("did you mean \"userInfo\"?"))
    }

    // MARK: Attachments

    @Test func relativePathBecomesARequestTakenFromThePayloadsDirectory() throws {
        let reading = try read(attachments(#"{"identifier": "photo", "path": "images/photo.png"}"#))
        #expect(reading.diagnostics.isEmpty)
        #expect(reading.attachments == [AttachmentRequest(identifier: "photo", url: "images/photo.png",
                                                          base: payloadDirectory, location: entry(0))])
        // The notification does not carry them until the store has taken them in.
        #expect(reading.notification?.content.attachments == [])
    }

    @Test func attachmentsKeepTheirOrderAndMayLackIdentifiers() throws {
        let reading = try read(attachments(#"{"path": "a.png"}, {"path": "b.gif"}, {"identifier": "c", "path": "c.mp3"}"#))
        #expect(reading.diagnostics.isEmpty)
        #expect(reading.attachments.map(\.url) == ["a.png", "b.gif", "c.mp3"])
        #expect(reading.attachments.map(\.identifier) == ["", "", "c"])
        #expect(reading.attachments.map(\.location) == [entry(0), entry(1), entry(2)])
    }

    @Test func fileURLIsKeptAsItIs() throws {
        let reading = try read(attachments(#"{"identifier": "clip", "url": "file:///var/media/clip%20one.mp4"}"#))
        #expect(reading.diagnostics.isEmpty)
        let attachment = try #require(reading.attachments.first)
        #expect(attachment.url == "file:///var/media/clip%20one.mp4")
        #expect(attachment.base == payloadDirectory)
    }

    @Test(arguments: ["http://example.com/a.png", "https://example.com/a.png", "/var/media/a.png", "a.png"])
    func urlOtherThanFileIsRefused(url: String) throws {
        let error = try onlyError(attachments(#"{"url": "\#(url)"}"#))
        #expect(error.location.path == "/content/attachments/0/url")
        #expect(error.message.contains("must be file:// URLs"))
    }

    @Test func pathAndURLTogetherAreRefused() throws {
        let error = try onlyError(attachments(#"{"path": "a.png", "url": "file:///a.png"}"#))
        #expect(error.location == entry(0))
        #expect(error.message == "An attachment takes a \"path\" or a \"url\", not both.")
    }

    @Test func attachmentWithoutPathOrURLIsRefused() throws {
        let error = try onlyError(attachments(#"{"identifier": "nothing"}"#))
        #expect(error.location == entry(0))
        #expect(error.message.contains("needs a \"path\" or a file:// \"url\""))
    }

    @Test func attachmentEntryMustBeAnObject() throws {
        #expect(try onlyError(attachments(#"{"path": "a.png"}, "b.png""#)).location.path == "/content/attachments/1")
    }

    @Test func optionsReachTheRequest() throws {
        let reading = try read(attachments(#"""
            {"identifier": "clip", "path": "clip.mp4", "typeHint": "public.mpeg-4", "thumbnailHidden": true,
             "thumbnailTime": 2.5, "thumbnailClippingRect": {"x": 0.1, "y": 0.2, "width": 0.5, "height": 0.75}}
            """#))
        #expect(reading.diagnostics.isEmpty)
        let attachment = try #require(reading.attachments.first)
        #expect(attachment.typeHint == "public.mpeg-4")
        #expect(attachment.thumbnail == ThumbnailOptions(
            hidden: true, clippingRect: .init(x: 0.1, y: 0.2, width: 0.5, height: 0.75), time: 2.5))
    }

    @Test func absentOptionsAreTheDefaults() throws {
        let attachment = try #require(try read(attachments(#"{"path": "a.png"}"#)).attachments.first)
        #expect(attachment.typeHint == nil)
        #expect(attachment.thumbnail == ThumbnailOptions())
    }

    @Test func optionsHaveTheirTypes() throws {
        #expect(try onlyError(attachments(#"{"path": "a.png", "thumbnailHidden": "yes"}"#)).location.path
            == "/content/attachments/0/thumbnailHidden")
        #expect(try onlyError(attachments(#"{"path": "a.png", "typeHint": 5}"#)).location.path
            == "/content/attachments/0/typeHint")
        #expect(try onlyError(attachments(#"{"path": "a.png", "thumbnailClippingRect": [0, 0, 1, 1]}"#)).location.path
            == "/content/attachments/0/thumbnailClippingRect")
    }

    @Test(arguments: [(0.0, true), (86_400, true), (-1, false), (86_401, false)])
    func thumbnailTimeIsWithinADay(time: Double, accepted: Bool) throws {
        let reading = try read(attachments(#"{"path": "a.mp4", "thumbnailTime": \#(time)}"#))
        if accepted {
            #expect(reading.attachments.first?.thumbnail.time == time)
        } else {
            #expect(reading.diagnostics.map(\.location.path) == ["/content/attachments/0/thumbnailTime"])
        }
    }

    @Test func clippingRectValueOutsideZeroToOneIsRefused() throws {
        let error = try onlyError(attachments(
            #"{"path": "a.png", "thumbnailClippingRect": {"x": 1.5, "y": 0, "width": 0.5, "height": 0.5}}"#))
        #expect(error.location.path == "/content/attachments/0/thumbnailClippingRect/x")
        #expect(error.message.contains("between 0.0 and 1.0"))
    }

    @Test(arguments: [
        #"{"x": 0.6, "y": 0, "width": 0.5, "height": 0.5}"#,
        #"{"x": 0, "y": 0.5, "width": 1, "height": 0.6}"#,
        #"{"x": 0, "y": 0, "width": 0, "height": 1}"#,
    ])
    func clippingRectOutsideTheImageOrWithoutSizeIsRefused(rect: String) throws {
        let error = try onlyError(attachments(#"{"path": "a.png", "thumbnailClippingRect": \#(rect)}"#))
        #expect(error.location.path == "/content/attachments/0/thumbnailClippingRect")
        #expect(error.message.contains("within the image"))
    }

    @Test func clippingRectMissingAMemberIsRefusedOnce() throws {
        let error = try onlyError(attachments(#"{"path": "a.png", "thumbnailClippingRect": {"x": 0, "y": 0, "width": 1}}"#))
        #expect(error.location.path == "/content/attachments/0/thumbnailClippingRect")
        #expect(error.message.contains("needs \"x\", \"y\", \"width\" and \"height\""))
    }

    @Test func clippingRectWithAWrongMemberIsRefusedOnlyForIt() throws {
        let error = try onlyError(attachments(#"{"path": "a.png", "thumbnailClippingRect": {"x": "0", "y": 0, "width": 1}}"#))
        #expect(error.location.path == "/content/attachments/0/thumbnailClippingRect/x")
    }

    @Test func duplicateAttachmentIdentifiersAreRefused() throws {
        let error = try onlyError(attachments(#"{"identifier": "p", "path": "a.png"}, {"identifier": "p", "path": "b.png"}"#))
        #expect(error.location.path == "/content/attachments/1/identifier")
        #expect(error.message.contains("Two attachments have the identifier \"p\""))
    }

    @Test func oldTypeKeyIsWarnedWithItsNewName() throws {
        let reading = try read(attachments(#"{"path": "a.png", "type": "public.png"}"#))
        #expect(reading.attachments.first?.typeHint == nil)
        let warning = try #require(reading.diagnostics.first)
        #expect(reading.diagnostics.count == 1)
        #expect(warning.severity == .warning)
        #expect(warning.code == .payloadUnknownKey)
        #expect(warning.location.path == "/content/attachments/0/type")
        #expect(warning.message.contains("did you mean \"typeHint\""))
    }

    @Test func misspeltAttachmentKeyIsWarnedWithASuggestion() throws {
        let warning = try #require(try warningsOf(attachments(#"{"path": "a.png", "thumbnailHiden": true}"#)).first)
        #expect(warning.location.path == "/content/attachments/0/thumbnailHiden")
        #expect(warning.message.hasSuffix("did you mean \"thumbnailHidden\"?"))
    }

    // MARK: Robustness

    @Test func mutatedPayloadsGiveANotificationOrAnErrorAndNeverCrash() throws {
        let seeds = [
            #"""
            {"aps": {"alert": {"title": "T", "subtitle": "S", "body": "B", "title-loc-key": "K", "title-loc-args": ["a"],
                               "subtitle-loc-key": "S", "loc-key": "L", "loc-args": ["x", "y"], "action-loc-key": "A"},
                     "badge": 3, "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.5}, "thread-id": "t",
                     "category": "c", "mutable-content": 1, "content-available": 1, "target-content-id": "w",
                     "interruption-level": "time-sensitive", "relevance-score": 0.5},
             "custom": {"nested": [1, 2, {"k": "v"}]}}
            """#,
            #"""
            {"identifier": "r", "date": "2026-11-21T09:30:00Z",
             "content": {"title": "T", "subtitle": "S", "body": "B", "badge": 1, "sound": "default",
                         "threadIdentifier": "t", "categoryIdentifier": "c", "targetContentIdentifier": "w",
                         "interruptionLevel": "passive", "relevanceScore": 1, "userInfo": {"k": [1, {"a": null}]},
                         "attachments": [
                           {"identifier": "a", "path": "a.png", "typeHint": "public.png", "thumbnailHidden": false,
                            "thumbnailTime": 1.5, "thumbnailClippingRect": {"x": 0, "y": 0, "width": 1, "height": 0.5}},
                           {"identifier": "b", "url": "file:///tmp/b.gif"}]}}
            """#,
        ]
        var deep = JSON.string("deep")
        for level in 0..<250 { deep = level.isMultiple(of: 2) ? .array([deep]) : .object([("d", deep)]) }
        let replacements: [JSON] = [
            .null, .bool(true), .bool(false), .integer(0), .integer(1), .integer(-1), .integer(.max), .integer(.min),
            .double(0.5), .double(-1e300), .double(1e300), .string(""), .string("x"), .string("%@%1$@%99$@%"),
            .string("file:///etc/passwd"), .string("../../x"), .array([]), .array([.string("a"), .integer(2), .null]),
            .object([]), .object([("x", .integer(2)), ("x", .string("again"))]), deep,
        ]
        var generator = SplitMix64(seed: 2026)
        var failures: [String] = []
        var decoded = 0
        var refused = 0

        func check(_ json: JSON, _ what: @autoclosure () -> String) {
            for identifier in [nil, "fixed"] as [String?] {
                let reading = Payload.decode(json, file: payloadFile, baseDirectory: payloadDirectory,
                                             identifier: identifier, strings: ["K": "%@ and %2$@", "L": "%%"], now: now)
                let failed = reading.diagnostics.containsError
                if (reading.notification == nil) != failed || (failed && !reading.attachments.isEmpty) {
                    failures.append("\(what()): \(reading.diagnostics)")
                }
                if failed { refused += 1 } else { decoded += 1 }
            }
        }

        for seed in seeds {
            let valid = try JSON.parse(Array(seed.utf8))
            let reading = Payload.decode(valid, file: payloadFile, baseDirectory: payloadDirectory, now: now)
            #expect(reading.notification != nil && reading.diagnostics.isEmpty, "\(reading.diagnostics)")
            let paths = [[]] + valuePaths(in: valid)
            // Each member dropped, and each value replaced by one of every kind.
            for path in paths {
                check(valid.replacing(path[...], with: nil), "drop \(path)")
                for replacement in replacements {
                    check(valid.replacing(path[...], with: replacement), "\(path) = \(replacement.typeDescription)")
                }
            }
            // Several changes at once.
            for round in 0..<400 {
                var json = valid
                for _ in 0..<Int.random(in: 2...5, using: &generator) {
                    let targets = [[]] + valuePaths(in: json)
                    let path = targets[Int.random(in: 0..<targets.count, using: &generator)]
                    let replacement = Int.random(in: 0...replacements.count, using: &generator)
                    json = json.replacing(path[...], with: replacement == replacements.count ? nil : replacements[replacement])
                }
                check(json, "round \(round)")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // The mutations must exercise both outcomes, or they prove little.
        #expect(decoded > 100)
        #expect(refused > 100)
    }
}

/// A step from a JSON value into one it holds.
private enum Step: CustomStringConvertible {
    case member(String)
    case element(Int)

    var description: String {
        switch self {
        case .member(let name): name
        case .element(let position): "\(position)"
        }
    }
}

/// The path to every value inside `json` (not `json` itself), parents before children.
private func valuePaths(in json: JSON, under prefix: [Step] = []) -> [[Step]] {
    switch json {
    case .object(let members):
        members.flatMap { name, value in
            let path = prefix + [.member(name)]
            return [path] + valuePaths(in: value, under: path)
        }
    case .array(let elements):
        elements.enumerated().flatMap { position, value in
            let path = prefix + [.element(position)]
            return [path] + valuePaths(in: value, under: path)
        }
    default:
        []
    }
}

extension JSON {
    /// This value with the one at `path` replaced by `replacement`, or
    /// removed when `replacement` is nil (the root becomes null).
    fileprivate func replacing(_ path: ArraySlice<Step>, with replacement: JSON?) -> JSON {
        guard let step = path.first else { return replacement ?? .null }
        let rest = path.dropFirst()
        switch (self, step) {
        case (.object(var members), .member(let name)):
            guard let index = members.firstIndex(where: { $0.0 == name }) else { return self }
            if rest.isEmpty && replacement == nil {
                members.remove(at: index)
            } else {
                members[index].1 = members[index].1.replacing(rest, with: replacement)
            }
            return .object(members)
        case (.array(var elements), .element(let position)) where elements.indices.contains(position):
            if rest.isEmpty && replacement == nil {
                elements.remove(at: position)
            } else {
                elements[position] = elements[position].replacing(rest, with: replacement)
            }
            return .array(elements)
        default:
            return self
        }
    }
}

/// A small seeded generator (SplitMix64), so that every run tries the same payloads.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
