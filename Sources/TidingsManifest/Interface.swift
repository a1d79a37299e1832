import TidingsBase

/// A content extension's view, as its interface file declares it: a small
/// tree of labels, images, stacks, buttons and text fields, each addressable
/// by identifier like an outlet in a storyboard.
///
/// The file is named by `NSExtensionMainStoryboard` (`MainInterface` →
/// `MainInterface.json` in the bundle). Its format is documented in the
/// Docs/extensions.md under "Interface files".
package struct Interface: Sendable, Equatable {
    /// The format version this reader understands.
    package static let formatVersion: Int64 = 1

    /// The outermost element.
    package var root: InterfaceElement

    /// The identifiers of the buttons and text fields, in tree order: the
    /// elements whose events reach the extension.
    package var inputIdentifiers: [String] {
        var found: [String] = []
        func visit(_ element: InterfaceElement) {
            if element.takesInput, let identifier = element.identifier { found.append(identifier) }
            if case .stack(_, _, let children) = element.kind { children.forEach(visit) }
        }
        visit(root)
        return found
    }
}

/// One element of an interface tree.
package struct InterfaceElement: Sendable, Equatable {
    /// What an element is, with what only that kind has.
    package enum Kind: Sendable, Equatable {
        /// Text.
        case label(text: String, textColor: Color?, style: TextStyle)
        /// A picture showing one of the notification's attachments.
        case image(attachment: String?)
        /// Children laid out in a row or a column.
        case stack(axis: Axis, spacing: Double, children: [InterfaceElement])
        /// A button the user taps; its taps reach the extension when the
        /// manifest enables user interaction.
        case button(title: String, enabled: Bool)
        /// A one-line text field the user types into and submits; its
        /// submissions reach the extension when the manifest enables user interaction.
        case textField(text: String, placeholder: String, enabled: Bool)
    }

    /// A stack's direction.
    package enum Axis: String, Sendable, CaseIterable {
        case vertical
        case horizontal
    }

    /// A label's text style, named after Apple's Dynamic Type styles.
    package enum TextStyle: String, Sendable, CaseIterable {
        case title
        case headline
        case subheadline
        case body
        case footnote
        case caption
    }

    /// The identifier host calls use to address the element; nil when it is never changed.
    package var identifier: String?
    package var kind: Kind
    package var hidden: Bool

    package init(identifier: String?, kind: Kind, hidden: Bool = false) {
        self.identifier = identifier
        self.kind = kind
        self.hidden = hidden
    }

    /// The kind's name as the file spells it: `label`, `image`, `stack`, `button` or `textField`.
    package var kindName: String {
        switch kind {
        case .label: "label"
        case .image: "image"
        case .stack: "stack"
        case .button: "button"
        case .textField: "textField"
        }
    }

    /// True for the kinds whose events reach the extension: buttons and text fields.
    package var takesInput: Bool {
        switch kind {
        case .button, .textField: true
        case .label, .image, .stack: false
        }
    }
}
