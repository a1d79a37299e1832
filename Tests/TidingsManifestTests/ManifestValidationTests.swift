import TestSupport
import Testing
import TidingsBase
import TidingsManifest

// MARK: - Building manifests

/// `<plist><dict>body</dict></plist>`, as an Info.plist holds it.
private func plistXML(_ body: String) -> [UInt8] {
    Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(body)
        </dict>
        </plist>
        """.utf8)
}

/// The XML of a content extension's manifest that validates cleanly, changed
/// by the arguments. `identifier`, `executable` and `point` are plain text;
/// `category` and `ratio` are XML values; `attributes`, `extensionEntries`
/// and `top` are more `<key>…</key>` entries for NSExtensionAttributes,
/// NSExtension and the root. nil leaves a key out.
private func manifestXML(
    identifier: String? = "com.example.events.invite",
    executable: String? = "Invite",
    point: String? = ExtensionPoint.content.rawValue,
    category: String? = "<string>INVITE</string>",
    ratio: String? = "<real>0.5</real>",
    attributes: String = "",
    extensionEntries: String = "",
    top: String = ""
) -> [UInt8] {
    var attributeEntries = attributes
    if let category { attributeEntries = "<key>UNNotificationExtensionCategory</key>\(category)\n" + attributeEntries }
    if let ratio { attributeEntries += "\n<key>UNNotificationExtensionInitialContentSizeRatio</key>\(ratio)" }
    var body = ""
    if let identifier { body += "<key>CFBundleIdentifier</key><string>\(identifier)</string>\n" }
    if let executable { body += "<key>CFBundleExecutable</key><string>\(executable)</string>\n" }
    body += top
    body += "\n<key>NSExtension</key>\n<dict>\n"
    if let point { body += "<key>NSExtensionPointIdentifier</key><string>\(point)</string>\n" }
    body += extensionEntries
    body += "\n<key>NSExtensionAttributes</key>\n<dict>\n\(attributeEntries)\n</dict>\n</dict>"
    return plistXML(body)
}

/// A service extension's manifest: no attributes at all, as Xcode's template has it.
private func serviceXML(extensionEntries: String = "") -> [UInt8] {
    plistXML("""
        <key>CFBundleIdentifier</key><string>com.example.events.service</string>
        <key>CFBundleExecutable</key><string>EventService</string>
        <key>NSExtension</key>
        <dict>
          <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.service</string>
          <key>NSExtensionPrincipalClass</key><string>EventService.NotificationService</string>
          \(extensionEntries)
        </dict>
        """)
}

/// Reads `bytes` as the file Info.plist, checking the rule every result
/// keeps: there is a manifest exactly when no diagnostic is an error.
private func read(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> ManifestValidation {
    let result = Manifest.read(bytes, file: "Info.plist")
    #expect((result.manifest == nil) == result.diagnostics.containsError,
            "a manifest must exist exactly when there is no error: \(result.diagnostics)",
            sourceLocation: sourceLocation)
    return result
}

/// The one diagnostic with `code`, which must be there exactly once.
private func only(_ code: String, in result: ManifestValidation,
                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let matching = result.diagnostics.filter { $0.code.rawValue == code }
    #expect(matching.count == 1, "expected one \(code) in \(result.diagnostics)", sourceLocation: sourceLocation)
    return try #require(matching.first, sourceLocation: sourceLocation)
}

private let attributesPath = "NSExtension.NSExtensionAttributes"
private let categoryPath = "\(attributesPath).UNNotificationExtensionCategory"
private let ratioPath = "\(attributesPath).UNNotificationExtensionInitialContentSizeRatio"
private let pointPath = "NSExtension.NSExtensionPointIdentifier"

// MARK: - Valid manifests

@Suite struct ManifestValidationTests {
    @Test func completeContentExtensionReadsEveryField() throws {
        let result = read(manifestXML(
            category: "<array><string>EVENT_INVITE</string><string>EVENT_UPDATE</string></array>",
            ratio: "<real>0.75</real>",
            attributes: """
                <key>UNNotificationExtensionDefaultContentHidden</key><true/>
                <key>UNNotificationExtensionOverridesDefaultTitle</key><true/>
                <key>UNNotificationExtensionUserInteractionEnabled</key><true/>
                """,
            extensionEntries: "<key>NSExtensionMainStoryboard</key><string>MainInterface</string>",
            top: """
                <key>CFBundleDisplayName</key><string>Event Invite</string>
                <key>CFBundleName</key><string>EventInvite</string>
                <key>CFBundleShortVersionString</key><string>2.1</string>
                """))
        #expect(result.diagnostics.isEmpty)
        let manifest = try #require(result.manifest)
        #expect(manifest.bundleIdentifier == "com.example.events.invite")
        #expect(manifest.appIdentifier == "com.example.events")
        #expect(manifest.executable == "Invite")
        #expect(manifest.displayName == "Event Invite")
        #expect(manifest.version == "2.1")
        #expect(manifest.point == .content)
        #expect(manifest.interfaceName == "MainInterface")
        #expect(manifest.categories == ["EVENT_INVITE", "EVENT_UPDATE"])
        #expect(manifest.initialContentSizeRatio == 0.75)
        #expect(manifest.defaultContentHidden)
        #expect(manifest.overridesDefaultTitle)
        #expect(manifest.userInteractionEnabled)
    }

    @Test func absentOptionalKeysTakeTheirDefaults() throws {
        let result = read(manifestXML())
        #expect(result.diagnostics.isEmpty)
        let manifest = try #require(result.manifest)
        #expect(manifest.displayName == nil)
        #expect(manifest.version == nil)
        #expect(manifest.interfaceName == nil)
        #expect(manifest.defaultContentHidden == false)
        #expect(manifest.overridesDefaultTitle == false)
        #expect(manifest.userInteractionEnabled == false)
    }

    @Test func displayNameFallsBackToBundleName() throws {
        let result = read(manifestXML(top: "<key>CFBundleName</key><string>EventInvite</string>"))
        #expect(try #require(result.manifest).displayName == "EventInvite")
    }

    @Test func serviceExtensionNeedsNoAttributesRatioOrCategories() throws {
        let result = read(serviceXML())
        #expect(result.diagnostics.isEmpty)
        let manifest = try #require(result.manifest)
        #expect(manifest.point == .service)
        #expect(manifest.categories.isEmpty)
        #expect(manifest.initialContentSizeRatio == nil)
        #expect(manifest.appIdentifier == "com.example.events")
    }

    @Test func serviceExtensionWithARatioIsWarnedThatItIsIgnored() throws {
        let result = read(manifestXML(point: ExtensionPoint.service.rawValue, category: nil))
        #expect(findings(result.diagnostics) == [.warning("manifest.attribute-ignored", at: ratioPath)])
        #expect(try only("manifest.attribute-ignored", in: result).message.contains("only to content extensions"))
        #expect(result.manifest?.point == .service)
    }

    @Test func serviceExtensionCategoriesAreNotedAsATidingsAddition() throws {
        let result = read(manifestXML(point: ExtensionPoint.service.rawValue, ratio: nil))
        #expect(findings(result.diagnostics) == [.note("manifest.service-category-filter",
                                                       at: categoryPath)])
        #expect(try only("manifest.service-category-filter", in: result).message.contains("Tidings addition: iOS ignores it"))
        #expect(result.manifest?.categories == ["INVITE"])
    }

    @Test func serviceExtensionWithAMalformedRatioIsOnlyWarned() throws {
        // The key is ignored for a service extension, so its value cannot make the bundle unusable.
        let result = read(manifestXML(point: ExtensionPoint.service.rawValue, category: nil, ratio: "<string>big</string>"))
        #expect(findings(result.diagnostics) == [.warning("manifest.attribute-ignored", at: ratioPath)])
        #expect(result.manifest?.initialContentSizeRatio == nil)
    }

    @Test func validateAcceptsADecodedPropertyList() throws {
        let result = Manifest.validate(contentExtension, file: "Info.plist")
        #expect(result.diagnostics.isEmpty)
        let manifest = try #require(result.manifest)
        #expect(manifest.bundleIdentifier == "com.example.calendar.EventInvite")
        #expect(manifest.categories == ["EVENT_INVITE", "EVENT_UPDATE"])
    }

    @Test func jsonManifestIsReadLikeXML() throws {
        let json = """
            {"CFBundleIdentifier": "com.example.events.invite", "CFBundleExecutable": "Invite",
             "NSExtension": {"NSExtensionPointIdentifier": "com.apple.usernotifications.content-extension",
               "NSExtensionAttributes": {"UNNotificationExtensionCategory": ["INVITE"],
                 "UNNotificationExtensionInitialContentSizeRatio": 1,
                 "UNNotificationExtensionUserInteractionEnabled": true}}}
            """
        let result = read(Array(json.utf8))
        #expect(result.diagnostics.isEmpty)
        let manifest = try #require(result.manifest)
        #expect(manifest.initialContentSizeRatio == 1)
        #expect(manifest.userInteractionEnabled)
    }

    @Test(arguments: [
        ("com.example.events.invite", "com.example.events"),
        ("com.example.calendar.EventInvite", "com.example.calendar"),
        ("a.b", "a"),
        ("invite", ""),
    ])
    func appIdentifierIsTheExtensionIdentifierWithoutItsLastComponent(identifier: String, app: String) {
        #expect(Manifest.appIdentifier(ofExtension: identifier) == app)
    }

    @Test func everyDiagnosticNamesTheFileItCameFrom() {
        let result = read(manifestXML(executable: nil, ratio: "<real>0</real>",
                                      top: "<key>CFBundleVersion</key><string>$(CURRENT_PROJECT_VERSION)</string>"))
        #expect(result.diagnostics.count == 3)
        #expect(result.diagnostics.allSatisfy { $0.location.file == "Info.plist" })
        let unnamed = Manifest.validate(.dictionary([]))
        #expect(!unnamed.diagnostics.isEmpty)
        #expect(unnamed.diagnostics.allSatisfy { $0.location.file == nil })
    }

    /// Without a file name a decoding error once named the file "".
    @Test func decodingErrorWithoutAFileNamesNoFile() throws {
        let result = Manifest.read(Array("hello".utf8))
        #expect(result.manifest == nil)
        let diagnostic = try #require(result.diagnostics.first)
        #expect(diagnostic.location.file == nil)
    }

    @Test func decoderWarningsComeFirstAndDoNotStopTheManifest() throws {
        let result = read(manifestXML(top: "<key>CFBundleIdentifier</key><string>com.example.events.invite</string>"))
        #expect(findings(result.diagnostics).map(\.code) == ["plist.duplicate-key"])
        #expect(result.manifest != nil)
    }

    @Test(arguments: [
        ([UInt8](), "plist.unknown-format"),
        (Array("hello".utf8), "plist.unknown-format"),
        (Array("<plist><dict><key>a</key></plist>".utf8), "plist.syntax"),
        (Array("{\"CFBundleIdentifier\": null}".utf8), "plist.json-null"),
    ])
    func undecodableBytesGiveOneErrorInTheFile(bytes: [UInt8], code: String) throws {
        let result = read(bytes)
        #expect(result.manifest == nil)
        #expect(result.diagnostics.count == 1)
        let diagnostic = try #require(result.diagnostics.first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.code.rawValue == code)
        #expect(diagnostic.location.file == "Info.plist")
    }
}

// MARK: - Structure and required keys

@Suite struct ManifestStructureTests {
    @Test func rootMustBeADictionary() throws {
        let result = read(Array("<plist><array><string>x</string></array></plist>".utf8))
        #expect(findings(result.diagnostics) == [.error("manifest.not-a-dictionary", at: "")])
        #expect(try only("manifest.not-a-dictionary", in: result).message.contains("it is an array"))
    }

    @Test func missingNSExtensionIsAnError() throws {
        let result = read(plistXML("""
            <key>CFBundleIdentifier</key><string>com.example.events.invite</string>
            <key>CFBundleExecutable</key><string>Invite</string>
            """))
        #expect(findings(result.diagnostics) == [.error("manifest.extension-missing", at: "NSExtension")])
    }

    @Test func nsExtensionOfTheWrongTypeIsAnError() throws {
        let result = read(plistXML("""
            <key>CFBundleIdentifier</key><string>com.example.events.invite</string>
            <key>CFBundleExecutable</key><string>Invite</string>
            <key>NSExtension</key><string>com.apple.usernotifications.content-extension</string>
            """))
        #expect(findings(result.diagnostics) == [.error("manifest.wrong-type", at: "NSExtension")])
        #expect(try only("manifest.wrong-type", in: result).message.contains("must be a dictionary; it is a string"))
    }

    @Test func contentExtensionWithoutAttributesIsToldWhatItNeeds() {
        let result = read(plistXML("""
            <key>CFBundleIdentifier</key><string>com.example.events.invite</string>
            <key>CFBundleExecutable</key><string>Invite</string>
            <key>NSExtension</key>
            <dict><key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string></dict>
            """))
        #expect(findings(result.diagnostics) == [
            .error("manifest.attributes-missing", at: attributesPath),
            .error("manifest.category-missing", at: categoryPath),
            .error("manifest.ratio-missing", at: ratioPath),
        ])
    }

    @Test func attributesOfTheWrongTypeAreAnError() {
        let result = read(plistXML("""
            <key>CFBundleIdentifier</key><string>com.example.events.invite</string>
            <key>CFBundleExecutable</key><string>Invite</string>
            <key>NSExtension</key>
            <dict>
              <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string>
              <key>NSExtensionAttributes</key><array/>
            </dict>
            """))
        #expect(findings(result.diagnostics).first == .error("manifest.wrong-type", at: attributesPath))
        #expect(result.manifest == nil)
    }

    @Test func bundleIdentifierMissingOrEmpty() throws {
        let missing = read(manifestXML(identifier: nil))
        #expect(findings(missing.diagnostics) == [.error("manifest.bundle-identifier-missing", at: "CFBundleIdentifier")])
        let empty = read(manifestXML(identifier: ""))
        #expect(findings(empty.diagnostics) == [.error("manifest.bundle-identifier-missing", at: "CFBundleIdentifier")])
        #expect(try only("manifest.bundle-identifier-missing", in: empty).message.contains("is empty"))
    }

    @Test func requiredStringOfTheWrongTypeIsAnError() throws {
        let result = Manifest.validate(.dictionary([
            ("CFBundleIdentifier", .integer(42)),
            ("CFBundleExecutable", .string("Invite")),
            ("NSExtension", .dictionary([("NSExtensionPointIdentifier", .string(ExtensionPoint.service.rawValue))])),
        ]))
        #expect(findings(result.diagnostics) == [.error("manifest.wrong-type", at: "CFBundleIdentifier")])
        #expect(result.manifest == nil)
        #expect(result.diagnostics.first?.message.contains("must be a string; it is an integer") == true)
    }

    @Test func optionalStringOfTheWrongTypeIsIgnoredWithAWarning() throws {
        let result = read(manifestXML(top: "<key>CFBundleShortVersionString</key><real>1.5</real>"))
        #expect(findings(result.diagnostics) == [.warning("manifest.wrong-type", at: "CFBundleShortVersionString")])
        let manifest = try #require(result.manifest)
        #expect(manifest.version == nil)
    }

    @Test(arguments: [
        "com.example.events.invite", "com.example-2.App3", "a.b", "COM.EXAMPLE.X",
    ])
    func wellFormedBundleIdentifierIsAccepted(identifier: String) throws {
        let result = read(manifestXML(identifier: identifier))
        #expect(result.diagnostics.isEmpty)
        #expect(try #require(result.manifest).bundleIdentifier == identifier)
    }

    @Test(arguments: [
        ("invite", "must extend its app's identifier"),
        ("com.example.events_invite", "only letters, digits"),
        ("com.example..invite", "no empty component"),
        (".com.example", "no empty component"),
        ("com.example.", "no empty component"),
        ("com.exämple.invite", "only letters, digits"),
        ("com.example events.invite", "only letters, digits"),
        ("com/example/invite", "only letters, digits"),
    ])
    func malformedBundleIdentifierIsAnError(identifier: String, explanation: String) throws {
        let result = read(manifestXML(identifier: identifier))
        #expect(findings(result.diagnostics) == [.error("manifest.bundle-identifier-invalid", at: "CFBundleIdentifier")])
        let message = try only("manifest.bundle-identifier-invalid", in: result).message
        #expect(message.contains("\"\(identifier)\""))
        #expect(message.contains(explanation))
    }

    @Test(arguments: ["Invite", "libInvite.so", "Invite-1.0"])
    func plainExecutableNameIsAccepted(executable: String) throws {
        let result = read(manifestXML(executable: executable))
        #expect(result.diagnostics.isEmpty)
        #expect(try #require(result.manifest).executable == executable)
    }

    @Test(arguments: ["lib/Invite.so", "/usr/lib/libInvite.so", "../Invite", ".", ".."])
    func executableThatIsNotAFileNameIsAnError(executable: String) throws {
        let result = read(manifestXML(executable: executable))
        #expect(findings(result.diagnostics) == [.error("manifest.executable-invalid", at: "CFBundleExecutable")])
        #expect(try only("manifest.executable-invalid", in: result).message.contains("without '/'"))
    }

    @Test(arguments: [nil, ""] as [String?])
    func executableMissingOrEmptyIsAnError(executable: String?) {
        let result = read(manifestXML(executable: executable))
        #expect(findings(result.diagnostics) == [.error("manifest.executable-missing", at: "CFBundleExecutable")])
    }
}

// MARK: - Extension point

@Suite struct ManifestExtensionPointTests {
    @Test func missingExtensionPointIsAnError() throws {
        let result = read(manifestXML(point: nil))
        #expect(findings(result.diagnostics) == [.error("manifest.extension-point-missing", at: pointPath)])
        #expect(try only("manifest.extension-point-missing", in: result).message
            .contains("com.apple.usernotifications.content-extension"))
    }

    @Test(arguments: [
        ("com.apple.usernotifications.content-extensions", "did you mean com.apple.usernotifications.content-extension?"),
        ("com.apple.usernotification.content-extension", "did you mean com.apple.usernotifications.content-extension?"),
        ("com.apple.usernotifications.servce", "did you mean com.apple.usernotifications.service?"),
        ("com.apple.widgetkit-extension",
         "Tidings serves com.apple.usernotifications.content-extension and com.apple.usernotifications.service."),
    ])
    func unknownExtensionPointIsAnErrorWithASuggestion(point: String, hint: String) throws {
        let result = read(manifestXML(point: point))
        #expect(findings(result.diagnostics) == [.error("manifest.extension-point-unknown", at: pointPath)])
        let message = try only("manifest.extension-point-unknown", in: result).message
        #expect(message.contains("\"\(point)\""))
        #expect(message.hasSuffix(hint))
    }
}

// MARK: - Categories

@Suite struct ManifestCategoryTests {
    @Test(arguments: [
        ("<string>INVITE</string>", ["INVITE"]),
        ("<array><string>INVITE</string></array>", ["INVITE"]),
        ("<array><string>EVENT_UPDATE</string><string>EVENT_INVITE</string></array>", ["EVENT_UPDATE", "EVENT_INVITE"]),
        ("<array><string>invite</string><string>INVITE</string></array>", ["invite", "INVITE"]),
    ])
    func categoryIsAStringOrAnArrayKeptInOrder(value: String, categories: [String]) throws {
        let result = read(manifestXML(category: value))
        #expect(result.diagnostics.isEmpty)
        #expect(try #require(result.manifest).categories == categories)
    }

    @Test func contentExtensionWithoutCategoryIsAnError() throws {
        let result = read(manifestXML(category: nil))
        #expect(findings(result.diagnostics) == [.error("manifest.category-missing", at: categoryPath)])
    }

    @Test(arguments: [
        ("<array/>", Finding.error("manifest.category-empty", at: categoryPath), "empty array"),
        ("<string></string>", .error("manifest.category-empty", at: categoryPath), "is empty"),
        ("<array><string>A</string><string></string></array>",
         .error("manifest.category-empty", at: "\(categoryPath)[1]"), "is empty"),
        ("<integer>3</integer>", .error("manifest.category-invalid", at: categoryPath), "it is an integer"),
        ("<dict/>", .error("manifest.category-invalid", at: categoryPath), "it is a dictionary"),
        ("<array><string>A</string><true/></array>",
         .error("manifest.category-invalid", at: "\(categoryPath)[1]"), "item 1 is a Boolean"),
        ("<string>$(CATEGORY)</string>", .error("manifest.unresolved-variable", at: categoryPath), "$(CATEGORY)"),
        ("<array><string>A</string><string>${CATEGORY}</string></array>",
         .error("manifest.unresolved-variable", at: "\(categoryPath)[1]"), "${CATEGORY}"),
    ])
    func badCategoryIsAnError(value: String, expected: Finding, messagePart: String) throws {
        let result = read(manifestXML(category: value))
        #expect(findings(result.diagnostics) == [expected])
        #expect(try only(expected.code, in: result).message.contains(messagePart))
    }

    @Test func duplicateCategoryIsWarnedAndListedOnce() throws {
        let result = read(manifestXML(category: "<array><string>A</string><string>B</string><string>A</string></array>"))
        #expect(findings(result.diagnostics) == [.warning("manifest.category-duplicate", at: "\(categoryPath)[2]")])
        #expect(try only("manifest.category-duplicate", in: result).message.contains("\"A\" is listed twice"))
        #expect(try #require(result.manifest).categories == ["A", "B"])
    }

    @Test(arguments: [
        ("<string> INVITE</string>", categoryPath, " INVITE"),
        ("<array><string>A</string><string>INVITE\t</string></array>", "\(categoryPath)[1]", "INVITE\t"),
    ])
    func categoryWithWhiteSpaceAtAnEndIsWarnedAndKeptExactly(value: String, path: String, kept: String) throws {
        let result = read(manifestXML(category: value))
        #expect(findings(result.diagnostics) == [.warning("manifest.category-whitespace", at: path)])
        #expect(try #require(result.manifest).categories.last == kept)
    }
}

// MARK: - Initial content size ratio

@Suite struct ManifestRatioTests {
    @Test(arguments: [
        ("<real>0.5</real>", 0.5),
        ("<real>1.25</real>", 1.25),
        ("<real>2e-1</real>", 0.2),
        ("<integer>1</integer>", 1),
        ("<integer>2</integer>", 2),
    ])
    func ratioIsARealOrAnInteger(value: String, ratio: Double) throws {
        let result = read(manifestXML(ratio: value))
        #expect(result.diagnostics.isEmpty)
        #expect(try #require(result.manifest).initialContentSizeRatio == ratio)
    }

    @Test func contentExtensionWithoutRatioIsAnError() throws {
        let result = read(manifestXML(ratio: nil))
        #expect(findings(result.diagnostics) == [.error("manifest.ratio-missing", at: ratioPath)])
    }

    @Test(arguments: [
        ("<real>0</real>", "greater than 0; it is 0.0"),
        ("<integer>0</integer>", "greater than 0; it is 0.0"),
        ("<real>-0.5</real>", "greater than 0; it is -0.5"),
        ("<integer>-1</integer>", "greater than 0; it is -1.0"),
        ("<real>nan</real>", "finite number"),
        ("<real>inf</real>", "finite number"),
        ("<real>-infinity</real>", "finite number"),
        ("<string>0.5</string>", "the string \"0.5\"; write it as a number (<real>0.5</real>)"),
        ("<true/>", "must be a number; it is a Boolean"),
        ("<array><real>0.5</real></array>", "must be a number; it is an array"),
    ])
    func ratioThatIsNotAPositiveFiniteNumberIsAnError(value: String, messagePart: String) throws {
        let result = read(manifestXML(ratio: value))
        #expect(findings(result.diagnostics) == [.error("manifest.ratio-invalid", at: ratioPath)])
        #expect(try only("manifest.ratio-invalid", in: result).message.contains(messagePart))
    }
}

// MARK: - Boolean attributes

/// The Boolean attributes and how to read each from a manifest.
private let booleanKeys = [
    "UNNotificationExtensionDefaultContentHidden",
    "UNNotificationExtensionOverridesDefaultTitle",
    "UNNotificationExtensionUserInteractionEnabled",
]

private func flag(_ key: String, of manifest: Manifest) -> Bool {
    switch key {
    case "UNNotificationExtensionDefaultContentHidden": manifest.defaultContentHidden
    case "UNNotificationExtensionOverridesDefaultTitle": manifest.overridesDefaultTitle
    default: manifest.userInteractionEnabled
    }
}

@Suite struct ManifestBooleanTests {
    @Test(arguments: booleanKeys, [("<true/>", true), ("<false/>", false)])
    func booleanIsRead(key: String, value: (xml: String, flag: Bool)) throws {
        let result = read(manifestXML(attributes: "<key>\(key)</key>\(value.xml)"))
        #expect(result.diagnostics.isEmpty)
        #expect(flag(key, of: try #require(result.manifest)) == value.flag)
    }

    @Test(arguments: booleanKeys, [("YES", true), ("NO", false), ("true", true), ("false", false), ("1", true), ("0", false),
                                   ("Yes", true), ("No", false), ("True", true)])
    func booleanAsStringIsAcceptedWithAWarning(key: String, value: (text: String, flag: Bool)) throws {
        let result = read(manifestXML(attributes: "<key>\(key)</key><string>\(value.text)</string>"))
        #expect(findings(result.diagnostics) == [.warning("manifest.boolean-as-string", at: "\(attributesPath).\(key)")])
        let message = try only("manifest.boolean-as-string", in: result).message
        #expect(message.contains("read as \(value.flag)"))
        #expect(message.contains("<\(value.flag)/>"))
        #expect(flag(key, of: try #require(result.manifest)) == value.flag)
    }

    @Test(arguments: booleanKeys, [
        ("<integer>1</integer>", "it is an integer"),
        ("<string>maybe</string>", "it is a string"),
        ("<real>1.0</real>", "it is a real number"),
        ("<dict/>", "it is a dictionary"),
    ])
    func booleanOfTheWrongTypeIsAnError(key: String, value: (xml: String, messagePart: String)) throws {
        let result = read(manifestXML(attributes: "<key>\(key)</key>\(value.xml)"))
        #expect(findings(result.diagnostics) == [.error("manifest.boolean-invalid", at: "\(attributesPath).\(key)")])
        let message = try only("manifest.boolean-invalid", in: result).message
        #expect(message.contains("must be a Boolean"))
        #expect(message.contains(value.messagePart))
    }
}

// MARK: - Xcode build variables

@Suite struct ManifestVariableTests {
    @Test(arguments: [
        ("$(PRODUCT_BUNDLE_IDENTIFIER)", "Invite", "CFBundleIdentifier"),
        ("${PRODUCT_BUNDLE_IDENTIFIER}", "Invite", "CFBundleIdentifier"),
        ("com.example.events.invite", "$(EXECUTABLE_NAME)", "CFBundleExecutable"),
        ("com.example.events.invite", "lib$(PRODUCT_NAME).so", "CFBundleExecutable"),
    ])
    func variableInARequiredKeyIsAnError(identifier: String, executable: String, key: String) throws {
        let result = read(manifestXML(identifier: identifier, executable: executable))
        #expect(findings(result.diagnostics) == [.error("manifest.unresolved-variable", at: key)])
        #expect(try only("manifest.unresolved-variable", in: result).message.contains("never replaced"))
    }

    @Test func variableAsTheExtensionPointIsAnError() {
        let result = read(manifestXML(point: "$(EXTENSION_POINT)"))
        #expect(findings(result.diagnostics) == [.error("manifest.unresolved-variable", at: pointPath)])
    }

    @Test func variableInTheDisplayNameIsAWarningAndFallsBackToTheBundleName() throws {
        let result = read(manifestXML(top: """
            <key>CFBundleDisplayName</key><string>$(PRODUCT_NAME)</string>
            <key>CFBundleName</key><string>EventInvite</string>
            """))
        #expect(findings(result.diagnostics) == [.warning("manifest.unresolved-variable", at: "CFBundleDisplayName")])
        #expect(try only("manifest.unresolved-variable", in: result).message.contains("\"$(PRODUCT_NAME)\""))
        #expect(try #require(result.manifest).displayName == "EventInvite")
    }

    @Test func variableInTheStoryboardNameIsAWarningAndNamesNoInterface() throws {
        let result = read(manifestXML(
            extensionEntries: "<key>NSExtensionMainStoryboard</key><string>$(STORYBOARD)</string>"))
        #expect(findings(result.diagnostics) == [
            .warning("manifest.unresolved-variable", at: "NSExtension.NSExtensionMainStoryboard"),
        ])
        #expect(try #require(result.manifest).interfaceName == nil)
    }

    @Test func variablesInOtherKeysAreWarnedWhereverTheySit() throws {
        let result = read(serviceXML(extensionEntries: """
            <key>Custom</key><array><string>fine</string><string>${SETTING}</string></array>
            """))
        #expect(findings(result.diagnostics) == [
            .warning("manifest.unresolved-variable", at: "NSExtension.Custom[1]"),
        ])
        #expect(result.manifest != nil)
    }
}

// MARK: - Unknown and misplaced attributes

@Suite struct ManifestAttributePlacementTests {
    @Test(arguments: [
        ("UNNotificationExtensionDefaultContentHiden", "did you mean UNNotificationExtensionDefaultContentHidden?"),
        ("UNNotificationExtensionCategories", "did you mean UNNotificationExtensionCategory?"),
        ("UNNotificationExtensionUserInteractionEnable", "did you mean UNNotificationExtensionUserInteractionEnabled?"),
        ("UNNotificationExtensionOverrideDefaultTitle", "did you mean UNNotificationExtensionOverridesDefaultTitle?"),
        ("UNNotificationExtensionSomethingNew", "is ignored."),
    ])
    func unknownAttributeIsWarnedWithASuggestion(key: String, ending: String) throws {
        let result = read(manifestXML(attributes: "<key>\(key)</key><true/>"))
        #expect(findings(result.diagnostics) == [.warning("manifest.unknown-attribute", at: "\(attributesPath).\(key)")])
        let message = try only("manifest.unknown-attribute", in: result).message
        #expect(message.hasPrefix(key))
        #expect(message.hasSuffix(ending))
        let manifest = try #require(result.manifest)
        #expect(!manifest.defaultContentHidden && !manifest.overridesDefaultTitle && !manifest.userInteractionEnabled)
    }

    @Test func unrelatedAttributeIsLeftAlone() {
        let result = read(manifestXML(attributes: "<key>MyCompanySetting</key><string>on</string>"))
        #expect(result.diagnostics.isEmpty)
    }

    @Test func attributeAtTheTopLevelIsMisplacedAndIgnored() throws {
        let result = read(manifestXML(top: "<key>UNNotificationExtensionDefaultContentHidden</key><true/>"))
        #expect(findings(result.diagnostics) == [
            .warning("manifest.misplaced-attribute", at: "UNNotificationExtensionDefaultContentHidden"),
        ])
        #expect(try only("manifest.misplaced-attribute", in: result).message.contains("at the top level"))
        #expect(try #require(result.manifest).defaultContentHidden == false)
    }

    @Test func attributeDirectlyUnderNSExtensionIsMisplacedAndIgnored() throws {
        let result = read(manifestXML(
            extensionEntries: "<key>UNNotificationExtensionUserInteractionEnabled</key><true/>"))
        #expect(findings(result.diagnostics) == [
            .warning("manifest.misplaced-attribute", at: "NSExtension.UNNotificationExtensionUserInteractionEnabled"),
        ])
        #expect(try only("manifest.misplaced-attribute", in: result).message.contains("directly in NSExtension"))
        #expect(try #require(result.manifest).userInteractionEnabled == false)
    }

    @Test func misplacedCategoryLeavesTheExtensionWithoutOne() {
        let result = read(manifestXML(category: nil,
                                      extensionEntries: "<key>UNNotificationExtensionCategory</key><string>A</string>"))
        #expect(findings(result.diagnostics) == [
            .warning("manifest.misplaced-attribute", at: "NSExtension.UNNotificationExtensionCategory"),
            .error("manifest.category-missing", at: categoryPath),
        ])
    }
}

// MARK: - Fixtures

@Suite struct ManifestFixtureTests {
    @Test func xcodeSourceManifestHasUnresolvedVariables() throws {
        let result = Manifest.read(try fixture("Source-Info.plist"), file: "Source-Info.plist")
        #expect(result.manifest == nil)
        #expect(findings(result.diagnostics) == [
            .error("manifest.unresolved-variable", at: "CFBundleIdentifier"),
            .error("manifest.unresolved-variable", at: "CFBundleExecutable"),
            .warning("manifest.unresolved-variable", at: "CFBundleDevelopmentRegion"),
            .warning("manifest.unresolved-variable", at: "CFBundleName"),
            .warning("manifest.unresolved-variable", at: "CFBundlePackageType"),
            .warning("manifest.unresolved-variable", at: "CFBundleShortVersionString"),
            .warning("manifest.unresolved-variable", at: "CFBundleVersion"),
        ])
        #expect(result.diagnostics[0].message.contains("$(PRODUCT_BUNDLE_IDENTIFIER)"))
        #expect(result.diagnostics[1].message.contains("$(EXECUTABLE_NAME)"))
        #expect(result.diagnostics.allSatisfy { $0.location.file == "Source-Info.plist" })
    }

    @Test(arguments: ["ContentExtension.binary.plist", "ContentExtension.xml.plist"])
    func builtManifestIsValid(name: String) throws {
        let result = Manifest.read(try fixture(name), file: name)
        #expect(result.diagnostics.isEmpty)
        let manifest = try #require(result.manifest)
        #expect(manifest.bundleIdentifier == "com.example.calendar.EventInvite")
        #expect(manifest.appIdentifier == "com.example.calendar")
        #expect(manifest.executable == "EventInvite")
        #expect(manifest.displayName == "Event Invite")
        #expect(manifest.version == "1.0")
        #expect(manifest.point == .content)
        #expect(manifest.interfaceName == "MainInterface")
        #expect(manifest.categories == ["EVENT_INVITE", "EVENT_UPDATE"])
        #expect(manifest.initialContentSizeRatio == 0.75)
        #expect(manifest.defaultContentHidden)
        #expect(!manifest.overridesDefaultTitle)
        #expect(!manifest.userInteractionEnabled)
    }

    @Test func binaryAndXMLFormsGiveTheSameManifest() throws {
        let binary = Manifest.read(try fixture("ContentExtension.binary.plist")).manifest
        let xml = Manifest.read(try fixture("ContentExtension.xml.plist")).manifest
        #expect(binary != nil)
        #expect(binary == xml)
    }

    /// CRLF.plist and BOM.plist hold only an identifier (and a display name):
    /// they decode, and validation names exactly what they lack.
    @Test(arguments: ["CRLF.plist", "BOM.plist"])
    func partialManifestDecodesAndNamesWhatIsMissing(name: String) throws {
        let result = Manifest.read(try fixture(name), file: name)
        #expect(result.manifest == nil)
        #expect(findings(result.diagnostics) == [
            .error("manifest.executable-missing", at: "CFBundleExecutable"),
            .error("manifest.extension-missing", at: "NSExtension"),
        ])
    }

    @Test(arguments: [
        ("CRLF.plist", "com.example.Windows", nil),
        ("BOM.plist", "com.example.zoe", "Zoë’s Café"),
    ] as [(String, String, String?)])
    func partialManifestCompletedIsValid(name: String, identifier: String, displayName: String?) throws {
        let manifest = try #require(completed(try PropertyList.decode(fixture(name)).value))
        #expect(manifest.bundleIdentifier == identifier)
        #expect(manifest.displayName == displayName)
    }

    @Test func integerRatioFixtureReadsTheRatioAsANumber() throws {
        let result = Manifest.read(try fixture("IntegerRatio.plist"), file: "IntegerRatio.plist")
        // The fixture has no executable; the integer ratio itself draws no complaint.
        #expect(findings(result.diagnostics) == [.error("manifest.executable-missing", at: "CFBundleExecutable")])
        let manifest = try #require(completed(try PropertyList.decode(fixture("IntegerRatio.plist")).value))
        #expect(manifest.initialContentSizeRatio == 1.0)
        #expect(manifest.categories == ["SQUARE"])
        #expect(manifest.appIdentifier == "com.example")
    }

    /// `plist` with an executable and, when it has none, a service extension
    /// point added, validated; nil (with an issue) when it still has diagnostics.
    private func completed(_ plist: PropertyList, sourceLocation: SourceLocation = #_sourceLocation) -> Manifest? {
        var entries = plist.dictionaryEntries ?? []
        entries.append(("CFBundleExecutable", .string("Library")))
        if plist["NSExtension"] == nil {
            entries.append(("NSExtension", .dictionary([("NSExtensionPointIdentifier", .string(ExtensionPoint.service.rawValue))])))
        }
        let result = Manifest.validate(.dictionary(entries))
        #expect(result.diagnostics.isEmpty, sourceLocation: sourceLocation)
        return result.manifest
    }
}
