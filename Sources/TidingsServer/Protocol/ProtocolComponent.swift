import TidingsBase
import TidingsManifest
import TidingsProtocol
import TidingsRuntime

/// A named schema of the protocol: an object that several methods, events
/// or other schemas carry (a notification, a presentation, a payload, a
/// request, a category, …), described once and referred to by name
/// (`ProtocolSchema.named`): `components/schemas` of the OpenRPC document,
/// and a section of protocol.md each reference links to.
package struct ProtocolComponent: Sendable {
    /// Its name, as `ProtocolSchema.named` refers to it.
    package let name: String
    /// What it is, one or two sentences.
    package let summary: String
    /// Its type: an object's members, or the types it may be.
    package let schema: ProtocolSchema

    /// The schema `name`.
    init(_ name: String, _ summary: String, _ schema: ProtocolSchema) {
        self.name = name
        self.summary = summary
        self.schema = schema
    }

    /// Its JSON Schema, with its summary as `description`.
    package var jsonSchema: JSON {
        guard case .object(let members) = schema.jsonSchema else { return schema.jsonSchema }
        return .object([("title", .string(name)), ("description", .string(summary))] + members)
    }

    /// The names of a choice's cases, as the protocol spells them.
    private static func names<Choice: CaseIterable & RawRepresentable>(_: Choice.Type) -> [String]
    where Choice.RawValue == String {
        Choice.allCases.map(\.rawValue)
    }

    /// Every named schema, in the order the reference lists them.
    package static let all: [ProtocolComponent] = inputs + outputs + push

    /// What clients send: payloads, requests, triggers, categories.
    private static let inputs: [ProtocolComponent] = [
        ProtocolComponent("Payload", "What `notifications.deliver` delivers: an APNs payload (an `aps` dictionary, custom keys beside it) or a request (`identifier`, `content`, …).",
                          .either(.named("APNsPayload"), .named("RequestPayload"))),
        ProtocolComponent("APNsPayload", "A remote notification's payload, as APNs carries it: its `aps` dictionary and the app's own keys beside it (its `userInfo`). A wrong-typed or out-of-range `aps` member is ignored with a warning (`payload.field-ignored`), as on a device.", .object([
            ProtocolField("aps", .object([
                ProtocolField("alert", .either(.string, .object([
                    ProtocolField("title", .string, "The title."), ProtocolField("subtitle", .string, "The subtitle."),
                    ProtocolField("body", .string, "The body."), ProtocolField("launch-image", .string, "The launch image's name."),
                    ProtocolField("title-loc-key", .string, "The key of the localized title."),
                    ProtocolField("title-loc-args", .strings, "Its arguments."),
                    ProtocolField("subtitle-loc-key", .string, "The key of the localized subtitle."),
                    ProtocolField("subtitle-loc-args", .strings, "Its arguments."),
                    ProtocolField("loc-key", .string, "The key of the localized body."),
                    ProtocolField("loc-args", .strings, "Its arguments."),
                    ProtocolField("action-loc-key", .string, "The key of the localized action title."),
                    ProtocolField("summary-arg", .string, "The summary argument."),
                    ProtocolField("summary-arg-count", .integer(atLeast: 0), "How many items the notification stands for."),
                ])), "The alert: its body as a string, or its parts."),
                ProtocolField("badge", .integer(atLeast: 0), "The app's badge; 0 clears it."),
                ProtocolField("sound", .named("Sound"), "The sound it plays."),
                ProtocolField("thread-id", .string, "The thread it is grouped in."),
                ProtocolField("category", .string, "Its category's identifier: its actions and content extension."),
                ProtocolField("content-available", .integer, "1: it wakes the app in the background."),
                ProtocolField("mutable-content", .integer, "1: its service extension may rewrite it."),
                ProtocolField("target-content-id", .string, "The content it brings forward when opened."),
                ProtocolField("interruption-level", .choice(InterruptionLevel.allCases.map(\.payloadName)), "How urgently it asks for attention."),
                ProtocolField("relevance-score", .number(0...1), "Its relevance among the app's notifications."),
                ProtocolField("filter-criteria", .string, "The Focus filter it matches."),
            ]), required: true, "What the system does with it."),
        ])),
        ProtocolComponent("RequestPayload", "A local notification request (UNNotificationRequest): its identifier, its content and when it is dated.", .object([
            ProtocolField("identifier", .name, "Its identifier; the server makes one up when absent."),
            ProtocolField("date", .either(.date, .number), "When it is dated: ISO 8601, or seconds since 1970; now when absent."),
            ProtocolField("content", .named("Content"), required: true, "What it shows and carries."),
        ])),
        ProtocolComponent("Request", "What `requests.add` schedules: a request payload with the trigger it fires on.", .object([
            ProtocolField("identifier", .name, "Its identifier; made up when absent."),
            ProtocolField("date", .either(.date, .number), "When its notification is dated; the fire time when absent."),
            ProtocolField("content", .named("Content"), required: true, "What it shows and carries, as in a request payload."),
            ProtocolField("trigger", .named("Trigger"), required: true, "When it fires."),
        ])),
        ProtocolComponent("Content", "A request's content (UNNotificationContent): what it shows, plays and carries.", .object([
            ProtocolField("title", .string, "The title."), ProtocolField("subtitle", .string, "The subtitle."),
            ProtocolField("body", .string, "The body."),
            ProtocolField("badge", .integer(atLeast: 0), "The app's badge; 0 clears it."),
            ProtocolField("sound", .named("Sound"), "The sound it plays."),
            ProtocolField("threadIdentifier", .string, "The thread it is grouped in."),
            ProtocolField("categoryIdentifier", .string, "Its category's identifier: its actions and content extension."),
            ProtocolField("targetContentIdentifier", .string, "The content it brings forward when opened."),
            ProtocolField("interruptionLevel", .choice(InterruptionLevel.allCases.map(\.payloadName)), "How urgently it asks for attention."),
            ProtocolField("relevanceScore", .number(0...1), "Its relevance among the app's notifications."),
            ProtocolField("userInfo", .anyObject, "The app's own data."),
            ProtocolField("attachments", .array(.named("AttachmentFile")), "The files it shows."),
            ProtocolField("launchImageName", .string, "The launch image's name."),
            ProtocolField("summaryArgument", .string, "The summary argument."),
            ProtocolField("summaryArgumentCount", .integer(atLeast: 0), "How many items the notification stands for."),
            ProtocolField("filterCriteria", .string, "The Focus filter it matches."),
        ])),
        ProtocolComponent("Sound", "A sound: its name (`default` for the system's), or a critical alert's.",
                          .either(.string, .object([
                              ProtocolField("name", .string, required: true, "The sound's name."),
                              ProtocolField("critical", .either(.boolean, .integer), "Whether it is a critical alert (true or 1)."),
                              ProtocolField("volume", .number(0...1), "A critical alert's volume."),
                          ]))),
        ProtocolComponent("AttachmentFile", "A file a payload attaches: where it is (`path`, absolute over RPC, or a `file://` `url`) and UNNotificationAttachment's options.", .object([
            ProtocolField("identifier", .string, "Its identifier; made up when absent."),
            ProtocolField("path", .string, "The file's path."),
            ProtocolField("url", .string, "The file's `file://` URL."),
            ProtocolField("typeHint", .string, "Its type (a UTI such as `public.png`) when its contents do not say."),
            ProtocolField("thumbnailHidden", .boolean, "Whether its thumbnail is hidden."),
            ProtocolField("thumbnailClippingRect", .named("Rectangle"), "The part of the image the thumbnail shows, in unit coordinates."),
            ProtocolField("thumbnailTime", .number(0...86_400), "The time in a movie its thumbnail shows, in seconds."),
        ])),
        ProtocolComponent("Rectangle", "A rectangle: its origin and size.", .object([
            ProtocolField("x", .number, required: true, "Its left edge."), ProtocolField("y", .number, required: true, "Its top edge."),
            ProtocolField("width", .number, required: true, "Its width."), ProtocolField("height", .number, required: true, "Its height."),
        ])),
        ProtocolComponent("Trigger", "When a request fires (UNNotificationTrigger): after a time interval (seconds, more than 0; at least 60 when repeating), on dates matching date components, or on crossing a region's edge; `push` marks a remote notification's, as delivered notifications carry it.", .either(
            .object([ProtocolField("timeInterval", .number(above: 0), required: true, "Seconds from when it is added."), repeatsField]),
            .object([ProtocolField("dateMatching", .named("DateComponents"), required: true, "The date components a date must match."), repeatsField]),
            .object([ProtocolField("region", .named("Region"), required: true, "The region whose edge it fires on."), repeatsField]),
            .object([ProtocolField("push", .boolean, required: true, "`true`: a remote notification's (only as delivered notifications carry it).")]))),
        ProtocolComponent("DateComponents", "Date components a calendar trigger matches (DateComponents): any of them, in the zone named, else the user's.", .object(
            DateMatching.componentNames.map { name in
                ProtocolField(name, .integer, name == "weekday" ? "1 Sunday … 7 Saturday." : "The date's \(name).")
            } + [ProtocolField("timeZone", .string, "A zone name (`Europe/Berlin`); the user's zone when absent.")])),
        ProtocolComponent("Region", "A circular region (CLCircularRegion) and the crossings of its edge that fire.", .object([
            ProtocolField("identifier", .string, required: true, "Its name."),
            ProtocolField("latitude", .number(-90...90), required: true, "Its centre's latitude, in degrees."),
            ProtocolField("longitude", .number(-180...180), required: true, "Its centre's longitude, in degrees."),
            ProtocolField("radius", .number(above: 0), required: true, "Its radius, in metres."),
            ProtocolField("notifyOnEntry", .boolean, "Whether entering it fires."),
            ProtocolField("notifyOnExit", .boolean, "Whether leaving it fires."),
        ])),
        ProtocolComponent("Category", "A category (UNNotificationCategory), as a category file and `categories.register` give it and `categories.list` and a presentation answer it.", .object([
            ProtocolField("identifier", .string, required: true, "Its identifier, as notifications' `categoryIdentifier` names it."),
            ProtocolField("actions", .array(.named("Action")), "Its actions, in order."),
            ProtocolField("options", .array(.choice(NotificationCategory.Options.names.map(\.0))), "Its options."),
            ProtocolField("intentIdentifiers", .strings, "The intents it stands for."),
            ProtocolField("hiddenPreviewsBodyPlaceholder", .string, "The body shown when previews are hidden."),
            ProtocolField("categorySummaryFormat", .string, "The format of its group's summary."),
        ])),
        ProtocolComponent("Action", "An action of a category (UNNotificationAction, UNTextInputNotificationAction).", .object([
            ProtocolField("identifier", .string, required: true, "Its identifier, as a response names it."),
            ProtocolField("title", .string, required: true, "Its button's title."),
            ProtocolField("options", .array(.choice(NotificationAction.Options.names.map(\.0))), "Its options."),
            ProtocolField("textInput", .named("TextInput"), "For a text-input action: its button and placeholder."),
            ProtocolField("icon", .either(.closedObject([ProtocolField("systemImageName", .string, required: true, "A system symbol's name.")]),
                                          .closedObject([ProtocolField("templateImageName", .string, required: true, "A template image's name.")])),
                          "Its icon."),
        ])),
        ProtocolComponent("TextInput", "What a text input shows: its send button's title and its placeholder.", .object([
            ProtocolField("buttonTitle", .string, required: true, "The send button's title."),
            ProtocolField("placeholder", .string, required: true, "The placeholder shown before the user types."),
        ])),
    ]

    /// Whether a trigger repeats.
    private static let repeatsField = ProtocolField("repeats", .boolean, "Whether it fires again after it fired; `false` when absent.")

    /// What the server answers and pushes.
    private static let outputs: [ProtocolComponent] = [
        ProtocolComponent("Notification", "A delivered notification (UNNotification with its request's content): identifier, date, trigger, full content, `userInfo`, attachments.", .object([
            ProtocolField("identifier", .string, required: true, "Its identifier."),
            ProtocolField("date", .date, required: true, "When it was delivered (or dated)."),
            ProtocolField("title", .string, required: true, "The title."), ProtocolField("subtitle", .string, required: true, "The subtitle."),
            ProtocolField("body", .string, required: true, "The body."),
            ProtocolField("categoryIdentifier", .string, required: true, "Its category's identifier."),
            ProtocolField("threadIdentifier", .string, required: true, "The thread it is grouped in."),
            ProtocolField("trigger", .named("Trigger"), "The trigger that delivered it, when it has one."),
            ProtocolField("late", .boolean, "Present and `true` when a scheduled request fired more than a second after its time."),
            ProtocolField("targetContentIdentifier", .string, "The content it brings forward when opened."),
            ProtocolField("badge", .integer, "The badge it sets."),
            ProtocolField("sound", .string, "The sound it plays."),
            ProtocolField("criticalSound", .boolean, "`true`: its sound is a critical alert's."),
            ProtocolField("soundVolume", .number(0...1), "A critical alert's volume."),
            ProtocolField("interruptionLevel", .choice(InterruptionLevel.allCases.map(\.payloadName)), required: true, "How urgently it asks for attention."),
            ProtocolField("relevanceScore", .number(0...1), required: true, "Its relevance among the app's notifications."),
            ProtocolField("launchImageName", .string, "The launch image's name."),
            ProtocolField("summaryArgument", .string, "The summary argument."),
            ProtocolField("summaryArgumentCount", .integer(atLeast: 0), "How many items it stands for."),
            ProtocolField("filterCriteria", .string, "The Focus filter it matches."),
            ProtocolField("contentAvailable", .boolean, required: true, "Whether it wakes the app in the background."),
            ProtocolField("mutableContent", .boolean, required: true, "Whether its service extension may rewrite it."),
            ProtocolField("userInfo", .anyObject, required: true, "The app's own data."),
            ProtocolField("attachments", .array(.named("Attachment")), required: true, "Its attachments, in the store."),
        ])),
        ProtocolComponent("Attachment", "An attachment in the attachment store (UNNotificationAttachment).", .object(attachmentFields)),
        ProtocolComponent("AdmittedAttachment", "An attachment the store took in, where its file came from and how.", .object(attachmentFields + [
            ProtocolField("source", .string, required: true, "Where its file came from."),
            ProtocolField("transfer", .choice("moved", "copied", "movedByCopy", "copiedInstead"), required: true,
                          "How: the store always holds a copy; this says whether the file also left its place."),
            ProtocolField("reason", .string, "Why it was copied instead (`movedByCopy`, `copiedInstead`)."),
        ])),
        ProtocolComponent("Presentation", "Everything a front end needs to draw a notification, as it is now.", .object(presentationFields)),
        ProtocolComponent("ViewNode", "An element of a content extension's view, in the interface file's format, with images bound to their attachments.", .object([
            ProtocolField("type", .choice("label", "image", "stack", "button", "textField"), required: true, "The element's kind."),
            ProtocolField("id", .string, "Its identifier."),
            ProtocolField("hidden", .boolean, required: true, "Whether it is hidden."),
            ProtocolField("text", .string, "A label's or text field's text."),
            ProtocolField("textColor", .string, "A label's colour."),
            ProtocolField("style", .choice(names(InterfaceElement.TextStyle.self)), "A label's text style."),
            ProtocolField("attachment", .nullable(.named("Attachment")), "An image's attachment, or `null`."),
            ProtocolField("axis", .choice(names(InterfaceElement.Axis.self)), "A stack's axis."),
            ProtocolField("spacing", .number, "A stack's spacing."),
            ProtocolField("children", .array(.named("ViewNode")), "A stack's elements."),
            ProtocolField("title", .string, "A button's title."),
            ProtocolField("enabled", .boolean, "Whether a button or text field takes input."),
            ProtocolField("placeholder", .string, "A text field's placeholder."),
        ])),
        ProtocolComponent("PresentationOptions", "How a notification is presented (UNNotificationPresentationOptions).",
                          .array(.choice(PresentationOptions.names.map(\.0)))),
        ProtocolComponent("ForwardedResponse", "A response the app received, as its inbox keeps it.", .object([
            ProtocolField("app", .string, required: true, "The app."),
            ProtocolField("notification", .named("Notification"), required: true, "The notification, with its full content and `userInfo`."),
            ProtocolField("actionIdentifier", .string, required: true, "The action."),
            ProtocolField("userText", .nullable(.string), required: true, "The user's text, or `null`."),
            ProtocolField("opensApp", .boolean, required: true, "Whether it brings the app to the foreground."),
        ])),
        ProtocolComponent("InboxEntry", "What an app received and its front end has not taken: a response or a background notification.", .object([
            ProtocolField("id", .integer(atLeast: 1), required: true, "The entry's id: larger than every earlier one; give it to `inbox.take`."),
            ProtocolField("app", .string, required: true, "The app."),
            ProtocolField("kind", .choice("response", "background"), required: true, "What it is."),
            ProtocolField("received", .date, required: true, "When the app received it."),
            ProtocolField("notification", .named("Notification"), required: true, "The whole notification."),
            ProtocolField("actionIdentifier", .string, "A response's action."),
            ProtocolField("userText", .nullable(.string), "A response's text, or `null`."),
            ProtocolField("opensApp", .boolean, "Whether a response brings the app to the foreground."),
        ])),
        ProtocolComponent("Diagnostic", "A problem, or a note on a decision: a stable code, its severity, a sentence, and where.", .object([
            ProtocolField("severity", .choice("error", "warning", "note"), required: true, "How bad it is."),
            ProtocolField("code", .string, required: true, "What kind of problem, stable for programs (`payload.invalid`)."),
            ProtocolField("message", .string, required: true, "One plain sentence."),
            ProtocolField("file", .string, "The file it is about."),
            ProtocolField("path", .string, "Where in the JSON (a JSON pointer)."),
            ProtocolField("line", .integer, "The line."), ProtocolField("column", .integer, "The column."),
        ])),
        ProtocolComponent("LogLine", "A line an extension logged.", .object([
            ProtocolField("extension", .string, required: true, "The extension's bundle identifier."),
            ProtocolField("level", .choice("debug", "info", "warning", "error"), required: true, "Its level."),
            ProtocolField("message", .string, required: true, "What it said."),
        ])),
        ProtocolComponent("AuthorizationStatus", "An app's authorization (UNAuthorizationStatus).",
                          .choice(names(AppAuthorization.Status.self))),
        ProtocolComponent("NotificationSettings", "An app's notification settings (UNNotificationSettings).", .object(
            [ProtocolField("authorizationStatus", .named("AuthorizationStatus"), required: true, "Its authorization.")]
            + ["alert", "sound", "badge", "lockScreen", "notificationCenter", "criticalAlert", "announcement", "timeSensitive",
               "scheduledDelivery", "directMessages"].map { name in
                ProtocolField("\(name)Setting", .choice("notSupported", "disabled", "enabled"), required: true, "Whether \(name) is enabled.")
            } + [
                ProtocolField("alertStyle", .choice("none", "banner"), required: true, "How alerts show."),
                ProtocolField("showPreviewsSetting", .choice(names(ShowPreviews.self)), required: true, "When previews show, as `apps.register` set it."),
                ProtocolField("providesAppNotificationSettings", .boolean, required: true, "Whether the app has its own settings screen."),
            ])),
        ProtocolComponent("Outcome", "What an interface call did: the presentation after, what the app received meanwhile, what the extension logged, and why the view may be missing.", .object(outcomeFields)),
        ProtocolComponent("Delivery", "The answer to `notifications.deliver`: how the notification was displayed and what came of it.", .object([
            ProtocolField("display", .choice("presented", "background", "badge", "denied", "foreground"), required: true,
                          "What was done with it: shown, handed to the app in the background, its badge set, nothing (denied), or not presented as its app is in the foreground."),
            ProtocolField("app", .string, required: true, "Its app."),
            ProtocolField("badge", .integer, "The badge it set."),
            ProtocolField("presentationOptions", .named("PresentationOptions"), "Not presented in the foreground: the options its delegate answered."),
            ProtocolField("notification", .named("Notification"), "The notification (not with `answer: \"presentation\"`)."),
            ProtocolField("attachments", .array(.named("AdmittedAttachment")), "Presented: the attachments the store took in."),
            ProtocolField("service", .object([
                ProtocolField("ran", .boolean, required: true, "Whether a service extension ran."),
                ProtocolField("extension", .string, "Which."),
                ProtocolField("result", .choice("failed", "original", "rewritten"), "What it did."),
                ProtocolField("changes", .strings, "What it rewrote."),
                ProtocolField("afterTimeWillExpire", .boolean, "Whether it answered only when its time was running out."),
                ProtocolField("milliseconds", .number(atLeast: 0), "How long it took."),
                ProtocolField("explanation", .string, required: true, "What happened, in a sentence."),
                ProtocolField("createdAttachments", .array(.named("AdmittedAttachment")), required: true, "The attachments it made."),
            ]), "Presented: the service stage."),
            ProtocolField("inbox", .named("InboxEntry"), "Waking the app (`content-available` 1): its inbox entry."),
        ] + outcomeFields.map { field in
            ProtocolField(field.name, field.schema, required: field.name == "diagnostics", field.meaning)
        })),
    ]

    /// The members of a presentation.
    static let presentationFields = [
        ProtocolField("notification", .string, required: true, "The notification's identifier."),
        ProtocolField("app", .string, required: true, "Its app."),
        ProtocolField("extension", .nullable(.string), required: true, "The content extension serving it, or `null`."),
        ProtocolField("header", .string, required: true, "The header: the app's name, else its identifier."),
        ProtocolField("icon", .nullable(.string), required: true, "The app's icon's path, or `null`."),
        ProtocolField("defaultContentHidden", .boolean, required: true, "Whether the default content is hidden for the extension's view."),
        ProtocolField("previewsHidden", .boolean, required: true, "Whether previews are hidden (the category's placeholder shows)."),
        ProtocolField("quiet", .boolean, "Present and `true` only when delivered quietly (provisional authorization): listed, no banner, no sound."),
        ProtocolField("defaultContent", .object([
            ProtocolField("title", .string, required: true, "The title."), ProtocolField("subtitle", .string, required: true, "The subtitle."),
            ProtocolField("body", .string, required: true, "The body."),
        ]), "The default content, unless hidden."),
        ProtocolField("contentSize", .object([
            ProtocolField("width", .number, required: true, "The width, in points."),
            ProtocolField("initialHeight", .number, "The height the manifest's ratio gives."),
            ProtocolField("height", .number, "The height the extension asked for."),
        ]), required: true, "The extension's view's size."),
        ProtocolField("view", .nullable(.named("ViewNode")), required: true, "The extension's view, or `null` (none, or previews hidden)."),
        ProtocolField("actions", .array(.named("Action")), required: true, "The actions offered, in order."),
        ProtocolField("mediaButton", .object([
            ProtocolField("type", .choice("default", "overlay"), required: true, "The button's kind."),
            ProtocolField("frame", .array(.number), "Its frame: x, y, width, height."),
            ProtocolField("tintColor", .string, "Its tint."),
            ProtocolField("playing", .boolean, required: true, "Whether the media plays."),
        ]), "The media play/pause button, when the extension shows one."),
        ProtocolField("userInteractionEnabled", .boolean, required: true, "Whether the extension's view takes taps and text."),
        ProtocolField("textInput", .nullable(.named("TextInput")), required: true, "The text input the extension asks for, or `null`."),
        ProtocolField("attributes", .object([
            ProtocolField("sound", .nullable(.object([
                ProtocolField("name", .string, required: true, "The sound's name."),
                ProtocolField("critical", .boolean, required: true, "Whether it is a critical alert."),
                ProtocolField("volume", .nullable(.number(0...1)), required: true, "A critical alert's volume."),
            ])), required: true, "The sound, or `null`."),
            ProtocolField("badge", .nullable(.integer), required: true, "The badge it sets, or `null`."),
            ProtocolField("interruptionLevel", .choice(InterruptionLevel.allCases.map(\.payloadName)), required: true, "How urgently it asks for attention."),
            ProtocolField("relevanceScore", .number(0...1), required: true, "Its relevance."),
            ProtocolField("launchImageName", .string, required: true, "The launch image's name."),
            ProtocolField("filterCriteria", .nullable(.string), required: true, "The Focus filter it matches, or `null`."),
            ProtocolField("summaryArgument", .string, required: true, "The summary argument."),
            ProtocolField("summaryArgumentCount", .integer(atLeast: 0), required: true, "How many items it stands for."),
            ProtocolField("contentAvailable", .boolean, required: true, "Whether it wakes the app."),
        ]), required: true, "How it asks to be presented besides its text."),
        ProtocolField("category", .nullable(.named("Category")), required: true, "Its category, as registered, or `null`."),
        ProtocolField("group", .object([
            ProtocolField("thread", .string, required: true, "The thread."),
            ProtocolField("count", .integer(atLeast: 0), required: true, "How many notifications it holds."),
            ProtocolField("arguments", .strings, required: true, "Their summary arguments."),
            ProtocolField("summary", .string, required: true, "The group's summary."),
        ]), required: true, "The group it is in."),
        ProtocolField("presentationOptions", .named("PresentationOptions"), required: true, "How it is presented."),
        ProtocolField("expanded", .boolean, required: true, "Whether its expanded interface is open."),
        ProtocolField("dismissed", .boolean, required: true, "Whether it left the screen."),
    ]

    /// The members of an attachment in the store.
    private static let attachmentFields = [
        ProtocolField("identifier", .string, required: true, "Its identifier."),
        ProtocolField("type", .string, required: true, "Its type, a UTI (`public.png`)."),
        ProtocolField("url", .string, required: true, "Its file's URL, in the store."),
        ProtocolField("size", .integer(atLeast: 0), required: true, "Its size, in bytes."),
        ProtocolField("thumbnailHidden", .boolean, required: true, "Whether its thumbnail is hidden."),
        ProtocolField("thumbnailClippingRect", .named("Rectangle"), "The part of the image the thumbnail shows."),
        ProtocolField("thumbnailTime", .number(atLeast: 0), "The time in a movie its thumbnail shows, in seconds."),
    ]

    /// The members of what an interface call answers.
    static let outcomeFields = [
        ProtocolField("presentation", .named("Presentation"), required: true, "The presentation after."),
        ProtocolField("forwarded", .array(.named("ForwardedResponse")), required: true, "What the app received meanwhile."),
        ProtocolField("log", .array(.named("LogLine")), required: true, "What the extension logged."),
        ProtocolField("diagnostics", .array(.named("Diagnostic")), required: true, "What went wrong, or was noted."),
    ]
}
