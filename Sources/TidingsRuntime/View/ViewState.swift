import TidingsManifest

/// The host's copy of a content extension's view: the interface tree with
/// every change the extension has made through the ABI.
///
/// Stored flat, with an index by identifier, so that a change costs a lookup;
/// a snapshot is a copy-on-write value, so a presentation costs no copying.
package struct ViewState: Sendable, Equatable {
    /// One element.
    package struct Node: Sendable, Equatable {
        /// What the element shows.
        package enum Content: Sendable, Equatable {
            case label(text: String, textColor: Color?, style: InterfaceElement.TextStyle)
            /// The identifier of the notification attachment shown, if any.
            case image(attachment: String?)
            /// Children as positions in `nodes`.
            case stack(axis: InterfaceElement.Axis, spacing: Double, children: [Int])
            /// A button: its title, and whether it takes taps.
            case button(title: String, enabled: Bool)
            /// A text field: what it holds, what it shows when empty, and whether it takes text.
            case textField(text: String, placeholder: String, enabled: Bool)
        }

        package var identifier: String?
        package var hidden: Bool
        package var content: Content

        /// `label`, `image`, `stack`, `button` or `textField`, as interface files spell them.
        package var kindName: String {
            switch content {
            case .label: "label"
            case .image: "image"
            case .stack: "stack"
            case .button: "button"
            case .textField: "textField"
            }
        }

        /// Whether a button or text field takes input; nil for the other kinds.
        package var enabled: Bool? {
            switch content {
            case .button(_, let enabled), .textField(_, _, let enabled): enabled
            case .label, .image, .stack: nil
            }
        }
    }

    /// Why a change was refused.
    package enum UpdateError: Error, Equatable {
        /// No element has the identifier.
        case noSuchElement(String)
        /// The element is of another kind than the change needs.
        case wrongKind(element: String, is: String, needed: String)
    }

    /// Every element; the root, when there is one, is at position 0.
    package private(set) var nodes: [Node] = []
    private var positions: [String: Int] = [:]

    /// The view an interface declares; empty when there is no interface.
    package init(interface: Interface?) {
        if let interface { append(interface.root) }
    }

    /// True when there is no element at all.
    package var isEmpty: Bool { nodes.isEmpty }

    /// The element with `identifier`, if any.
    package func node(_ identifier: String) -> Node? {
        positions[identifier].map { nodes[$0] }
    }

    /// Sets a label's text, a button's title or a text field's text.
    package mutating func setText(_ text: String, of identifier: String) throws(UpdateError) {
        let position = try find(identifier)
        switch nodes[position].content {
        case .label(_, let color, let style): nodes[position].content = .label(text: text, textColor: color, style: style)
        case .button(_, let enabled): nodes[position].content = .button(title: text, enabled: enabled)
        case .textField(_, let placeholder, let enabled):
            nodes[position].content = .textField(text: text, placeholder: placeholder, enabled: enabled)
        case .image, .stack:
            throw .wrongKind(element: identifier, is: nodes[position].kindName, needed: "label, button or textField")
        }
    }

    /// Lets a button or text field take input, or not.
    package mutating func setEnabled(_ enabled: Bool, of identifier: String) throws(UpdateError) {
        let position = try find(identifier)
        switch nodes[position].content {
        case .button(let title, _): nodes[position].content = .button(title: title, enabled: enabled)
        case .textField(let text, let placeholder, _):
            nodes[position].content = .textField(text: text, placeholder: placeholder, enabled: enabled)
        case .label, .image, .stack:
            throw .wrongKind(element: identifier, is: nodes[position].kindName, needed: "button or textField")
        }
    }

    /// Sets a label's text colour.
    package mutating func setTextColor(_ color: Color, of identifier: String) throws(UpdateError) {
        let position = try find(identifier)
        guard case .label(let text, _, let style) = nodes[position].content else {
            throw .wrongKind(element: identifier, is: nodes[position].kindName, needed: "label")
        }
        nodes[position].content = .label(text: text, textColor: color, style: style)
    }

    /// Shows an attachment in an image element (nil clears it).
    package mutating func setImage(_ attachment: String?, of identifier: String) throws(UpdateError) {
        let position = try find(identifier)
        guard case .image = nodes[position].content else {
            throw .wrongKind(element: identifier, is: nodes[position].kindName, needed: "image")
        }
        nodes[position].content = .image(attachment: attachment)
    }

    /// Hides or shows any element.
    package mutating func setHidden(_ hidden: Bool, of identifier: String) throws(UpdateError) {
        nodes[try find(identifier)].hidden = hidden
    }

    private func find(_ identifier: String) throws(UpdateError) -> Int {
        guard let position = positions[identifier] else { throw .noSuchElement(identifier) }
        return position
    }

    @discardableResult
    private mutating func append(_ element: InterfaceElement) -> Int {
        let position = nodes.count
        let content: Node.Content =
            switch element.kind {
            case let .label(text, color, style): .label(text: text, textColor: color, style: style)
            case let .image(attachment): .image(attachment: attachment)
            case let .stack(axis, spacing, _): .stack(axis: axis, spacing: spacing, children: [])
            case let .button(title, enabled): .button(title: title, enabled: enabled)
            case let .textField(text, placeholder, enabled): .textField(text: text, placeholder: placeholder, enabled: enabled)
            }
        nodes.append(Node(identifier: element.identifier, hidden: element.hidden, content: content))
        if let identifier = element.identifier { positions[identifier] = position }
        if case let .stack(axis, spacing, children) = element.kind {
            let childPositions = children.map { append($0) }
            nodes[position].content = .stack(axis: axis, spacing: spacing, children: childPositions)
        }
        return position
    }
}
