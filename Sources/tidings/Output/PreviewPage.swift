import TidingsBase
import TidingsManifest
import TidingsProtocol
import TidingsRuntime

/// A notification drawn as a self-contained HTML page: its banner and its
/// expanded view (as delivered, and after a response when there was one), in
/// light and dark appearance, each a column. The reference rendering of a
/// presentation and of the interface-file format: every element kind and
/// attribute, the header, the default content, the content size, the
/// actions, the media button and the attachments' thumbnails have one.
///
/// Everything from a payload or an extension is escaped; the only URLs are
/// the `data:` URLs of images the page was given (see `InlineImage`), and a
/// Content-Security-Policy forbids loading anything else.
struct PreviewPage {
    /// Light or dark, as the system's appearance.
    enum Appearance: String, CaseIterable {
        case light
        case dark
    }

    /// The expanded notification at one moment: as delivered, or after a response.
    struct Moment {
        /// What the moment is, shown above it ("Expanded", "After accept: …").
        var caption: String
        var presentation: Presentation
    }

    /// The notification as delivered: its banner.
    var banner: Presentation
    /// The expanded notification, at each moment shown.
    var moments: [Moment]
    var appearances: [Appearance]
    /// Each attachment's image, by attachment identifier; an attachment
    /// without one shows as a tile naming its type.
    var images: [String: InlineImage] = [:]
    /// The app's icon; without one the header shows the name's first letter.
    var icon: InlineImage?

    /// The space around each column's notifications, in CSS pixels.
    private static let margin = 16
    /// The inset of the extension's view in its area (the view's layout margins).
    private static let viewInset = 12.0

    /// A column's width in CSS pixels: the content width and its margins.
    var columnWidth: Int { Int(Self.clamped(banner.contentWidth).rounded(.up)) + 2 * Self.margin }

    /// The page's width in CSS pixels: a column for each appearance.
    var width: Int { columnWidth * appearances.count }

    /// The page. `measuring` adds a script that writes the page's height
    /// into the body's `data-height` attribute once it is laid out, for the
    /// browser to report before it takes a screenshot.
    func html(measuring: Bool = false) -> String {
        let script = measuring ? " script-src 'unsafe-inline';" : ""
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline';\(script)">
            <title>\(HTML.escaped(banner.notification.content.title.isEmpty ? banner.app : banner.notification.content.title)) — tidings preview</title>
            <style>\(Self.style(columnWidth: columnWidth))</style>
            </head><body><main class="page">

            """
        for appearance in appearances { page += column(appearance) }
        page += "</main>"
        if measuring {
            page += "<script>addEventListener('load',function(){document.body.setAttribute('data-height',"
                + "String(Math.ceil(document.documentElement.scrollHeight)))})</script>"
        }
        return page + "</body></html>\n"
    }

    // MARK: Columns

    private func column(_ appearance: Appearance) -> String {
        var html = "<section class=\"appearance \(appearance.rawValue)\" data-appearance=\"\(appearance.rawValue)\">\n"
        html += "<h1>\(appearance == .light ? "Light" : "Dark")</h1>\n"
        html += "<figure class=\"moment\" data-moment=\"banner\"><figcaption>Banner</figcaption>\n" + bannerPlatter() + "</figure>\n"
        for (position, moment) in moments.enumerated() {
            html += "<figure class=\"moment\" data-moment=\"\(position)\"><figcaption>\(HTML.escaped(moment.caption))</figcaption>\n"
            html += expanded(moment.presentation) + "</figure>\n"
        }
        return html + "</section>\n"
    }

    /// The banner: the header, the default content (the placeholder when
    /// previews are hidden) and the first attachment's thumbnail.
    private func bannerPlatter() -> String {
        let presentation = banner
        let content = presentation.notification.content
        let text = presentation.previewsHidden ? presentation.defaultContent : (content.title, content.subtitle, content.body)
        var html = "<article class=\"platter banner\">\n"
        html += header(presentation.settings.app.name ?? presentation.app)
        html += "<div class=\"banner-body\"><div class=\"text\">"
        if let text { html += defaultText(text, lines: 4) }
        html += "</div>"
        if !presentation.previewsHidden, let attachment = content.attachments.first(where: { !$0.thumbnail.hidden }) {
            html += thumbnail(attachment)
        }
        return html + "</div></article>\n"
    }

    /// The expanded notification: the header, the extension's view at its
    /// size (with the media button), the default content unless hidden, then
    /// the actions; without an extension, the first image attachment in
    /// place of the view. A dismissed notification is drawn as gone: its
    /// card outlined with dashes (the view as the extension left it), and in
    /// place of the actions a mark saying it is no longer shown.
    private func expanded(_ presentation: Presentation) -> String {
        guard presentation.dismissed else { return card(presentation) }
        return "<div class=\"dismissed-card\">\n" + card(presentation) + "<div class=\"dismissed-mark\">Dismissed: no longer shown</div>\n</div>\n"
    }

    /// The expanded notification's card, and its actions unless dismissed.
    private func card(_ presentation: Presentation) -> String {
        var html = "<article class=\"platter expanded\(presentation.dismissed ? " dismissed" : "")\">\n"
        html += header(presentation.header)
        let attachments = presentation.notification.content.attachments
        if !presentation.previewsHidden {
            if let view = presentation.view, presentation.extensionIdentifier != nil {
                html += contentArea(view, presentation)
            } else if let attachment = attachments.first, let image = images[attachment.identifier] {
                html += "<img class=\"attachment\" alt=\"\" data-attachment=\"\(HTML.escaped(attachment.identifier))\" src=\"\(image.url)\">\n"
            }
        }
        if let text = presentation.defaultContent {
            html += "<div class=\"text default-content\">" + defaultText(text, lines: nil) + "</div>\n"
        }
        html += "</article>\n"
        if !presentation.dismissed && !presentation.actions.isEmpty { html += actions(presentation.actions) }
        return html
    }

    private func header(_ title: String) -> String {
        let iconHTML = icon.map { "<img class=\"icon\" alt=\"\" src=\"\($0.url)\">" }
            ?? "<span class=\"icon letter\">\(HTML.escaped(title.first.map { String($0).uppercased() } ?? ""))</span>"
        return "<header>\(iconHTML)<span class=\"app\">\(HTML.escaped(title))</span><span class=\"time\">now</span></header>\n"
    }

    /// Title, subtitle and body; `lines` limits the body, as a banner does.
    private func defaultText(_ text: (title: String, subtitle: String, body: String), lines: Int?) -> String {
        var html = ""
        if !text.title.isEmpty { html += "<div class=\"title\">\(HTML.escaped(text.title))</div>" }
        if !text.subtitle.isEmpty { html += "<div class=\"subtitle\">\(HTML.escaped(text.subtitle))</div>" }
        if !text.body.isEmpty {
            let clamp = lines.map { " style=\"-webkit-line-clamp:\($0)\"" } ?? ""
            html += "<div class=\"body\(lines == nil ? "" : " clamped")\"\(clamp)>\(HTML.escaped(text.body))</div>"
        }
        return html
    }

    /// An attachment's thumbnail: its image, cut to its clipping rectangle,
    /// or a tile naming its type.
    private func thumbnail(_ attachment: NotificationAttachment) -> String {
        let identifier = HTML.escaped(attachment.identifier)
        guard let image = images[attachment.identifier] else {
            let family = MediaType(identifier: attachment.type)?.family.rawValue ?? "file"
            return "<div class=\"thumbnail tile\" data-attachment=\"\(identifier)\">\(family)</div>"
        }
        var placement = "background-size:cover;background-position:center"
        if let rect = attachment.thumbnail.clippingRect {
            // The unit rectangle's part of the image fills the thumbnail.
            let width = max(0.01, min(1, Self.unit(rect.width))), height = max(0.01, min(1, Self.unit(rect.height)))
            let x = Self.unit(rect.x), y = Self.unit(rect.y)
            let left = width < 1 ? x / (1 - width) * 100 : 0, top = height < 1 ? y / (1 - height) * 100 : 0
            placement = "background-size:\(Self.number(100 / width))% \(Self.number(100 / height))%;"
                + "background-position:\(Self.number(left))% \(Self.number(top))%"
        }
        return "<div class=\"thumbnail\" data-attachment=\"\(identifier)\" style=\"background-image:url(\(image.url));\(placement)\"></div>"
    }

    // MARK: The extension's view

    /// The view's area, as wide as the content and as high as the extension
    /// asked (else the initial ratio's height), with the media button over it.
    private func contentArea(_ view: ViewState, _ presentation: Presentation) -> String {
        let height = Self.clamped(presentation.contentHeight ?? presentation.initialContentHeight ?? 0)
        var html = "<div class=\"content\" style=\"width:\(Self.number(Self.clamped(presentation.contentWidth)))px;"
            + "height:\(Self.number(height))px\">"
        if !view.isEmpty { html += "<div class=\"view\">" + element(view, at: 0, attachments: presentation.notification.content.attachments) + "</div>" }
        if let button = presentation.mediaButton, button.type != 0 { html += mediaButton(button, playing: presentation.mediaPlaying) }
        return html + "</div>\n"
    }

    private func element(_ view: ViewState, at position: Int, attachments: [NotificationAttachment]) -> String {
        let node = view.nodes[position]
        var attributes = "data-kind=\"\(node.kindName)\""
        if let identifier = node.identifier { attributes += " data-id=\"\(HTML.escaped(identifier))\"" }
        if node.hidden { attributes += " hidden" }
        switch node.content {
        case let .label(text, color, style):
            let colour = color.map { " style=\"color:\(Self.css($0))\"" } ?? ""
            return "<div class=\"label \(style.rawValue)\" \(attributes)\(colour)>\(HTML.escaped(text))</div>"
        case .image(let attachment):
            guard let attachment else { return "<div class=\"image empty\" \(attributes)></div>" }
            let escaped = HTML.escaped(attachment)
            if let image = images[attachment] {
                return "<img class=\"image\" alt=\"\" \(attributes) data-attachment=\"\(escaped)\" src=\"\(image.url)\">"
            }
            let type = attachments.first { $0.identifier == attachment }.flatMap { MediaType(identifier: $0.type) }
            return "<div class=\"image tile\" \(attributes) data-attachment=\"\(escaped)\">\(type?.family.rawValue ?? "no image")</div>"
        case let .button(title, enabled):
            return "<button class=\"element-button\" \(attributes)\(enabled ? "" : " disabled")>\(HTML.escaped(title))</button>"
        case let .textField(text, placeholder, enabled):
            return "<input class=\"element-field\" type=\"text\" \(attributes) value=\"\(HTML.escaped(text))\""
                + " placeholder=\"\(HTML.escaped(placeholder))\"\(enabled ? "" : " disabled") readonly>"
        case let .stack(axis, spacing, children):
            var html = "<div class=\"stack \(axis.rawValue)\" \(attributes) style=\"gap:\(Self.number(Self.clamped(spacing)))px\">"
            for child in children { html += element(view, at: child, attachments: attachments) }
            return html + "</div>"
        }
    }

    /// The play/pause button: where the extension put it (else centred), in
    /// its tint, showing pause while the media plays.
    private func mediaButton(_ button: InstanceContext.MediaButton, playing: Bool) -> String {
        var style = "left:50%;top:50%;width:44px;height:44px;margin:-22px 0 0 -22px"
        if let (x, y, width, height) = button.frame {
            style = "left:\(Self.number(Self.clamped(x)))px;top:\(Self.number(Self.clamped(y)))px;"
                + "width:\(Self.number(Self.clamped(width)))px;height:\(Self.number(Self.clamped(height)))px"
        }
        if let tint = button.tint { style += ";background:\(Self.css(tint))" }
        let kind = button.type == 2 ? "overlay" : "default"
        let glyph = playing ? "<span class=\"pause\"></span>" : "<span class=\"play\"></span>"
        return "<div class=\"media-button \(kind)\" data-playing=\"\(playing)\" style=\"\(style)\">\(glyph)</div>"
    }

    // MARK: Actions

    private func actions(_ actions: [NotificationAction]) -> String {
        var html = "<ul class=\"actions\">\n"
        for action in actions {
            let destructive = action.options.contains(.destructive)
            html += "<li class=\"action\(destructive ? " destructive" : "")\" data-action=\"\(HTML.escaped(action.identifier))\">"
            html += "<span class=\"action-title\">\(HTML.escaped(action.title))</span>"
            if let input = action.textInput {
                html += "<div class=\"field\"><span class=\"placeholder\">\(HTML.escaped(input.placeholder))</span>"
                    + "<span class=\"send\">\(HTML.escaped(input.buttonTitle))</span></div>"
            }
            html += "</li>\n"
        }
        return html + "</ul>\n"
    }

    // MARK: Numbers and colours

    /// A length from a payload or an extension, kept finite, not negative
    /// and at most 10,000 points.
    static func clamped(_ value: Double) -> Double {
        value.isFinite ? min(max(value, 0), 10_000) : 0
    }

    /// A unit-rectangle coordinate kept within 0…1.
    private static func unit(_ value: Double) -> Double {
        value.isFinite ? min(max(value, 0), 1) : 0
    }

    /// A number for CSS: at most two digits after the point.
    private static func number(_ value: Double) -> String {
        NumberText.short((value * 100).rounded() / 100)
    }

    /// The colour as CSS: `#RRGGBB` when opaque, else `rgba(…)`.
    static func css(_ color: Color) -> String {
        let alpha = color.rgba & 0xFF
        guard alpha != 0xFF else { return color.description }
        let red = color.rgba >> 24, green = (color.rgba >> 16) & 0xFF, blue = (color.rgba >> 8) & 0xFF
        return "rgba(\(red),\(green),\(blue),\(number(Double(alpha) / 255)))"
    }

    // MARK: Style

    /// The page's style sheet: iOS's system colours for each appearance and
    /// its text styles in points (a CSS pixel is a point).
    private static func style(columnWidth: Int) -> String {
        """
        *{box-sizing:border-box;margin:0;padding:0}
        [hidden]{display:none!important}
        body{font-family:system-ui,-apple-system,"Helvetica Neue","DejaVu Sans",sans-serif;font-size:15px;line-height:1.25}
        .page{display:flex;align-items:stretch}
        .appearance{width:\(columnWidth)px;padding:\(margin)px;background:var(--background);color:var(--primary)}
        .light{color-scheme:light;--background:#F2F2F7;--platter:#FFFFFF;--primary:#000000;--secondary:rgba(60,60,67,0.6);--separator:rgba(60,60,67,0.29);--destructive:#FF3B30;--tint:#007AFF;--field:#E5E5EA}
        .dark{color-scheme:dark;--background:#000000;--platter:#1C1C1E;--primary:#FFFFFF;--secondary:rgba(235,235,245,0.6);--separator:rgba(84,84,88,0.65);--destructive:#FF453A;--tint:#0A84FF;--field:#2C2C2E}
        h1{font-size:13px;font-weight:600;color:var(--secondary);text-transform:uppercase;margin-bottom:8px}
        figure{margin-bottom:20px}
        figcaption{font-size:12px;color:var(--secondary);margin-bottom:6px;overflow-wrap:anywhere}
        .platter{background:var(--platter);border-radius:14px;overflow:hidden}
        .dismissed-card .platter{outline:2px dashed var(--destructive);outline-offset:3px}
        .dismissed-mark{margin-top:10px;padding:8px 12px;border-radius:14px;border:1px dashed var(--destructive);color:var(--destructive);font-size:13px;font-weight:600;text-align:center}
        header{display:flex;align-items:center;gap:8px;padding:10px 12px 6px}
        .icon{width:20px;height:20px;border-radius:5px;flex:none;object-fit:cover}
        .icon.letter{display:flex;align-items:center;justify-content:center;background:var(--tint);color:#FFFFFF;font-size:12px;font-weight:600}
        .app{flex:1;font-size:13px;color:var(--secondary);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        .time{font-size:13px;color:var(--secondary)}
        .banner-body{display:flex;gap:10px;padding:0 12px 12px}
        .banner-body .text{flex:1;min-width:0}
        .text .title{font-weight:600;overflow-wrap:anywhere}
        .text .subtitle{font-weight:600;overflow-wrap:anywhere}
        .text .body{white-space:pre-wrap;overflow-wrap:anywhere}
        .text .body.clamped{display:-webkit-box;-webkit-box-orient:vertical;overflow:hidden}
        .default-content{padding:8px 12px 12px}
        .thumbnail{width:40px;height:40px;border-radius:6px;flex:none;background-repeat:no-repeat}
        .tile{display:flex;align-items:center;justify-content:center;background:var(--field);color:var(--secondary);font-size:10px}
        .attachment{display:block;width:100%}
        .content{position:relative;overflow:hidden;max-width:100%}
        .view{padding:\(NumberText.short(viewInset))px}
        .stack{display:flex;min-width:0}
        .stack.vertical{flex-direction:column;align-items:stretch}
        .stack.horizontal{flex-direction:row;align-items:center}
        .label{white-space:pre-wrap;overflow-wrap:anywhere;min-width:0}
        .element-button{font:inherit;color:#007AFF;background:rgba(120,120,128,.16);border:0;border-radius:8px;padding:6px 12px}
        .element-button:disabled{color:rgba(120,120,128,.6)}
        .element-field{font:inherit;border:1px solid rgba(120,120,128,.4);border-radius:6px;padding:4px 8px;background:transparent;color:inherit}
        .label.title{font-size:28px}
        .label.headline{font-size:17px;font-weight:600}
        .label.subheadline{font-size:15px}
        .label.body{font-size:17px}
        .label.footnote{font-size:13px}
        .label.caption{font-size:12px}
        img.image{display:block;align-self:flex-start;max-width:100%;height:auto;flex:none}
        .image.tile{height:60px;border-radius:8px}
        .media-button{position:absolute;border-radius:50%;background:rgba(0,0,0,0.55);display:flex;align-items:center;justify-content:center}
        .media-button .play{width:0;height:0;border-style:solid;border-width:9px 0 9px 15px;border-color:transparent transparent transparent #FFFFFF;margin-left:4px}
        .media-button .pause{width:14px;height:16px;border-left:5px solid #FFFFFF;border-right:5px solid #FFFFFF}
        .actions{list-style:none;margin-top:8px;background:var(--platter);border-radius:14px;overflow:hidden}
        .action{padding:11px 16px;font-size:17px;color:var(--primary);border-top:0.5px solid var(--separator)}
        .action:first-child{border-top:none}
        .action.destructive{color:var(--destructive)}
        .action-title{overflow-wrap:anywhere}
        .field{display:flex;gap:8px;align-items:center;margin-top:8px;padding:6px 10px;border-radius:16px;background:var(--field);font-size:15px}
        .field .placeholder{flex:1;color:var(--secondary);overflow-wrap:anywhere}
        .field .send{color:var(--tint);font-weight:600}
        """
    }
}
