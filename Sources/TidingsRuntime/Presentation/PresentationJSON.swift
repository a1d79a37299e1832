import TidingsBase
import TidingsManifest
import TidingsProtocol

// The JSON forms front ends receive (the command line's --json, and later the
// JSON-RPC server). Member names follow Apple's property names.

extension UserNotification {
    /// The notification as JSON: identifier, ISO 8601 date, the trigger
    /// that delivered it when it has one (as `NotificationTrigger.json` gives
    /// it, a snapshot without a next date: `requests.pending` has those),
    /// `late: true` when a scheduled request fired late, content.
    package var json: JSON {
        let content = self.content
        var members: [(String, JSON)] = [
            ("identifier", .string(identifier)),
            ("date", .string(ISO8601.format(date))),
            ("title", .string(content.title)),
            ("subtitle", .string(content.subtitle)),
            ("body", .string(content.body)),
            ("categoryIdentifier", .string(content.categoryIdentifier)),
            ("threadIdentifier", .string(content.threadIdentifier)),
        ]
        // Room for every member at once: the array would otherwise grow twice.
        members.reserveCapacity(24)
        if let trigger { members.append(("trigger", trigger.json)) }
        if late { members.append(("late", .bool(true))) }
        if let target = content.targetContentIdentifier { members.append(("targetContentIdentifier", .string(target))) }
        if let badge = content.badge { members.append(("badge", .integer(badge))) }
        if let sound = content.sound { members.append(("sound", .string(sound))) }
        if content.criticalSound { members.append(("criticalSound", .bool(true))) }
        if let volume = content.soundVolume { members.append(("soundVolume", .double(volume))) }
        members.append(("interruptionLevel", .string(content.interruptionLevel.payloadName)))
        members.append(("relevanceScore", .double(content.relevanceScore)))
        if !content.launchImageName.isEmpty { members.append(("launchImageName", .string(content.launchImageName))) }
        if !content.summaryArgument.isEmpty { members.append(("summaryArgument", .string(content.summaryArgument))) }
        if content.summaryArgumentCount != 0 {
            members.append(("summaryArgumentCount", .integer(Int64(content.summaryArgumentCount))))
        }
        if let criteria = content.filterCriteria { members.append(("filterCriteria", .string(criteria))) }
        members.append(("contentAvailable", .bool(content.contentAvailable)))
        members.append(("mutableContent", .bool(content.mutableContent)))
        members.append(("userInfo", .object(content.userInfo)))
        members.append(("attachments", .array(content.attachments.map(\.json))))
        return .object(members)
    }
}

extension NotificationAttachment {
    /// The attachment as JSON: identifier, type, url, size and thumbnail
    /// options (UNNotificationAttachment's options keys, without their prefix).
    package var json: JSON {
        var members: [(String, JSON)] = [
            ("identifier", .string(identifier)), ("type", .string(type)), ("url", .string(url)),
            ("size", .integer(Int64(clamping: size))), ("thumbnailHidden", .bool(thumbnail.hidden)),
        ]
        if let rect = thumbnail.clippingRect {
            members.append(("thumbnailClippingRect", .object([
                ("x", .double(rect.x)), ("y", .double(rect.y)), ("width", .double(rect.width)),
                ("height", .double(rect.height)),
            ])))
        }
        if let time = thumbnail.time { members.append(("thumbnailTime", .double(time))) }
        return .object(members)
    }
}

extension AttachmentStore.Admission {
    /// What the store took in, as JSON: the attachment, where its file came
    /// from, and how (`moved`, `copied`, `movedByCopy` or `copiedInstead`,
    /// with the reason). The store always holds a copy; the transfer says
    /// whether the file also left its place.
    package var json: JSON {
        var members = attachment.json.objectMembers ?? []
        members.append(("source", .string(source)))
        switch transfer {
        case .moved: members.append(("transfer", .string("moved")))
        case .copied: members.append(("transfer", .string("copied")))
        case .movedByCopy(let reason):
            members += [("transfer", .string("movedByCopy")), ("reason", .string(reason))]
        case .copiedInstead(let reason):
            members += [("transfer", .string("copiedInstead")), ("reason", .string(reason))]
        }
        return .object(members)
    }
}

extension Presentation {
    /// Everything a front end needs to draw the notification.
    package var json: JSON {
        var members: [(String, JSON)] = [
            ("notification", .string(notification.identifier)),
            ("app", .string(app)),
            ("extension", extensionIdentifier.map(JSON.string) ?? .null),
            ("header", .string(header)),
            ("icon", settings.app.icon.map(JSON.string) ?? .null),
            ("defaultContentHidden", .bool(defaultContentHidden)),
            ("previewsHidden", .bool(previewsHidden)),
        ]
        // Room for every member at once: the array would otherwise grow three times.
        members.reserveCapacity(21)
        // Delivered quietly (provisional authorization): listed, no banner, no sound.
        if quiet { members.append(("quiet", .bool(true))) }
        if let content = defaultContent {
            members.append(("defaultContent", .object([("title", .string(content.title)),
                                                       ("subtitle", .string(content.subtitle)),
                                                       ("body", .string(content.body))])))
        }
        var size: [(String, JSON)] = [("width", .double(contentWidth))]
        if let initialContentHeight { size.append(("initialHeight", .double(initialContentHeight))) }
        if let contentHeight { size.append(("height", .double(contentHeight))) }
        members.append(("contentSize", .object(size)))
        members.append(("view", previewsHidden ? .null
            : view.flatMap { $0.json(attachments: notification.content.attachments) } ?? .null))
        members.append(("actions", .array(actions.map(\.json))))
        // A button of type none (also what an empty frame gives) is no button.
        if let mediaButton, mediaButton.type != 0 {
            var button: [(String, JSON)] = [("type", .string(["none", "default", "overlay"][Int(mediaButton.type)]))]
            if let frame = mediaButton.frame {
                button.append(("frame", .array([frame.0, frame.1, frame.2, frame.3].map(JSON.double))))
            }
            if let tint = mediaButton.tint { button.append(("tintColor", .string(tint.description))) }
            button.append(("playing", .bool(mediaPlaying)))
            members.append(("mediaButton", .object(button)))
        }
        members.append(("userInteractionEnabled", .bool(userInteractionEnabled)))
        members.append(("textInput", textInput.map { .object([("buttonTitle", .string($0.buttonTitle)),
                                                                ("placeholder", .string($0.placeholder))]) } ?? .null))
        members.append(("attributes", attributes))
        members.append(("category", settings.category?.json ?? .null))
        members.append(("group", .object([
            ("thread", .string(notification.content.threadIdentifier)),
            ("count", .integer(Int64(settings.group.count))),
            ("arguments", .array(settings.group.arguments.map(JSON.string))),
            ("summary", .string(summary)),
        ])))
        members.append(("presentationOptions", presentationOptions.json))
        members.append(("expanded", .bool(expanded)))
        members.append(("dismissed", .bool(dismissed)))
        return .object(members)
    }
}

extension Presentation {
    /// How the notification asks to be presented besides its text: its
    /// sound (name, critical, volume), badge, interruption level, relevance,
    /// launch image, filter criteria, summary argument and count, and whether
    /// it wakes the app in the background.
    fileprivate var attributes: JSON {
        let content = notification.content
        var sound: JSON = .null
        if let name = content.sound {
            sound = .object([("name", .string(name)), ("critical", .bool(content.criticalSound)),
                             ("volume", content.soundVolume.map(JSON.double) ?? .null)])
        }
        return .object([
            ("sound", sound), ("badge", content.badge.map(JSON.integer) ?? .null),
            ("interruptionLevel", .string(content.interruptionLevel.payloadName)),
            ("relevanceScore", .double(content.relevanceScore)),
            ("launchImageName", .string(content.launchImageName)),
            ("filterCriteria", content.filterCriteria.map(JSON.string) ?? .null),
            ("summaryArgument", .string(content.summaryArgument)),
            ("summaryArgumentCount", .integer(Int64(content.summaryArgumentCount))),
            ("contentAvailable", .bool(content.contentAvailable)),
        ])
    }
}

extension ViewState {
    /// The view as a tree in the interface file's format, with images bound
    /// to their attachments; nil when there is no element.
    package func json(attachments: [NotificationAttachment]) -> JSON? {
        nodes.isEmpty ? nil : json(at: 0, attachments: attachments)
    }

    private func json(at position: Int, attachments: [NotificationAttachment]) -> JSON {
        let node = nodes[position]
        var members: [(String, JSON)] = [("type", .string(node.kindName))]
        if let identifier = node.identifier { members.append(("id", .string(identifier))) }
        members.append(("hidden", .bool(node.hidden)))
        switch node.content {
        case let .label(text, color, style):
            members.append(("text", .string(text)))
            if let color { members.append(("textColor", .string(color.description))) }
            members.append(("style", .string(style.rawValue)))
        case .image(let attachment):
            let bound = attachment.flatMap { identifier in attachments.first { $0.identifier == identifier } }
            members.append(("attachment", bound?.json ?? .null))
        case let .stack(axis, spacing, children):
            members.append(("axis", .string(axis.rawValue)))
            members.append(("spacing", .double(spacing)))
            members.append(("children", .array(children.map { json(at: $0, attachments: attachments) })))
        case let .button(title, enabled):
            members.append(("title", .string(title)))
            members.append(("enabled", .bool(enabled)))
        case let .textField(text, placeholder, enabled):
            members.append(("text", .string(text)))
            members.append(("placeholder", .string(placeholder)))
            members.append(("enabled", .bool(enabled)))
        }
        return .object(members)
    }
}

extension ForwardedResponse {
    /// What the app received: `{app, notification: {identifier, date, …content, userInfo}, actionIdentifier,
    /// userText, opensApp}`.
    package var json: JSON {
        .object([("app", .string(app)), ("notification", notification.json),
                 ("actionIdentifier", .string(actionIdentifier)), ("userText", userText.map(JSON.string) ?? .null),
                 ("opensApp", .bool(opensApp))])
    }
}

extension LogLine {
    /// The line as JSON.
    package var json: JSON {
        .object([("extension", .string(extensionIdentifier)), ("level", .string(level.name)), ("message", .string(message))])
    }
}

extension StageReport {
    /// The service stage as JSON: whether it ran, which extension, what it did.
    package var json: JSON {
        var members: [(String, JSON)] = []
        switch self {
        case .skipped:
            members.append(("ran", .bool(false)))
        case .failed(let identifier):
            members += [("ran", .bool(true)), ("extension", .string(identifier)), ("result", .string("failed"))]
        case .kept(let identifier, _, _):
            members += [("ran", .bool(true)), ("extension", .string(identifier)), ("result", .string("original"))]
        case .rewrote(let identifier, let changes, let afterExpiry, _):
            members += [("ran", .bool(true)), ("extension", .string(identifier)), ("result", .string("rewritten")),
                        ("changes", .array(changes.map(JSON.string))), ("afterTimeWillExpire", .bool(afterExpiry))]
        }
        if let milliseconds { members.append(("milliseconds", .double(milliseconds))) }
        members.append(("explanation", .string(sentence)))
        return .object(members)
    }
}

extension Delivery {
    /// The delivery as JSON: the notification, its presentation, and what happened.
    package var json: JSON {
        .object([
            ("notification", presentation.notification.json),
            ("service", .object((service.json.objectMembers ?? [])
                + [("createdAttachments", .array(createdAttachments.map(\.json)))])),
            ("presentation", presentation.json),
            ("forwarded", .array(forwarded.map(\.json))),
            ("log", .array(log.map(\.json))),
            ("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}

extension InterfaceOutcome {
    /// The outcome as JSON: the presentation, what the extension logged,
    /// what the app received meanwhile, and why the view may be missing.
    package var json: JSON {
        .object([
            ("presentation", presentation.json),
            ("forwarded", .array(forwarded.map(\.json))),
            ("log", .array(log.map(\.json))),
            ("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}

extension ResponseOutcome {
    /// The outcome as JSON: who received the response, the answer, and the presentation after it.
    package var json: JSON {
        .object([
            ("actionIdentifier", .string(response.actionIdentifier)),
            ("userText", response.userText.map(JSON.string) ?? .null),
            ("receiver", .string(receiver.rawValue)),
            ("option", option.map { .string($0.name) } ?? .null),
            ("dismissed", .bool(presentation.dismissed)),
            ("forwarded", .array(forwarded.map(\.json))),
            ("presentation", presentation.json),
            ("log", .array(log.map(\.json))),
            ("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}
