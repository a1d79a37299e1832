import TidingsBase
import TidingsRuntime

/// `tidings preview`: a notification delivered as `tidings deliver` delivers
/// it, drawn as an HTML page and, with a headless browser, a PNG.
enum PreviewCommand: Command {
    static let startsWorkers = true

    static let spec = CommandSpec(
        name: "preview",
        summary: "Deliver a notification as deliver does and draw it — its banner and expanded view, after a response if asked, light and dark — as a self-contained HTML page and, with a headless Chromium, a PNG.",
        usage: "PAYLOAD.json [--categories FILE]... [--app ID] [--respond ACTION [--text T]] [--appearance light|dark|both] [--output FILE.html] [--png FILE.png] [--browser PATH] [--extensions DIR]... [--isolation MODE] [--json]",
        options: DeliverCommand.deliveryOptions + [
            .init(name: "appearance", value: "light|dark|both", help: "Which appearances to draw, a column each (default both)."),
            .init(name: "output", value: "FILE", help: "Write the HTML page to FILE (default: standard output, unless --png or --json is given)."),
            .init(name: "png", value: "FILE", help: "Also write a screenshot of the page, taken by a headless Chromium, to FILE."),
            .init(name: "browser", value: "PATH",
                  help: "The browser for --png (default: chromium, chromium-browser or google-chrome on PATH)."),
            .init(name: "json", value: nil, help: "Print JSON: the delivery, the response, and the files written."),
        ],
        arguments: .file,
        discussion: [
            "The page is the reference rendering of a presentation: the banner (header with the app's name and icon, title, subtitle, body, the first attachment's thumbnail), then the expanded notification as delivered (the header's title, the extension's view at the content width and its height — the preferred height, else the width × the initial ratio — with every element of its interface file, the media play/pause button, the default content unless hidden, the actions, destructive ones in red and text-input ones with their field), then, with --respond, as the response left it. With previews never, the placeholder text shows and no view or attachment.",
            "The page loads nothing: images are inlined as data: URLs, and only files whose content is a PNG, JPEG or GIF image become one; all text from the payload and the extension is escaped. The app's icon (--app-icon) shows when it is the path of such an image, else the name's first letter.",
            "The PNG: the browser lays the page out at its width (a column of the content width and 16-point margins per appearance), reports its height (at most \(HeadlessBrowser.maximumHeight)), and takes a screenshot at one pixel per point, with a temporary profile, within \(NumberText.short(HeadlessBrowser.defaultDeadline)) s; --no-sandbox is added when run as root.",
            SearchPathOption.discussion,
            IsolationOption.discussion,
            DeadlineOption.discussion,
            "Exit status: " + ExitCode.allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + ".",
        ],
        examples: [
            "tidings preview invite.json --categories categories.json --output invite.html",
            "tidings preview invite.json --categories categories.json --respond accept --png accepted.png",
            "tidings preview invite.json --categories categories.json --appearance dark --png dark.png --json",
        ])

    /// The widest content drawn, in points.
    private static let widestContent = 2_000.0

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        let appearances = try appearances(arguments)
        if let width = try arguments.positiveNumber("width"), width > widestContent {
            throw .usage("tidings preview draws content at most \(NumberText.short(widestContent)) points wide, not \(NumberText.short(width)).")
        }
        // Find the browser first: a PNG asked for and impossible is known before anything is delivered.
        let browser: HeadlessBrowser? = try arguments.value("png").map { _ throws(CommandFailure) in
            do throws(Diagnostic) {
                return try HeadlessBrowser.find(arguments.value("browser"), environment: environment)
            } catch {
                throw CommandFailure(.browserFailed, [error])
            }
        }
        if arguments.value("browser") != nil && browser == nil { throw .usage("--browser goes with --png.") }

        // The expanded view is what there is to see: preview opens the interface, as a long press does.
        let session = try DeliverCommand.deliver(arguments, command: "preview", opening: true, environment: environment)
        guard var delivery = session.made.delivery else {
            throw CommandFailure(.dataError, [.error(.usage,
                "The notification is not shown (\(session.made.display.rawValue)): iOS shows no banner for it, so there is nothing to preview.")])
        }
        delivery.diagnostics.insert(contentsOf: session.notes, at: 0)
        delivery.diagnostics += session.faults.take(besides: delivery.diagnostics)
        // Read the images now: a response that dismisses the notification takes its attachments out of the store.
        var images: [String: InlineImage] = [:]
        for attachment in delivery.presentation.notification.content.attachments {
            images[attachment.identifier] = InlineImage(file: attachment.path)
        }
        let (outcome, responseFailure) = session.respond(arguments, to: delivery.presentation)
        if let responseFailure { throw CommandFailure(.dataError, [responseFailure]) }

        var moments = [PreviewPage.Moment(caption: expandedCaption(delivery.presentation), presentation: delivery.presentation)]
        if let outcome { moments.append(PreviewPage.Moment(caption: caption(outcome), presentation: outcome.presentation)) }
        let page = PreviewPage(banner: delivery.presentation, moments: moments, appearances: appearances, images: images,
                               icon: delivery.presentation.settings.app.icon.flatMap { InlineImage(file: $0) })

        let terminal = Terminal(descriptor: 2, environment: environment)
        for diagnostic in delivery.diagnostics + (outcome?.diagnostics ?? []) {
            printError("tidings preview: " + terminal.line(for: diagnostic))
        }
        let html = page.html()
        let output = arguments.value("output")
        if let output {
            do throws(Diagnostic) {
                try FileSystem.writeFileAtomically(output, Array(html.utf8))
            } catch {
                throw CommandFailure(.cannotCreate, [error])
            }
        }
        var height: Int?
        if let browser, let png = arguments.value("png") {
            do throws(Diagnostic) {
                height = try browser.screenshot(of: page.html(measuring: true), width: page.width, to: png)
            } catch {
                throw CommandFailure(.browserFailed, [error])
            }
        }

        if arguments.flag("json") {
            var members = session.made.json.objectMembers ?? []
            if let outcome { members.append(("response", outcome.json)) }
            var files: [(String, JSON)] = [("appearances", .array(appearances.map { .string($0.rawValue) }))]
            files.append(output.map { ("output", .string($0)) } ?? ("html", .string(html)))
            if let png = arguments.value("png"), let height {
                files += [("png", .string(png)), ("width", .integer(Int64(page.width))), ("height", .integer(Int64(height)))]
            }
            members.append(("preview", .object(files)))
            print(JSON.object(members).serialized(pretty: true))
        } else if output == nil && browser == nil {
            print(html, terminator: "")
        }
        let failed = delivery.extensionFailed || (outcome?.diagnostics.containsError ?? false)
        return failed ? .extensionFailed : .success
    }

    /// `--appearance`: light, dark or both (the default).
    private static func appearances(_ arguments: ParsedArguments) throws(CommandFailure) -> [PreviewPage.Appearance] {
        guard let value = arguments.value("appearance"), value != "both" else { return PreviewPage.Appearance.allCases }
        guard let appearance = PreviewPage.Appearance(rawValue: value) else {
            throw .usage("--appearance takes light, dark or both, not \"\(value)\".")
        }
        return [appearance]
    }

    /// "Expanded · 360 × 320 (270 while loading)".
    private static func expandedCaption(_ presentation: Presentation) -> String {
        guard let initial = presentation.initialContentHeight, presentation.extensionIdentifier != nil,
              !presentation.previewsHidden else { return "Expanded" }
        let width = NumberText.short(presentation.contentWidth)
        let height = presentation.contentHeight ?? initial
        var caption = "Expanded · \(width) × \(NumberText.short(height))"
        if height != initial { caption += " (\(NumberText.short(initial)) while loading)" }
        return caption
    }

    /// "After accept: the extension answered dismiss; dismissed".
    private static func caption(_ outcome: ResponseOutcome) -> String {
        var caption = "After " + PresentationText.shortName(outcome.response.actionIdentifier)
        if let text = outcome.response.userText { caption += " with \"\(text)\"" }
        let receiver = switch outcome.receiver {
        case .extension: ": the extension answered " + (outcome.option?.name ?? "nothing in time")
        case .app: ": sent to the app"
        case .nobody: ": nobody told"
        }
        return caption + receiver + (outcome.presentation.dismissed ? "; dismissed" : "; still shown")
    }
}
