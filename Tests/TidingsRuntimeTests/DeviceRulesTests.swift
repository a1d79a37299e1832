import RuntimeTestSupport
import Testing
import TidingsABI
import TidingsBase
import TidingsManifest
import TidingsProtocol
import TidingsRuntime

/// What a device does that a stricter reading would not: a deprecated
/// category option accepted, a foreground action's response marked to open
/// the app, no media button for an empty frame.
@Suite struct DeviceRulesTests {
    let fixture = Fixture()
    static let app = "com.example.tests"

    @Test func allowAnnouncementIsAcceptedAndReportedAsDeprecated() throws {
        let json = try JSON.parse(Array(#"""
            {"app": "com.example.tests",
             "categories": [{"identifier": "chat", "options": ["allowAnnouncement", "customDismissAction"]}]}
            """#.utf8))
        let reading = CategoryFile.read(json, file: "categories.json")
        let category = try #require(reading.file?.categories.first)
        #expect(category.options == [.allowAnnouncement, .customDismissAction])
        #expect(category.options.rawValue == 17)
        let warning = try #require(reading.diagnostics.first)
        #expect(reading.diagnostics.count == 1)
        #expect(warning.severity == .warning)
        #expect(warning.code == .categoriesDeprecatedOption)
        #expect(warning.location.path == "/categories/0/options")
        #expect(warning.message.contains("deprecated since iOS 15"))
        // Kept as given, so that it reads back the same.
        #expect(category.json["options"] == .array([.string("customDismissAction"), .string("allowAnnouncement")]))
    }

    /// A host without extensions whose app registered "chat": "open"
    /// (foreground), "mute" (none) and "reply" (foreground, text input).
    func host() -> NotificationHost {
        let host = fixture.host()
        host.register([NotificationCategory(identifier: "chat", actions: [
            NotificationAction(identifier: "open", title: "Open", options: [.foreground]),
            NotificationAction(identifier: "mute", title: "Mute", options: [.destructive]),
            NotificationAction(identifier: "reply", title: "Reply", options: [.foreground],
                               textInput: .init(buttonTitle: "Send", placeholder: "")),
        ], options: [.customDismissAction])], for: Self.app)
        return host
    }

    @Test(arguments: [
        ("open", nil, true), ("mute", nil, false), ("reply", "On my way", true),
        (ActionIdentifier.default, nil, true), (ActionIdentifier.dismiss, nil, false),
    ] as [(String, String?, Bool)])
    func aResponseOpensTheAppForTheDefaultAndForegroundActions(action: String, text: String?, opens: Bool) throws {
        let host = host()
        _ = host.deliver(notification("n", category: "chat"), to: Self.app)
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: action, userText: text))
        let forwarded = try #require(outcome.forwarded.first)
        #expect(outcome.forwarded.count == 1)
        #expect(forwarded.actionIdentifier == action)
        #expect(forwarded.opensApp == opens)
        #expect(forwarded.json["opensApp"] == .bool(opens))
    }

    /// A context of an extension with an empty view.
    func context() throws -> (InstanceContext, HostEndpoint) {
        let endpoint = HostEndpoint(table: HostFunctions.table(callRate: .standard))
        let interface = try #require(Interface.read(Array(#"{"version": 1, "root": {"type": "stack", "children": []}}"#.utf8)).interface)
        let context = InstanceContext(extensionIdentifier: "com.example.media", mayOverrideTitle: false, interface: interface,
                                      in: endpoint.contexts)
        return (context, endpoint)
    }

    @Test(arguments: [(0.0, 0.0), (44.0, 0.0), (0.0, 44.0)])
    func anEmptyFrameShowsNoMediaButton(width: Double, height: Double) throws {
        let (context, endpoint) = try context()
        defer { context.close() }
        var button = tidings_media_button()
        button.struct_size = UInt32(MemoryLayout<tidings_media_button>.size)
        button.type = TIDINGS_MEDIA_BUTTON_OVERLAY
        button.frame = tidings_rect(x: 8, y: 8, width: width, height: height)
        #expect(endpoint.table.pointer.pointee.set_media_button(context.cHandle, &button) == TIDINGS_STATUS_OK)
        #expect(context.snapshot().mediaButton?.type == TIDINGS_MEDIA_BUTTON_NONE)

        button.frame = tidings_rect(x: 8, y: 8, width: 44, height: 44)
        #expect(endpoint.table.pointer.pointee.set_media_button(context.cHandle, &button) == TIDINGS_STATUS_OK)
        #expect(context.snapshot().mediaButton?.type == TIDINGS_MEDIA_BUTTON_OVERLAY)
    }
}
