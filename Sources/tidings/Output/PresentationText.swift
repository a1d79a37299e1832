import TidingsBase
import TidingsRegistry
import TidingsManifest
import TidingsProtocol
import TidingsRuntime

/// A presentation and a response outcome as text for people.
struct PresentationText {
    let terminal: Terminal
    private let labelWidth = 14

    init(terminal: Terminal) { self.terminal = terminal }

    func render(_ delivery: Delivery) -> String {
        let presentation = delivery.presentation
        let notification = presentation.notification
        var text = terminal.bold("Notification") + "  \(notification.identifier)\n"
        text += field("App", presentation.app)
        text += field("Category", notification.content.categoryIdentifier.isEmpty ? "(none)" : notification.content.categoryIdentifier)
        if !notification.content.threadIdentifier.isEmpty { text += field("Thread", notification.content.threadIdentifier) }
        text += field("Date", ISO8601.format(notification.date))
        text += details(of: notification.content)
        for attachment in notification.content.attachments {
            text += field("Attachment", "\(attachment.identifier)  \(describe(attachment))")
        }
        text += "\n" + terminal.bold("Presentation") + "\n"
        text += field("Extension", presentation.extensionIdentifier.map {
            presentation.expanded ? $0 : "\($0) (its view draws when the interface opens: --open)"
        } ?? "none: the default content shows")
        text += field("Interface", presentation.expanded ? "expanded" : "banner")
        text += field("Header", presentation.header + (presentation.settings.app.icon.map { "  (icon \($0))" } ?? ""))
        if presentation.previewsHidden {
            text += field("Previews", "hidden: the text shows as the category allows, the view and attachments not")
        }
        if let content = presentation.defaultContent {
            text += field("Title", content.title.isEmpty ? "(none)" : content.title)
            if !content.subtitle.isEmpty { text += field("Subtitle", content.subtitle) }
            text += field("Body", content.body.isEmpty ? "(none)" : content.body)
        } else {
            text += field("Default", "hidden (UNNotificationExtensionDefaultContentHidden)")
        }
        if let initial = presentation.initialContentHeight, !presentation.previewsHidden {
            let width = NumberText.short(presentation.contentWidth)
            var size = "\(width) × \(NumberText.short(initial)) while loading"
            if let height = presentation.contentHeight, height != initial {
                size += ", then \(width) × \(NumberText.short(height))"
            }
            text += field("Content size", size)
        }
        if presentation.userInteractionEnabled { text += field("Touches", "reach the extension's view") }
        if presentation.settings.group.count > 1 { text += field("Group", presentation.summary) }
        if let view = presentation.view, !view.isEmpty, !presentation.previewsHidden {
            text += field("View", "")
            text += tree(view, at: 0, depth: 1, attachments: notification.content.attachments)
        }
        text += actions(presentation.actions)
        if let input = presentation.textInput {
            text += field("Text input", "asked for: \"\(input.placeholder)\" [\(input.buttonTitle)]")
        }
        if let button = presentation.mediaButton, button.type != 0 {
            text += field("Media button", ["none", "default", "overlay"][Int(button.type)] + (presentation.mediaPlaying ? ", playing" : ""))
        }
        text += log(delivery.log) + diagnostics(delivery.diagnostics)
        return text
    }

    /// A notification iOS does not show (`made` was not presented), and
    /// what it did instead: handed to the app, or set the app's badge.
    func render(unpresented made: PayloadDelivery) -> String {
        let notification = made.notification
        var text = terminal.bold("Notification") + "  \(notification.identifier)\n"
        text += field("App", made.app)
        text += field("Date", ISO8601.format(notification.date))
        text += details(of: notification.content)
        switch made.display {
        case .background:
            text += field("Shown", "no: a background notification (content-available, no alert, sound or badge); no extension ran")
            text += field("App", "receives it with its userInfo (tidings serve keeps it in the app's inbox)")
            if !notification.content.userInfo.isEmpty {
                text += field("userInfo", JSON.object(notification.content.userInfo).serialized())
            }
        case .badge, .presented:
            text += field("Shown", "no: a badge-only notification sets the app's badge; no extension ran")
        case .denied:
            text += field("Shown", "no: the app's notifications are denied; no badge set, no extension ran")
        case .foreground:
            text += field("Shown", "no: its app is in the foreground and did not ask for a banner or the list")
        }
        return text + diagnostics(made.notes)
    }

    /// The stages a delivery went through, and why: `--explain`. `admitted`
    /// are the payload's attachments as the store took them in.
    func explain(_ delivery: Delivery, admitted: [AttachmentStore.Admission]) -> String {
        var text = terminal.bold("Stages") + "\n"
        text += field("Attachments", admitted.isEmpty ? "The payload attaches no files." : "")
        for admission in admitted { text += "    " + describe(admission) + "\n" }
        var service = delivery.service.sentence
        if let milliseconds = delivery.service.milliseconds { service += " (\(NumberText.fixed(milliseconds, 1)) ms)" }
        text += field("Service", service)
        for admission in delivery.createdAttachments { text += "    created " + describe(admission) + "\n" }
        let presentation = delivery.presentation
        let content: String
        if let identifier = presentation.extensionIdentifier, !presentation.expanded {
            content = "\(identifier) serves category \"\(presentation.notification.content.categoryIdentifier)\"; a delivery runs none of its code, as on iOS: it draws the view when the expanded interface opens (--open)."
        } else if let identifier = presentation.extensionIdentifier {
            content = "\(identifier) draws the view of category \"\(presentation.notification.content.categoryIdentifier)\"."
        } else if let reason = delivery.diagnostics.first(where: { $0.code.rawValue.hasPrefix("route.") }) {
            content = reason.message
        } else if let failure = delivery.diagnostics.first(where: { $0.severity == .error }) {
            content = "The content extension failed (\(failure.code)); the default content shows."
        } else {
            content = "No content extension; the default content shows."
        }
        text += field("Content", content)
        return text + "\n"
    }

    /// The media button after a tap (`--tap-media-button`).
    func renderMediaTap(_ outcome: MediaTapOutcome) -> String {
        "\n" + terminal.bold("Media button") + "  tapped: " + (outcome.presentation.mediaPlaying ? "playing" : "paused") + "\n"
            + log(outcome.log) + diagnostics(outcome.diagnostics)
    }

    /// `--explain`'s last stage: the verdict on each bundle of the app, and
    /// on each bundle rejected for its errors (which may be the one meant),
    /// as `tidings list`, `install` and `manifest lint` give it.
    func verdicts(_ bundles: [ExtensionBundle]) -> String {
        guard !bundles.isEmpty else { return field("Bundles", "none of the app's on the search path") + "\n" }
        var text = field("Bundles", "")
        for bundle in bundles {
            let errors = bundle.diagnostics.filter { $0.severity == .error }.count
            let warnings = bundle.diagnostics.filter { $0.severity == .warning }.count
            let state = !bundle.isUsable ? "rejected"
                : errors > 0 ? "\(errors) error\(errors == 1 ? "" : "s")"
                : warnings > 0 ? "\(warnings) warning\(warnings == 1 ? "" : "s")" : "ok"
            text += "    \(bundle.name) \(terminal.dim(state))\n"
            // Every problem, as list and manifest lint show them: warnings keep their did-you-mean, notes say what it shadows.
            for problem in bundle.diagnostics { text += "      " + terminal.line(for: problem) + "\n" }
        }
        return text + "\n"
    }

    func render(_ outcome: ResponseOutcome, before: Presentation) -> String {
        let response = outcome.response
        var text = "\n" + terminal.bold("Response") + "  \(Self.shortName(response.actionIdentifier))"
        if let userText = response.userText { text += " with text \"\(userText)\"" }
        text += "\n"
        switch outcome.receiver {
        case .extension:
            text += field("Received by", "the extension")
            text += field("Answer", outcome.option?.name ?? "none in time (handled as dismissAndForwardAction)")
        case .app:
            text += field("Received by", "the app directly")
        case .nobody:
            text += field("Received by", "nobody (the category lacks customDismissAction)")
        }
        text += field("Notification", outcome.presentation.dismissed ? "dismissed" : "still shown")
        if outcome.forwarded.isEmpty {
            text += field("App", "not told")
        } else {
            for forwarded in outcome.forwarded {
                var line = "received \(Self.shortName(forwarded.actionIdentifier)) on \(forwarded.notificationIdentifier)"
                if let userText = forwarded.userText { line += " with text \"\(userText)\"" }
                if forwarded.opensApp { line += ", brought to the foreground" }
                text += field("App", line)
                let userInfo = forwarded.notification.content.userInfo
                if !userInfo.isEmpty { text += field("userInfo", JSON.object(userInfo).serialized()) }
            }
        }
        text += viewChanges(outcome.presentation, since: before)
        if !outcome.presentation.dismissed && outcome.presentation.actions != before.actions {
            text += actions(outcome.presentation.actions, label: "Actions now")
        }
        return text + log(outcome.log) + diagnostics(outcome.diagnostics)
    }

    /// An element event and what it changed since `before`.
    func render(_ outcome: InteractionOutcome, before: Presentation) -> String {
        let event = outcome.event
        var text = "\n" + terminal.bold("Element") + "  \(event.name)"
        if let element = event.element { text += " " + terminal.bold(element) }
        if let entered = event.text { text += " with text \"\(entered)\"" }
        text += "\n" + field("Received by", "the extension")
        text += field("Notification", outcome.presentation.dismissed ? "dismissed" : "still shown")
        for forwarded in outcome.forwarded { text += field("App", "received \(Self.shortName(forwarded.actionIdentifier))") }
        switch (before.textInput, outcome.presentation.textInput) {
        case (_, let input?) where input != before.textInput:
            text += field("Text input", "asked for: \"\(input.placeholder)\" [\(input.buttonTitle)]")
        case (.some, nil):
            text += field("Text input", "no longer asked for")
        default:
            break
        }
        text += viewChanges(outcome.presentation, since: before)
        return text + log(outcome.log) + diagnostics(outcome.diagnostics)
    }

    /// The elements of `after`'s view that differ from `before`'s.
    private func viewChanges(_ after: Presentation, since before: Presentation) -> String {
        guard let view = after.view, let earlier = before.view else { return "" }
        let changed = view.nodes.indices.filter { $0 < earlier.nodes.count && view.nodes[$0] != earlier.nodes[$0] }
        guard !changed.isEmpty else { return "" }
        return field("View changes", "") + changed.map { position in
            "    " + describe(view.nodes[position], attachments: after.notification.content.attachments) + "\n"
        }.joined()
    }

    // MARK: Pieces

    /// "PNG image, 12.3 KB, thumbnail hidden".
    private func describe(_ attachment: NotificationAttachment) -> String {
        var parts = [MediaType(identifier: attachment.type)?.displayName ?? attachment.type,
                     NumberText.bytes(attachment.size)]
        let thumbnail = attachment.thumbnail
        if thumbnail.hidden { parts.append("thumbnail hidden") }
        if let rect = thumbnail.clippingRect {
            let values = [rect.x, rect.y, rect.width, rect.height].map { NumberText.short($0) }
            parts.append("thumbnail clipped to (\(values.joined(separator: ", ")))")
        }
        if let time = thumbnail.time { parts.append("thumbnail at \(NumberText.short(time)) s") }
        return parts.joined(separator: ", ")
    }

    /// "event-image: PNG image by its content, 12.3 KB of at most 10 MB;
    /// copied from /…/photo.png, which stays there".
    private func describe(_ admission: AttachmentStore.Admission) -> String {
        let source = admission.source
        let how = switch admission.transfer {
        case .moved: "moved from \(source) (copied in, then removed there)"
        case .copied: "copied from \(source), which stays there"
        case .movedByCopy(let reason): "moved from \(source) (copied in; \(reason))"
        case .copiedInstead(let reason): "copied from \(source) and left there, as \(reason)"
        }
        let type = admission.mediaType
        let checked = "\(type.displayName) by its content, \(NumberText.bytes(admission.attachment.size)) of at most "
            + NumberText.bytes(type.family.sizeLimit)
        return "\(terminal.bold(admission.attachment.identifier)): \(checked); \(how)"
    }

    private func field(_ name: String, _ value: String) -> String {
        "  " + terminal.dim(value.isEmpty ? name : name.rightPadded(to: labelWidth)) + value + "\n"
    }

    private func tree(_ view: ViewState, at position: Int, depth: Int, attachments: [NotificationAttachment]) -> String {
        let node = view.nodes[position]
        var text = String(repeating: "  ", count: depth + 1) + describe(node, attachments: attachments) + "\n"
        if case .stack(_, _, let children) = node.content {
            for child in children { text += tree(view, at: child, depth: depth + 1, attachments: attachments) }
        }
        return text
    }

    private func describe(_ node: ViewState.Node, attachments: [NotificationAttachment]) -> String {
        var text = node.kindName + (node.identifier.map { " " + terminal.bold($0) } ?? "")
        switch node.content {
        case let .label(label, color, style):
            text += " \"\(label)\""
            if let color { text += " " + colored(color) }
            if style != .body { text += terminal.dim(" \(style.rawValue)") }
        case .image(let attachment):
            if let attachment, let bound = attachments.first(where: { $0.identifier == attachment }) {
                text += " → \(bound.identifier) (\(bound.type.isEmpty ? "unknown type" : bound.type)) \(bound.url)"
            } else {
                text += " (empty)"
            }
        case let .stack(axis, spacing, _):
            text += terminal.dim(" \(axis.rawValue), spacing \(NumberText.short(spacing))")
        case let .button(title, enabled):
            text += " [\(title)]" + (enabled ? "" : terminal.dim(" (disabled)"))
        case let .textField(value, placeholder, enabled):
            text += value.isEmpty ? terminal.dim(" \"\(placeholder)\"") : " \"\(value)\""
            if !enabled { text += terminal.dim(" (disabled)") }
        }
        if node.hidden { text += terminal.dim(" (hidden)") }
        return text
    }

    /// The colour as hex, and in colour on a terminal that shows 24-bit colour.
    private func colored(_ color: Color) -> String {
        guard terminal.styled else { return color.description }
        let red = color.rgba >> 24, green = (color.rgba >> 16) & 0xFF, blue = (color.rgba >> 8) & 0xFF
        return "\u{1B}[38;2;\(red);\(green);\(blue)m\(color.description)\u{1B}[0m"
    }

    private func actions(_ actions: [NotificationAction], label: String = "Actions") -> String {
        guard !actions.isEmpty else { return field(label, "none") }
        var text = field(label, "")
        let width = actions.map(\.identifier.count).max() ?? 0
        let titleWidth = actions.map(\.title.count).max() ?? 0
        for action in actions {
            var line = "    " + action.identifier.rightPadded(to: width + 2) + action.title.rightPadded(to: titleWidth)
            var details = NotificationAction.Options.names.filter { action.options.contains($0.1) }.map(\.0)
            if let input = action.textInput {
                details.append("text input: \"\(input.buttonTitle)\"" + (input.placeholder.isEmpty ? "" : ", \"\(input.placeholder)\""))
            }
            switch action.icon {
            case .system(let name)?: details.append("icon \(name)")
            case .template(let name)?: details.append("template icon \(name)")
            case nil: break
            }
            line += details.isEmpty ? "" : terminal.dim(" " + details.joined(separator: ", "))
            text += line.trimmingTrailingSpaces() + "\n"
        }
        return text
    }

    /// The content's sound, launch image, summary argument, filter criteria
    /// and background flag, a line each, for those it has.
    private func details(of content: NotificationContent) -> String {
        var text = ""
        if let sound = content.sound {
            var parts = [sound]
            if content.criticalSound { parts.append("critical") }
            if let volume = content.soundVolume { parts.append("volume \(NumberText.short(volume))") }
            text += field("Sound", parts.joined(separator: ", "))
        }
        if !content.launchImageName.isEmpty { text += field("Launch image", content.launchImageName) }
        if !content.summaryArgument.isEmpty || content.summaryArgumentCount > 1 {
            text += field("Summary", "\"\(content.summaryArgument)\", counts \(max(1, content.summaryArgumentCount))")
        }
        if let criteria = content.filterCriteria { text += field("Filter", criteria) }
        if let badge = content.badge { text += field("Badge", badge == 0 ? "removed (0)" : "set to \(badge)") }
        if content.contentAvailable { text += field("Background", "content-available: the app is woken to fetch content") }
        return text
    }

    private func log(_ lines: [LogLine]) -> String {
        lines.map { "  " + terminal.dim("log ") + "\($0.extensionIdentifier) \($0.level.name): \($0.message)\n" }.joined()
    }

    private func diagnostics(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { "  " + terminal.line(for: $0) + "\n" }.joined()
    }

    /// The action as people read it: "default (opened)", "dismiss", or its identifier.
    static func shortName(_ action: String) -> String {
        switch action {
        case ActionIdentifier.default: "default (opened)"
        case ActionIdentifier.dismiss: "dismiss"
        default: action
        }
    }
}
