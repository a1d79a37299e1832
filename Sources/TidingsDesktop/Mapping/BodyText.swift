import TidingsBase

/// A notification's body, line by line, rendered as body markup (`b`, `i`,
/// `img`, text escaped) for servers with `body-markup`, else as plain lines.
///
/// The text is capped as it is added: at most `DesktopText.bodyLimit`
/// characters of text in all (the last line cut with "…", later ones left
/// out), whatever the markup adds around it.
struct BodyText {
    /// One line: text with an emphasis, or an image (a path).
    private enum Line {
        case text(String, FlatView.Emphasis)
        case image(String)
    }

    private var lines: [Line] = []
    private var budget = DesktopText.bodyLimit

    /// Whether nothing was added.
    var isEmpty: Bool { lines.isEmpty }

    /// Adds `text` (control characters stripped, newlines kept) with `emphasis`; nothing when it is empty.
    mutating func append(_ text: String, _ emphasis: FlatView.Emphasis = .plain) {
        guard budget > 0 else { return }
        let clean = DesktopText.lines(text, limit: budget)
        guard !clean.isEmpty else { return }
        budget -= clean.count + 1
        lines.append(.text(clean, emphasis))
    }

    /// Adds the image at the absolute `path` (shown only as markup, by servers with `body-images`).
    mutating func appendImage(_ path: String) {
        lines.append(.image(path))
    }

    /// Whether a line has an emphasis that plain text loses.
    var hasEmphasis: Bool {
        lines.contains { if case .text(_, let emphasis) = $0 { emphasis != .plain } else { false } }
    }

    /// The body: markup when `markup`, else plain text (images left out).
    func rendered(markup: Bool) -> String {
        var rendered: [String] = []
        for line in lines {
            switch line {
            case .text(let text, let emphasis):
                guard markup else {
                    rendered.append(text)
                    continue
                }
                let escaped = DesktopText.escaped(text)
                switch emphasis {
                case .plain: rendered.append(escaped)
                case .bold: rendered.append("<b>\(escaped)</b>")
                case .italic: rendered.append("<i>\(escaped)</i>")
                }
            case .image(let path):
                if markup { rendered.append("<img src=\"\(DesktopText.escaped(FileURL.url(of: path)))\" alt=\"\"/>") }
            }
        }
        return rendered.joined(separator: "\n")
    }
}
