import TidingsBase

/// A content extension's view (the presentation's `view`, a tree of stacks,
/// labels, images, buttons and text fields) flattened to what a notification
/// can show: its visible labels and images in reading order.
///
/// Hidden elements (and what they hold) are left out. The tree is walked
/// without recursion and at most `elementLimit` elements are read, so neither
/// a deep nor a huge view from a hostile server costs more than that.
struct FlatView {
    /// A label's emphasis: titles bold, footnotes and captions italic.
    enum Emphasis: Hashable {
        case plain, bold, italic
    }

    /// One visible element of the view that a notification can show.
    enum Item: Hashable {
        /// A label's text, with the emphasis of its style.
        case text(String, Emphasis)
        /// An image bound to an attachment: its file, nil when the
        /// attachment is no local image file. (An image bound to none shows
        /// nothing, on iOS too, and is left out.)
        case image(path: String?)
    }

    /// The most elements read of one view.
    static let elementLimit = 500

    /// The labels and images, in reading order.
    private(set) var items: [Item] = []
    /// Whether the view shows a button or a text field.
    private(set) var hasControls = false
    /// Whether the view had more than `elementLimit` elements.
    private(set) var cut = false

    /// The flattened `view`; empty when it is not an element.
    init(_ view: JSON) {
        var pending: [JSON] = [view]
        var read = 0
        while let element = pending.popLast() {
            guard read < Self.elementLimit else {
                cut = true
                break
            }
            read += 1
            guard element["hidden"]?.boolValue != true else { continue }
            switch element["type"]?.stringValue {
            case "label":
                let text = element["text"]?.stringValue ?? ""
                if !text.isEmpty { items.append(.text(text, Self.emphasis(of: element["style"]?.stringValue))) }
            case "image":
                guard let attachment = element["attachment"], attachment.objectMembers != nil else { continue }
                items.append(.image(path: ImageFile.path(ofAttachment: attachment)))
            case "stack":
                let children = element["children"]?.arrayValue ?? []
                if children.count > Self.elementLimit { cut = true }
                pending += children.prefix(Self.elementLimit).reversed()
            case "button", "textField":
                hasControls = true
            default:
                continue
            }
        }
    }

    /// The emphasis of a label's `style`: `title` and `headline` bold,
    /// `footnote` and `caption` italic, the rest (`body`, `subheadline`) plain.
    private static func emphasis(of style: String?) -> Emphasis {
        switch style {
        case "title", "headline": .bold
        case "footnote", "caption": .italic
        default: .plain
        }
    }
}
