import TidingsBase

/// A content extension's view, as its interface file declares it: a small
/// tree of labels, images and stacks, each addressable by identifier like an
/// outlet in a storyboard.
///
/// The file is named by `NSExtensionMainStoryboard` (`MainInterface` →
/// `MainInterface.json` in the bundle). Its format is documented in the
/// README under "Interface files".
package struct Interface: Sendable, Equatable {
    /// The format version this reader understands.
    package static let formatVersion: Int64 = 1

    /// The outermost element.
    package var root: InterfaceElement
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

    /// The kind's name as the file spells it: `label`, `image` or `stack`.
    package var kindName: String {
        switch kind {
        case .label: "label"
        case .image: "image"
        case .stack: "stack"
        }
    }
}
