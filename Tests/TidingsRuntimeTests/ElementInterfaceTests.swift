import Testing
import TidingsABI
import TidingsBase
import TidingsManifest
import TidingsRuntime

/// The host's `tidings.elements/1` and `tidings.text-input/1`, called as an
/// extension calls them: through the pointers the table's get_interface gives.
@Suite struct ElementInterfaceTests {
    let endpoint = HostEndpoint(table: HostFunctions.table(callRate: .standard))

    /// A context of an extension whose view has a label "status", a button
    /// "go" and a text field "note", and which may ask for text input when `mayInteract`.
    func context(mayInteract: Bool) throws -> InstanceContext {
        let reading = Interface.read(Array("""
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "status"},
              {"type": "button", "id": "go", "title": "Go"}, {"type": "textField", "id": "note"}]}}
            """.utf8))
        return InstanceContext(extensionIdentifier: "com.example.elements", mayOverrideTitle: false, mayInteract: mayInteract,
                               interface: try #require(reading.interface), in: endpoint.contexts)
    }

    /// The host's interface `id`, as `type`.
    func interface<Interface>(_ id: String, as type: Interface.Type) throws -> Interface {
        let found = id.withCString { endpoint.table.pointer.pointee.get_interface?(endpoint.table.pointer, $0) }
        return try #require(found).assumingMemoryBound(to: type).pointee
    }

    @Test func setEnabledChangesButtonsAndTextFieldsOnly() throws {
        let context = try context(mayInteract: true)
        let elements = try interface(TIDINGS_ELEMENTS_INTERFACE, as: tidings_elements_interface.self)
        #expect(Int(elements.struct_size) >= tidings_elements_interface.introducedSize)
        #expect(elements.set_enabled(context.cHandle, "go", false) == TIDINGS_STATUS_OK)
        #expect(elements.set_enabled(context.cHandle, "note", false) == TIDINGS_STATUS_OK)
        #expect(elements.set_enabled(context.cHandle, "status", false) == TIDINGS_STATUS_WRONG_ELEMENT_KIND)
        #expect(elements.set_enabled(context.cHandle, "nothing", false) == TIDINGS_STATUS_NO_SUCH_ELEMENT)
        #expect(elements.set_enabled(context.cHandle, nil, false) == TIDINGS_STATUS_INVALID_ARGUMENT)
        let view = context.snapshot().view
        #expect(view.node("go")?.enabled == false && view.node("note")?.enabled == false)
        // set_text sets a button's title and a text field's text.
        #expect(endpoint.table.pointer.pointee.set_text(context.cHandle, "go", "Gone") == TIDINGS_STATUS_OK)
        #expect(context.snapshot().view.node("go")?.content == .button(title: "Gone", enabled: false))
        context.close()
        #expect(elements.set_enabled(context.cHandle, "go", true) == TIDINGS_STATUS_INVALID_CONTEXT)
    }

    @Test func aTextInputRequestNeedsUserInteraction() throws {
        let input = try interface(TIDINGS_TEXT_INPUT_INTERFACE, as: tidings_text_input_interface.self)
        let blocked = try context(mayInteract: false)
        #expect(input.request_text_input(blocked.cHandle, "Send", "Your answer") == TIDINGS_STATUS_NOT_PERMITTED)
        #expect(blocked.snapshot().textInput == nil)
        #expect(blocked.snapshot().diagnostics.map(\.code) == [.textInputNotPermitted])

        let context = try context(mayInteract: true)
        #expect(input.request_text_input(context.cHandle, "Send", nil) == TIDINGS_STATUS_OK)
        #expect(context.snapshot().textInput == TextInputRequest(buttonTitle: "Send", placeholder: ""))
        #expect(input.request_text_input(context.cHandle, "Post", "Your answer") == TIDINGS_STATUS_OK)
        #expect(context.snapshot().textInput == TextInputRequest(buttonTitle: "Post", placeholder: "Your answer"))
        #expect(input.request_text_input(context.cHandle, nil, "x") == TIDINGS_STATUS_INVALID_ARGUMENT)
        let long = String(repeating: "t", count: HostLimits.titleBytes + 1)
        #expect(input.request_text_input(context.cHandle, long, nil) == TIDINGS_STATUS_INVALID_ARGUMENT)
        #expect(input.request_text_input(context.cHandle, "Send", long) == TIDINGS_STATUS_INVALID_ARGUMENT)
        // What was refused left the request as it was.
        #expect(context.snapshot().textInput == TextInputRequest(buttonTitle: "Post", placeholder: "Your answer"))
        #expect(input.end_text_input(context.cHandle) == TIDINGS_STATUS_OK)
        #expect(context.snapshot().textInput == nil)
    }

    @Test func aWorkersOversizedRequestIsRefusedByTheHost() throws {
        // What a worker relays comes as it was sent: the host's limits still apply.
        let context = try context(mayInteract: true)
        let long = String(repeating: "t", count: HostLimits.titleBytes + 1)
        #expect(context.perform(.requestTextInput(TextInputRequest(buttonTitle: long, placeholder: ""))) == TIDINGS_STATUS_INVALID_ARGUMENT)
        #expect(context.perform(.setEnabled(element: String(repeating: "e", count: HostLimits.identifierBytes + 1), enabled: true))
            == TIDINGS_STATUS_INVALID_ARGUMENT)
        #expect(context.snapshot().textInput == nil)
    }
}
