import TidingsBase

/// What a presentation shows as text and image: Notify's summary and body
/// and the `image-path` hint, for a server's capabilities.
///
/// A banner (or an expanded interface without a view) shows the default
/// content: the title as the summary, and in the body the subtitle (bold) on
/// its first line, then the body. The subtitle goes in the body rather than
/// the summary because servers show one summary line and cut it. Without a
/// title, the subtitle is the summary; without either, the header (the app's
/// name). With previews hidden the server has already put the category's
/// placeholder in the default content and dropped the view; the attachments
/// are not shown either. A banner's image is its first attachment that is an
/// image with its thumbnail shown.
///
/// An expanded interface with a view shows the view flattened (`FlatView`):
/// its labels in order, one a line, titles bold and footnotes italic with
/// markup; its first image that is a local image file as the image; later
/// images inline where the server shows body images. Unless the extension hides the default content,
/// the default content follows the view (as iOS shows it under the view) and
/// its title stays the summary; when hidden, the view's first bold label (its
/// title) is the summary and is not repeated, else the header.
///
/// A server without `body` shows the summary only: it then holds the title
/// and subtitle ("title — subtitle"), or the body's text when there is no
/// other.
struct PresentationContent {
    /// Notify's summary: one line, capped.
    private(set) var summary = ""
    /// Notify's body: markup or plain text, capped.
    private(set) var body = ""
    /// The image to show (`image-path`), an absolute path.
    private(set) var imagePath: String?
    /// What the server cannot show of it.
    private(set) var degradations: [String] = []

    /// The text of `presentation`, whose notification has `attachments`
    /// (nil when unknown), for an app shown as `app` on a server with `capabilities`.
    init(_ presentation: JSON, attachments: JSON?, app: AppDisplay, capabilities: ServerCapabilities) {
        let content = presentation["defaultContent"].flatMap { $0.objectMembers == nil ? nil : $0 }
        let title = DesktopText.line(content?["title"]?.stringValue ?? "", limit: DesktopText.summaryLimit)
        let subtitle = DesktopText.line(content?["subtitle"]?.stringValue ?? "", limit: DesktopText.summaryLimit)
        let text = content?["body"]?.stringValue ?? ""
        let header = DesktopText.line(presentation["header"]?.stringValue ?? "", limit: DesktopText.summaryLimit)
        let previewsHidden = presentation["previewsHidden"]?.boolValue == true
        var lines = BodyText()
        var alone: [String] = []  // the summary, for a server without a body
        var lost = false  // whether that server loses text

        if presentation["expanded"]?.boolValue == true, !previewsHidden, let view = presentation["view"],
           view.objectMembers != nil {
            let showsDefault = content != nil && presentation["defaultContentHidden"]?.boolValue != true
            if showsDefault { summary = title.isEmpty ? subtitle : title }
            addView(FlatView(view), to: &lines, capabilities: capabilities)
            if showsDefault {
                if !title.isEmpty, !subtitle.isEmpty { lines.append(subtitle, .bold) }
                lines.append(text)
            }
            alone = [summary]
            lost = !lines.isEmpty
            if presentation["mediaButton"]?.objectMembers != nil { degradations.append(Degradation.noMediaButton) }
        } else {
            summary = title.isEmpty ? subtitle : title
            if !title.isEmpty, !subtitle.isEmpty { lines.append(subtitle, .bold) }
            lines.append(text)
            if !previewsHidden { imagePath = ImageFile.firstThumbnail(in: attachments) }
            alone = [title, subtitle].filter { !$0.isEmpty }
            if alone.isEmpty {
                alone = [DesktopText.line(text, limit: DesktopText.summaryLimit)]
            } else {
                lost = !DesktopText.lines(text, limit: 1).isEmpty
            }
        }
        if presentation["textInput"]?.objectMembers != nil { degradations.append(Degradation.noExtensionInput) }

        if capabilities.body {
            body = lines.rendered(markup: capabilities.bodyMarkup)
        } else {
            summary = DesktopText.capped(alone.filter { !$0.isEmpty }.joined(separator: " — "), limit: DesktopText.summaryLimit)
            if lost { degradations.append(Degradation.noBody) }
        }
        if summary.isEmpty { summary = header.isEmpty ? DesktopText.line(app.name, limit: DesktopText.summaryLimit) : header }
    }

    /// Adds the view's labels and images to `lines`: its first bold label
    /// becomes the summary when there is none yet, its first image that is a
    /// file the image, later ones inline where the server shows body images.
    private mutating func addView(_ view: FlatView, to lines: inout BodyText, capabilities: ServerCapabilities) {
        var notFile = false
        var imagesLeftOut = false
        var emphasised = false
        for item in view.items {
            switch item {
            case .text(let text, let emphasis):
                if summary.isEmpty, emphasis == .bold {
                    summary = DesktopText.line(text, limit: DesktopText.summaryLimit)
                    if !summary.isEmpty { continue }
                }
                emphasised = emphasised || emphasis != .plain
                lines.append(text, emphasis)
            case .image(let path):
                guard let path else {
                    notFile = true
                    continue
                }
                if imagePath == nil {
                    imagePath = path
                } else if capabilities.body, capabilities.bodyMarkup, capabilities.bodyImages {
                    lines.appendImage(path)
                } else {
                    imagesLeftOut = true
                }
            }
        }
        if notFile { degradations.append(Degradation.imageNotFile) }
        if imagesLeftOut { degradations.append(Degradation.noBodyImages) }
        if emphasised, capabilities.body, !capabilities.bodyMarkup { degradations.append(Degradation.noMarkup) }
        if view.hasControls { degradations.append(Degradation.noControls) }
        if view.cut { degradations.append(Degradation.viewCut) }
    }
}
