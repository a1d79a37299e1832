import Testing
import TidingsBase
import TidingsManifest

/// Reading and changing one value by key path, keeping every dictionary's
/// key order, and the common manifest edits.
@Suite struct PropertyListEditingTests {
    /// A manifest as Xcode writes one, keys in its order.
    let manifest = PropertyList.dictionary([
        ("CFBundleIdentifier", .string("com.example.events.invite")),
        ("CFBundleExecutable", .string("libEventInvite.so")),
        ("NSExtension", .dictionary([
            ("NSExtensionPointIdentifier", .string("com.apple.usernotifications.content-extension")),
            ("NSExtensionAttributes", .dictionary([
                ("UNNotificationExtensionCategory", .string("event-invite")),
                ("UNNotificationExtensionInitialContentSizeRatio", .real(0.75)),
            ])),
        ])),
    ])

    func keys(_ value: PropertyList?) -> [String] { value?.dictionaryEntries?.map(\.0) ?? [] }
    func path(_ text: String) -> PropertyListKeyPath { PropertyListKeyPath(text) }

    @Test func keyPathsReadDottedOrWithColons() {
        #expect(path("NSExtension.NSExtensionAttributes").steps == [.key("NSExtension"), .key("NSExtensionAttributes")])
        #expect(path(":NSExtension:NSExtensionAttributes").steps == [.key("NSExtension"), .key("NSExtensionAttributes")])
        #expect(path("a\\.b.0").steps == [.key("a.b"), .index(0)])
        #expect(path("").steps.isEmpty)
        #expect(path("a\\.b.0").description == "a\\.b.0")
    }

    @Test func aValueIsFoundByItsPath() {
        #expect(PropertyListEditing.value(at: path("NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory"),
                                          in: manifest) == .string("event-invite"))
        #expect(PropertyListEditing.value(at: path("NSExtension.Missing"), in: manifest) == nil)
        #expect(PropertyListEditing.value(at: path(""), in: manifest) == manifest)
    }

    @Test func settingAnExistingValueKeepsItsPlace() throws {
        let changed = try PropertyListEditing.setting(.string("libOther.so"), at: path("CFBundleExecutable"), in: manifest)
        #expect(keys(changed) == keys(manifest))
        #expect(changed["CFBundleExecutable"] == .string("libOther.so"))
    }

    @Test func settingANewKeyPutsItLast() throws {
        let changed = try PropertyListEditing.setting(.bool(true), at: path("NSExtension.NSExtensionAttributes.UNNotificationExtensionDefaultContentHidden"), in: manifest)
        #expect(keys(changed["NSExtension"]?["NSExtensionAttributes"]) == [
            "UNNotificationExtensionCategory", "UNNotificationExtensionInitialContentSizeRatio",
            "UNNotificationExtensionDefaultContentHidden",
        ])
        #expect(keys(changed) == keys(manifest))
        #expect(keys(changed["NSExtension"]) == keys(manifest["NSExtension"]))
    }

    @Test func insertingIntoAnArrayAndRemovingFromIt() throws {
        let list = PropertyList.dictionary([("list", .array([.string("a"), .string("c")]))])
        let inserted = try PropertyListEditing.inserting(.string("b"), at: path("list.1"), in: list)
        #expect(inserted["list"] == .array([.string("a"), .string("b"), .string("c")]))
        let appended = try PropertyListEditing.inserting(.string("d"), at: path("list.2"), in: list)
        #expect(appended["list"] == .array([.string("a"), .string("c"), .string("d")]))
        let removed = try PropertyListEditing.removing(at: path("list.0"), in: list)
        #expect(removed["list"] == .array([.string("c")]))
    }

    @Test(arguments: [
        ("Missing.Key", "edit.no-such-value"),
        ("CFBundleIdentifier.Key", "edit.wrong-container"),
        ("NSExtension.0.x", "edit.no-such-value"),
    ])
    func settingUnderSomethingMissingIsRefused(text: String, code: String) {
        #expect(throws: Diagnostic.self) { try PropertyListEditing.setting(.bool(true), at: path(text), in: manifest) }
        do {
            _ = try PropertyListEditing.setting(.bool(true), at: path(text), in: manifest)
        } catch {
            #expect(error.code.rawValue == code)
        }
    }

    @Test func insertingAnExistingKeyOrPastTheEndIsRefused() {
        var codes: [String] = []
        for (value, text) in [(PropertyList.string("x"), "CFBundleIdentifier")] {
            do { _ = try PropertyListEditing.inserting(value, at: path(text), in: manifest) } catch { codes.append(error.code.rawValue) }
        }
        let list = PropertyList.dictionary([("list", .array([]))])
        do { _ = try PropertyListEditing.inserting(.string("x"), at: path("list.5"), in: list) } catch { codes.append(error.code.rawValue) }
        do { _ = try PropertyListEditing.removing(at: path("Nothing"), in: list) } catch { codes.append(error.code.rawValue) }
        #expect(codes == ["edit.exists", "edit.no-such-value", "edit.no-such-value"])
    }

    @Test func aSecondCategoryMakesAnArrayAndRemovingLeavesTheRest() throws {
        let categoryPath = path("NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory")
        let two = try ManifestEdit.addCategory("event-update").applied(to: manifest)
        #expect(PropertyListEditing.value(at: categoryPath, in: two) == .array([.string("event-invite"), .string("event-update")]))
        let back = try ManifestEdit.removeCategory("event-invite").applied(to: two)
        #expect(PropertyListEditing.value(at: categoryPath, in: back) == .array([.string("event-update")]))
        #expect(throws: Diagnostic.self) { try ManifestEdit.addCategory("event-invite").applied(to: manifest) }
        #expect(throws: Diagnostic.self) { try ManifestEdit.removeCategory("nope").applied(to: manifest) }
        let none = try ManifestEdit.removeCategory("event-invite").applied(to: manifest)
        #expect(PropertyListEditing.value(at: categoryPath, in: none) == nil)
    }

    @Test func ratioAndDefaultContentShortcuts() throws {
        let edited = try ManifestEdit.setDefaultContentHidden(true).applied(
            to: try ManifestEdit.setInitialContentSizeRatio(0.5).applied(to: manifest))
        let attributes = edited["NSExtension"]?["NSExtensionAttributes"]
        #expect(attributes?["UNNotificationExtensionInitialContentSizeRatio"] == .real(0.5))
        #expect(attributes?["UNNotificationExtensionDefaultContentHidden"] == .bool(true))
        #expect(throws: Diagnostic.self) { try ManifestEdit.setInitialContentSizeRatio(0).applied(to: manifest) }
    }

    @Test func shortcutsMakeTheAttributesWhenMissing() throws {
        let bare = PropertyList.dictionary([("NSExtension", .dictionary([]))])
        let edited = try ManifestEdit.addCategory("x").applied(to: bare)
        #expect(edited["NSExtension"]?["NSExtensionAttributes"]?["UNNotificationExtensionCategory"] == .string("x"))
    }

    @Test(arguments: [
        (PropertyListValueText.ValueType.string, "Hello", PropertyList.string("Hello")),
        (.bool, "yes", .bool(true)),
        (.bool, "false", .bool(false)),
        (.integer, "-3", .integer(-3)),
        (.real, "0.75", .real(0.75)),
        (.date, "2001-01-01T00:01:00Z", .date(60)),
        (.array, #"["a", 1]"#, .array([.string("a"), .integer(1)])),
        (.dict, #"{"b": true, "a": 2.5}"#, .dictionary([("b", .bool(true)), ("a", .real(2.5))])),
    ])
    func typedValuesAreRead(type: PropertyListValueText.ValueType, text: String, value: PropertyList) throws {
        #expect(try PropertyListValueText.value(of: type, text) == value)
    }

    @Test func emptyContainersAndBadValues() throws {
        #expect(try PropertyListValueText.value(of: .array, nil) == .array([]))
        #expect(try PropertyListValueText.value(of: .dict, nil) == .dictionary([]))
        for (type, text) in [(PropertyListValueText.ValueType.integer, "3.5"), (.bool, "maybe"), (.real, "nan"),
                             (.array, #"{"a": 1}"#), (.dict, "[null]"), (.string, nil as String?)] {
            #expect(throws: Diagnostic.self, "\(type) \(text ?? "nil")") { try PropertyListValueText.value(of: type, text) }
        }
    }
}
