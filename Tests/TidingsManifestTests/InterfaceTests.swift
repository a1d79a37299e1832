import TestSupport
import Testing
import TidingsBase
import TidingsManifest

/// Reads `text` as the file MainInterface.json, checking the rule every
/// result keeps: there is an interface exactly when no diagnostic is an error.
private func readInterface(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> InterfaceReading {
    let result = Interface.read(Array(text.utf8), file: "MainInterface.json")
    #expect((result.interface == nil) == result.diagnostics.containsError,
            "an interface must exist exactly when there is no error: \(result.diagnostics)",
            sourceLocation: sourceLocation)
    return result
}

/// A version 1 file whose root is `root` (JSON text).
private func document(root: String) -> String {
    #"{"version": 1, "root": \#(root)}"#
}

/// `depth` stacks, each the only child of the one before.
private func nestedStacks(_ depth: Int) -> String {
    var element = #"{"type": "label"}"#
    for _ in 0..<depth - 1 { element = #"{"type": "stack", "children": [\#(element)]}"# }
    return element
}

@Suite struct InterfaceTests {
    @Test func validTreeReadsEveryMember() throws {
        let result = readInterface("""
            {
              "version": 1,
              "root": {
                "type": "stack", "id": "card", "axis": "horizontal", "spacing": 12.5,
                "children": [
                  {"type": "image", "id": "picture", "hidden": true},
                  {"type": "stack", "children": [
                    {"type": "label", "id": "title", "text": "Dinner", "style": "headline", "textColor": "#FF8000"},
                    {"type": "label", "id": "note", "style": "caption", "textColor": "#00000080", "hidden": false}
                  ]}
                ]
              }
            }
            """)
        #expect(result.diagnostics.isEmpty)
        let interface = try #require(result.interface)
        let expected = InterfaceElement(identifier: "card", kind: .stack(axis: .horizontal, spacing: 12.5, children: [
            InterfaceElement(identifier: "picture", kind: .image(attachment: nil), hidden: true),
            InterfaceElement(identifier: nil, kind: .stack(axis: .vertical, spacing: 8, children: [
                InterfaceElement(identifier: "title",
                                 kind: .label(text: "Dinner", textColor: Color(rgba: 0xFF80_00FF), style: .headline)),
                InterfaceElement(identifier: "note",
                                 kind: .label(text: "", textColor: Color(rgba: 0x0000_0080), style: .caption)),
            ])),
        ]))
        #expect(interface.root == expected)
        #expect(interface.root.kindName == "stack")
    }

    @Test func buttonsAndTextFieldsReadEveryMemberWithTheirDefaults() throws {
        let result = readInterface(document(root: #"""
            {"type": "stack", "children": [
              {"type": "button", "id": "go", "title": "Go"},
              {"type": "button", "id": "off", "title": "Off", "enabled": false, "hidden": true},
              {"type": "textField", "id": "note"},
              {"type": "textField", "id": "answer", "placeholder": "Your answer", "text": "draft", "enabled": false}]}
            """#))
        #expect(result.diagnostics.isEmpty)
        let interface = try #require(result.interface)
        guard case .stack(_, _, let children) = interface.root.kind else { Issue.record("not a stack"); return }
        #expect(children == [
            InterfaceElement(identifier: "go", kind: .button(title: "Go", enabled: true)),
            InterfaceElement(identifier: "off", kind: .button(title: "Off", enabled: false), hidden: true),
            InterfaceElement(identifier: "note", kind: .textField(text: "", placeholder: "", enabled: true)),
            InterfaceElement(identifier: "answer", kind: .textField(text: "draft", placeholder: "Your answer", enabled: false)),
        ])
        #expect(children.map(\.kindName) == ["button", "button", "textField", "textField"])
        #expect(interface.inputIdentifiers == ["go", "off", "note", "answer"])
        // As the index cache keeps it.
        var writer = ByteWriter()
        interface.encode(into: &writer)
        var reader = ByteReader(writer.bytes)
        #expect(try Interface(from: &reader) == interface)
    }

    @Test func labelDefaults() throws {
        let result = readInterface(document(root: #"{"type": "label"}"#))
        let root = try #require(result.interface).root
        #expect(root == InterfaceElement(identifier: nil, kind: .label(text: "", textColor: nil, style: .body)))
        #expect(root.hidden == false)
        #expect(root.kindName == "label")
    }

    @Test func versionMayBeLeftOut() throws {
        let result = readInterface(#"{"root": {"type": "image", "id": "photo"}}"#)
        #expect(result.diagnostics.isEmpty)
        #expect(try #require(result.interface).root.kindName == "image")
    }

    @Test(arguments: InterfaceElement.TextStyle.allCases)
    func everyTextStyleIsRead(style: InterfaceElement.TextStyle) throws {
        let result = readInterface(document(root: #"{"type": "label", "style": "\#(style.rawValue)"}"#))
        #expect(try #require(result.interface).root.kind == .label(text: "", textColor: nil, style: style))
    }

    @Test func samplesShippedWithTheRepositoryRead() throws {
        for sample in ["EventInvite", "BuildStatus"] {
            let path = Locations.repositoryFile("Plugins/\(sample)/MainInterface.json")
            let result = Interface.read(try FileSystem.readFile(path), file: path)
            #expect(result.diagnostics.isEmpty, "\(sample): \(result.diagnostics)")
            #expect(result.interface?.root.kindName == "stack")
        }
    }

    @Test func thirtyTwoLevelsAreAllowed() throws {
        let result = readInterface(document(root: nestedStacks(Interface.maximumDepth)))
        #expect(result.diagnostics.isEmpty)
        #expect(result.interface != nil)
    }
}

// MARK: - Errors

@Suite struct InterfaceErrorTests {
    @Test(arguments: [
        // Not an object, or no root.
        ("[]", Finding.error("interface.invalid", at: ""), "must be an object; it is an array"),
        (#"{"version": 1}"#, .error("interface.invalid", at: ""), "needs a \"root\" element"),
        (document(root: #""label""#), .error("interface.invalid", at: "/root"), "must be an object; it is a string"),
        // Version.
        (#"{"version": 2, "root": {"type": "label"}}"#, .error("interface.unsupported-version", at: "/version"),
         "reads interface format version 1; the file says 2"),
        (#"{"version": "1", "root": {"type": "label"}}"#, .error("interface.unsupported-version", at: "/version"),
         "the file says \"1\""),
        // Type.
        (document(root: #"{"type": "slider"}"#), .error("interface.unknown-type", at: "/root/type"),
         "must be \"label\", \"image\", \"stack\", \"button\" or \"textField\"; it is \"slider\""),
        (document(root: #"{"id": "x"}"#), .error("interface.unknown-type", at: "/root/type"), "it is missing"),
        (document(root: #"{"type": 5}"#), .error("interface.unknown-type", at: "/root/type"), "it is a number"),
        (document(root: #"{"type": "stack", "children": [{"type": "Label"}]}"#),
         .error("interface.unknown-type", at: "/root/children/0/type"), "it is \"Label\""),
        // Identifiers.
        (document(root: #"{"type": "label", "id": ""}"#), .error("interface.invalid", at: "/root/id"), "\"id\" is empty"),
        (document(root: #"{"type": "label", "id": 7}"#), .error("interface.invalid", at: "/root/id"),
         "\"id\" must be a string; it is a number"),
        (document(root: #"{"type": "stack", "id": "a", "children": [{"type": "label", "id": "b"}, {"type": "image", "id": "a"}]}"#),
         .error("interface.duplicate-identifier", at: "/root/children/1/id"), "\"a\" is used by more than one element"),
        // Colours and styles.
        (document(root: ##"{"type": "label", "textColor": "#FF80"}"##), .error("interface.invalid", at: "/root/textColor"),
         "#RRGGBB or #RRGGBBAA; it is \"#FF80\""),
        (document(root: #"{"type": "label", "textColor": "orange"}"#), .error("interface.invalid", at: "/root/textColor"),
         "it is \"orange\""),
        (document(root: ##"{"type": "label", "textColor": "#GG0000"}"##), .error("interface.invalid", at: "/root/textColor"),
         "it is \"#GG0000\""),
        (document(root: #"{"type": "label", "style": "huge"}"#), .error("interface.invalid", at: "/root/style"),
         "must be one of \"title\", \"headline\", \"subheadline\", \"body\", \"footnote\", \"caption\"; it is \"huge\""),
        // Other members.
        (document(root: #"{"type": "label", "hidden": "yes"}"#), .error("interface.invalid", at: "/root/hidden"),
         "must be true or false"),
        (document(root: #"{"type": "stack", "axis": "diagonal"}"#), .error("interface.invalid", at: "/root/axis"),
         "it is \"diagonal\""),
        (document(root: #"{"type": "stack", "spacing": -1}"#), .error("interface.invalid", at: "/root/spacing"),
         "between 0.0 and 10000.0"),
        (document(root: #"{"type": "stack", "children": {"type": "label"}}"#),
         .error("interface.invalid", at: "/root/children"), "must be an array"),
        // Buttons and text fields: an identifier, by which their events reach the extension, and a button's title.
        (document(root: #"{"type": "button", "title": "Go"}"#), .error("interface.invalid", at: "/root/id"),
         "A button needs an \"id\": its events reach the extension by it."),
        (document(root: #"{"type": "textField"}"#), .error("interface.invalid", at: "/root/id"),
         "A text field needs an \"id\""),
        (document(root: #"{"type": "button", "id": "go"}"#), .error("interface.invalid", at: "/root/title"),
         "A button needs a \"title\"."),
        (document(root: #"{"type": "button", "id": "go", "title": ""}"#), .error("interface.invalid", at: "/root/title"),
         "A button's \"title\" is empty."),
        (document(root: #"{"type": "button", "id": "go", "title": 3}"#), .error("interface.invalid", at: "/root/title"),
         "must be a string; it is a number"),
        (document(root: #"{"type": "button", "id": "go", "title": "Go", "enabled": "no"}"#),
         .error("interface.invalid", at: "/root/enabled"), "must be true or false"),
        (document(root: #"{"type": "textField", "id": "note", "placeholder": ["a"]}"#),
         .error("interface.invalid", at: "/root/placeholder"), "must be a string; it is an array"),
        (document(root: #"{"type": "textField", "id": "note", "text": null}"#),
         .error("interface.invalid", at: "/root/text"), "must be a string"),
        (document(root: #"{"type": "stack", "children": [{"type": "button", "id": "a", "title": "A"}, {"type": "textField", "id": "a"}]}"#),
         .error("interface.duplicate-identifier", at: "/root/children/1/id"), "\"a\" is used by more than one element"),
    ])
    func problemIsAnErrorAtItsPointer(text: String, expected: Finding, messagePart: String) throws {
        let result = readInterface(text)
        #expect(findings(result.diagnostics) == [expected])
        let diagnostic = try #require(result.diagnostics.first)
        #expect(diagnostic.message.contains(messagePart), "\(diagnostic.message)")
        #expect(diagnostic.location.file == "MainInterface.json")
    }

    @Test func nestingDeeperThanTheLimitIsAnError() throws {
        let result = readInterface(document(root: nestedStacks(Interface.maximumDepth + 1)))
        let path = "/root" + String(repeating: "/children/0", count: Interface.maximumDepth)
        #expect(findings(result.diagnostics) == [.error("interface.invalid", at: path)])
        #expect(result.diagnostics.first?.message.contains("deeper than 32 levels") == true)
    }

    @Test func everyProblemIsReportedNotJustTheFirst() {
        let result = readInterface(document(root: """
            {"type": "stack", "children": [
              {"type": "label", "id": "a", "textColor": "red"},
              {"type": "label", "id": "a", "style": "loud"}
            ]}
            """))
        #expect(findings(result.diagnostics) == [
            .error("interface.invalid", at: "/root/children/0/textColor"),
            .error("interface.duplicate-identifier", at: "/root/children/1/id"),
            .error("interface.invalid", at: "/root/children/1/style"),
        ])
    }

    @Test func jsonSyntaxErrorIsPassedOn() throws {
        let result = readInterface(#"{"root": {"type": "label",}}"#)
        #expect(result.interface == nil)
        #expect(findings(result.diagnostics).map(\.code) == ["json.syntax"])
        #expect(result.diagnostics.first?.location.file == "MainInterface.json")
    }
}

// MARK: - Unknown members

@Suite struct InterfaceUnknownMemberTests {
    @Test(arguments: [
        (document(root: ##"{"type": "label", "textColour": "#FFFFFF"}"##), "/root/textColour",
         "; did you mean \"textColor\"?"),
        (document(root: #"{"type": "image", "hiden": true}"#), "/root/hiden", "; did you mean \"hidden\"?"),
        (document(root: #"{"type": "stack", "childen": []}"#), "/root/childen", "; did you mean \"children\"?"),
        (#"{"verison": 1, "root": {"type": "label"}}"#, "/verison", "; did you mean \"version\"?"),
        (document(root: #"{"type": "image", "attachment": "photo"}"#), "/root/attachment", "is ignored."),
        (document(root: #"{"type": "label", "a/b~c": 1}"#), "/root/a~1b~0c", "is ignored."),
    ])
    func unknownMemberIsWarnedWithASuggestion(text: String, pointer: String, ending: String) throws {
        let result = readInterface(text)
        #expect(findings(result.diagnostics) == [.warning("interface.unknown-member", at: pointer)])
        #expect(result.diagnostics.first?.message.hasSuffix(ending) == true, "\(result.diagnostics)")
        #expect(result.interface != nil)
    }

    @Test func membersOfOtherKindsAreUnknownToo() throws {
        let result = readInterface(document(root: #"{"type": "image", "text": "caption", "spacing": 4}"#))
        #expect(findings(result.diagnostics) == [
            .warning("interface.unknown-member", at: "/root/text"),
            .warning("interface.unknown-member", at: "/root/spacing"),
        ])
        #expect(try #require(result.interface).root.kind == .image(attachment: nil))
    }
}

// MARK: - Colours

@Suite struct ColorTests {
    @Test(arguments: [
        ("#FF8000", UInt32(0xFF80_00FF)),
        ("#ff8000", 0xFF80_00FF),
        ("#000000", 0x0000_00FF),
        ("#FFFFFF", 0xFFFF_FFFF),
        ("#FF800080", 0xFF80_0080),
        ("#aBcDeF12", 0xABCD_EF12),
        ("#00000000", 0),
    ])
    func hexIsParsed(text: String, rgba: UInt32) {
        #expect(Color(hex: text) == Color(rgba: rgba))
    }

    @Test(arguments: [
        "", "#", "FF8000", "FF800080", "#FF800", "#FF80000", "#FF8000801", "#GG0000", "#FF 800",
        "#0x1234", "＃FF8000", "#ＦＦ8000",
    ])
    func anythingElseIsRejected(text: String) {
        #expect(Color(hex: text) == nil)
    }

    /// UInt32(_:radix:) accepts a leading sign, so these once parsed as colours.
    @Test(arguments: ["#+12345", "#-00000", "#+1234567", "#-0000000"])
    func signIsNotAHexDigit(text: String) {
        #expect(Color(hex: text) == nil)
    }

    @Test func textColorWithASignIsAnError() {
        let result = readInterface(document(root: ##"{"type": "label", "textColor": "#+12345"}"##))
        #expect(findings(result.diagnostics) == [.error("interface.invalid", at: "/root/textColor")])
    }

    @Test(arguments: [
        (UInt32(0xFF80_00FF), "#FF8000"),
        (0x0000_00FF, "#000000"),
        (0x0000_FFFF, "#0000FF"),
        (0xFF80_0080, "#FF800080"),
        (0x0000_0001, "#00000001"),
        (0, "#00000000"),
    ])
    func colourPrintsAsUpperCaseHex(rgba: UInt32, text: String) {
        #expect(Color(rgba: rgba).description == text)
    }

    @Test(arguments: [UInt32(0), 1, 0xFF, 0x1234_5678, 0xFFFF_FFFF, 0xABCD_EF00, 0x0102_03FF])
    func printedColourParsesBack(rgba: UInt32) {
        let color = Color(rgba: rgba)
        #expect(Color(hex: color.description) == color)
    }

    @Test(arguments: ["#ff8000", "#FF8000FF", "#abcdef80"])
    func parsedColourPrintsInCanonicalForm(text: String) throws {
        let color = try #require(Color(hex: text))
        let printed = color.description
        #expect(printed == printed.uppercased())
        #expect(Color(hex: printed) == color)
        #expect(printed.count == (color.rgba & 0xFF == 0xFF ? 7 : 9))
    }
}
