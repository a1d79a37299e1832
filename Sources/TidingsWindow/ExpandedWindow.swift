import Glibc
import TidingsBase
import TidingsDesktop
import TidingsManifest
import TidingsProtocol
import TidingsWindowShims

/// How `tidings show` draws a notification's expanded interface.
package struct WindowOptions: Sendable {
    /// Light or dark, when forced (else GTK's own setting).
    package enum Appearance: String, Sendable, CaseIterable {
        case light, dark
    }

    /// The notification's identifier.
    package var identifier: String
    /// The notification's app; nil: the one app that has a notification of
    /// that identifier delivered (the server refuses the window when several do).
    package var app: String?
    /// The server's socket.
    package var socketPath: String
    /// The window's width, in logical pixels.
    package var width: Int = 360
    /// Light or dark, when forced.
    package var appearance: Appearance?
    /// The text-input action whose field shows (and has the focus) from the
    /// start: what a desktop without inline replies opens the window for.
    package var reply: String?

    /// Options for `identifier` on the server at `socketPath`.
    package init(identifier: String, socketPath: String) {
        self.identifier = identifier
        self.socketPath = socketPath
    }
}

/// Why the window stopped other than by being closed.
package struct WindowFailure: Error {
    /// What went wrong.
    package var diagnostic: Diagnostic
    /// Whether no window could be shown at all (no GTK, no display): the caller falls back to text.
    package var noWindow: Bool
}

/// A notification's expanded interface in a GTK window of its own: a front
/// end over the public protocol. It opens the interface, draws its
/// presentation natively (header, default content unless hidden, the
/// extension's view at width × ratio while it loads and its preferred
/// height after, the media button, the category's actions), sends what the
/// person does with its controls, redraws on `presentation.changed`, and
/// closes the interface when the window closes. One thread: GLib's main loop's.
package final class ExpandedWindow {
    private let options: WindowOptions
    /// The notification's app: the options', else the server's first answer's.
    private var app: String?
    private let toolkit: Toolkit
    private let log: FrontEndLog
    private let connection: PolledRPCConnection
    private var loop: OpaquePointer?
    private var window: Widget?
    private var style: ObjectReference?
    /// The sections of the window, each a box whose one child is rebuilt when its part of the presentation changes.
    private var sections: [Section: (box: Widget, child: Widget?, drawn: JSON?)] = [:]
    /// The controls drawn, for the log: name, kind, widget.
    private var controls: [(name: String, kind: String, widget: Widget)] = []
    private var status: Widget?
    /// Frames drawn since the log line was due whose size was not the window's new one yet.
    private var framesWaited = 0
    /// The window's one child, the column of its sections.
    private var root: Widget?
    /// The view's clip: its controls are logged only where they show through it.
    private var viewport: Widget?
    private var presentation: JSON = .null
    /// The extension's initial content size ratio, for its view's height while it loads.
    private var loadingRatio: Double?
    /// Whether the extension hides the default content (known before its presentation says so).
    private var hidesDefaultContent = false
    /// Whether the default content is drawn (for the log).
    private var defaultContentDrawn = false
    /// Whether the open was answered (the extension's `didReceive` has run).
    private var opened = false
    /// The status line's text; nil when there is nothing to say.
    private var statusText: String? = "Loading…"
    /// The log line due after the next frame: `shown` (the first), `redrawn` after.
    private var reportDue: String?
    private var outputWatched = false
    private var finished = false
    private var failure: WindowFailure?
    /// Calls of the controls not answered yet: a dismissal heard meanwhile waits for their answer (which may say why).
    private var sending = 0
    /// A dismissal heard while a control's call was unanswered: its reason.
    private var dismissalHeard: String?
    /// Whether the window said that the extension did not complete: it then stays open after a dismissal, to be read.
    private var saidIncomplete = false

    private enum Section: CaseIterable {
        case top, view, actions, input
    }

    /// A window for `options` on `toolkit`, logging to `log`.
    /// - Throws: the connection's diagnostic when no server answers at the socket.
    package init(options: WindowOptions, toolkit: Toolkit, log: FrontEndLog) throws(Diagnostic) {
        self.options = options
        app = options.app
        self.toolkit = toolkit
        self.log = log
        connection = try PolledRPCConnection(path: options.socketPath)
    }

    /// Opens the interface, shows the window and runs until it closes (by the
    /// person, Esc, or the notification's dismissal).
    /// - Throws: why it could not show or went on: the notification unknown, the server gone.
    package func run() throws(WindowFailure) {
        if let appearance = options.appearance { toolkit.preferDark(appearance == .dark) }
        guard let loop = toolkit.mainLoop() else {
            throw WindowFailure(diagnostic: .error(.noDisplay, "GLib made no main loop"), noWindow: true)
        }
        self.loop = loop
        let me = Unmanaged.passUnretained(self).toOpaque()
        toolkit.watch(connection.descriptor, for: Int32(TIDINGS_G_IO_IN | TIDINGS_G_IO_HUP | TIDINGS_G_IO_ERR),
                      onSocketReadable, data: me)
        let subscription = EventSubscription(apps: .string("all"), events: [.presentationChanged, .notificationDismissed,
                                                                   .extensionFailed, .extensionLateCompletion])
        // A front end: the window works the expanded interface for the person (an older server answers -32601).
        call(.serverHello, ClientHello.frontEnd(client: "tidings show")) { _ in }
        call(.eventsSubscribe, subscription.params) { _ in }
        call(.notificationsPresentation, identifierParams) { [unowned self] answer in
            switch answer {
            case .success(let presentation):
                // From now on every call names the app the notification is of.
                app = app ?? presentation["app"]?.stringValue
                // The window first, saying "Loading…" at width × ratio (the extension's, as extensions.list
                // gives it); the interface is opened after its first frame.
                guard let served = presentation["extension"]?.stringValue else { return show(presentation) }
                call(.extensionsList, .object([])) { [unowned self] answer in
                    let bundles = (try? answer.get())?["bundles"]?.arrayValue ?? []
                    let bundle = bundles.first { $0["identifier"]?.stringValue == served }
                    loadingRatio = bundle?["initialContentSizeRatio"]?.doubleValue
                    hidesDefaultContent = bundle?["defaultContentHidden"]?.boolValue == true
                    show(presentation)
                }
            case .failure(let error):
                fail(.error(.windowRefused, "The server has no notification \(options.identifier) to show: \(error.message)"))
            }
        }
        toolkit.run(loop)
        if let failure { throw failure }
    }

    private var identifierParams: JSON { .object(naming) }

    /// The parameters naming the notification: its identifier, and its app once known.
    private var naming: [(String, JSON)] {
        [("identifier", .string(options.identifier))] + (app.map { [("app", JSON.string($0))] } ?? [])
    }

    /// True when an event's `app` is not another app than the notification's.
    private func isOwnApp(_ params: JSON) -> Bool {
        guard let app, let other = params["app"]?.stringValue else { return true }
        return other == app
    }

    // MARK: The server

    /// Sends `method`, then flushes (watching for room to write when the socket is full).
    private func call(_ method: MethodName, _ params: JSON, then: @escaping (Result<JSON, RPCErrorReply>) -> Void) {
        connection.call(method, params, then: then)
        flush()
    }

    private func flush() {
        do throws(SystemError) {
            try connection.flush()
        } catch {
            return fail(.error(.windowServerGone, "The server's connection broke: \(error)."))
        }
        if connection.wantsToWrite && !outputWatched {
            outputWatched = true
            toolkit.watch(connection.descriptor, for: Int32(TIDINGS_G_IO_OUT), onSocketWritable,
                          data: Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// Room to write: the rest of the requests; whether to keep watching.
    fileprivate func writable() -> Bool {
        guard !finished else { return false }
        do throws(SystemError) { try connection.flush() } catch { return false }
        outputWatched = connection.wantsToWrite
        return outputWatched
    }

    /// Something to read: answers and events; whether to keep watching.
    fileprivate func readable() -> Bool {
        guard !finished else { return false }
        let closed: Bool
        do throws(Diagnostic) {
            closed = try connection.receive { [unowned self] message in
                if case .event(let method, let event) = message { heard(EventName(method), event["params"] ?? .null) }
            }
        } catch {
            fail(error)
            return false
        }
        if closed {
            fail(.error(.windowServerGone, "The server closed the connection."))
            return false
        }
        return true
    }

    private func heard(_ event: EventName, _ params: JSON) {
        switch event {
        case .presentationChanged:
            guard let changed = params["presentation"], changed["notification"]?.stringValue == options.identifier,
                  isOwnApp(changed) else { return }
            update(changed, live: true)
        case .notificationDismissed:
            guard params["identifier"]?.stringValue == options.identifier, isOwnApp(params) else { return }
            dismissed(reason: params["reason"]?.stringValue ?? "dismissed")
        case .extensionLateCompletion:
            guard params["notification"]?.stringValue == options.identifier, isOwnApp(params) else { return }
            incomplete(params["diagnostic"] ?? .null, response: "the host had already applied dismissAndForwardAction: the response went to the app")
        case .extensionFailed:
            guard !opened || statusText != nil, let app = presentation["app"]?.stringValue,
                  params["app"]?.stringValue == app else { return }
            incomplete(params["diagnostic"] ?? .null, response: opened ? "the response went to the app" : "the default content shows")
        default:
            break
        }
    }

    private func opened(_ answer: Result<JSON, RPCErrorReply>) {
        opened = true
        switch answer {
        case .success(let result):
            statusText = nil
            reportProblems(in: result, response: "the default content shows")
            if let presentation = result["presentation"] { update(presentation, live: true) }
        case .failure(let error):
            incomplete(.object([("code", .string("window.open-refused")), ("message", .string(error.message))]),
                       response: "the window shows the notification as it was")
        }
    }

    /// Says what an answer's diagnostics tell of an extension that did not complete or failed.
    private func reportProblems(in result: JSON, response: String) {
        // Errors (an extension that failed to load, crashed, …) and a completion missed; not the warnings
        // of what the host left out (a title without permission).
        for diagnostic in result["diagnostics"]?.arrayValue ?? []
        where diagnostic["severity"]?.stringValue == "error"
            || diagnostic["code"]?.stringValue?.hasPrefix("response.completion") == true {
            incomplete(diagnostic, response: response)
        }
    }

    /// The window and the log say that the extension did not complete, and what became of the response.
    private func incomplete(_ diagnostic: JSON, response: String) {
        let message = diagnostic["message"]?.stringValue ?? "the extension failed"
        log.record("incomplete", [("identifier", .string(options.identifier)), ("code", diagnostic["code"] ?? .null),
                                  ("message", .string(message)), ("response", .string(response))],
                   "the extension of \(options.identifier) did not complete: \(message); \(response)")
        statusText = "The extension did not complete: \(message). \(response.prefix(1).uppercased() + response.dropFirst())."
        saidIncomplete = true
        redraw(live: true)
    }

    /// The notification left the screen: the window closes, unless a control's call is still unanswered
    /// (its answer decides) or the window says that the extension did not complete (it stays to be read).
    private func dismissed(reason: String) {
        if sending > 0 {
            dismissalHeard = dismissalHeard ?? reason
            return
        }
        guard saidIncomplete else { return finish(by: "server", reason: reason) }
        guard let status = statusText, !status.hasSuffix("The notification was dismissed.") else { return }
        statusText = status + " The notification was dismissed."
        redraw(live: true)
    }

    /// Sends what a control asked for and logs it; the answer's presentation is drawn.
    private func send(_ method: MethodName, _ params: [(String, JSON)], response: String) {
        let all = naming + params
        log.record("sent", [("method", .string(method.rawValue)), ("identifier", .string(options.identifier)),
                            ("params", .object(params))], "sent \(method.rawValue) for \(options.identifier)")
        statusText = "Waiting for the extension…"
        redraw(live: true)
        sending += 1
        call(method, .object(all)) { [unowned self] answer in
            sending -= 1
            statusText = nil
            defer {
                if sending == 0, let reason = dismissalHeard {
                    dismissalHeard = nil
                    dismissed(reason: reason)
                }
            }
            switch answer {
            case .success(let result):
                log.record("answered", [("method", .string(method.rawValue)), ("identifier", .string(options.identifier)),
                                        ("receiver", result["receiver"] ?? .null), ("option", result["option"] ?? .null),
                                        ("userText", result["userText"] ?? result["text"] ?? .null),
                                        ("dismissed", result["dismissed"] ?? .null)],
                           "the server answered \(method.rawValue) for \(options.identifier)")
                reportProblems(in: result, response: response)
                if let presentation = result["presentation"] { update(presentation, live: true) }
                if result["dismissed"]?.boolValue == true { dismissed(reason: "response") }
            case .failure(let error):
                log.record("refused", [("method", .string(method.rawValue)), ("identifier", .string(options.identifier)),
                                       ("code", .integer(error.code)), ("message", .string(error.message))],
                           "the server refused \(method.rawValue) for \(options.identifier): \(error.message)")
                statusText = "Not sent: \(error.message)"
                redraw(live: true)
            }
        }
    }

    // MARK: The window

    /// The first presentation: the window, with "Loading…" until the open is answered.
    private func show(_ first: JSON) {
        presentation = first
        let title = "\(first["header"]?.stringValue ?? "Tidings") - \(options.identifier)"
        let window = toolkit.window(title: title)
        self.window = window
        style = toolkit.styleSheet()
        toolkit.setResizable(false, window)
        let root = toolkit.box(vertical: true, spacing: 0)
        self.root = root
        toolkit.setSize(root, width: options.width, height: -1)
        let statusLabel = toolkit.label("")
        toolkit.setMargins(statusLabel, 12)
        toolkit.addClass("dim-label", to: statusLabel)
        status = statusLabel
        for section in Section.allCases {
            let box = toolkit.box(vertical: true, spacing: 0)
            sections[section] = (box, nil, nil)
            toolkit.append(box, to: root)
            if section == .top { toolkit.append(statusLabel, to: root) }
        }
        toolkit.setChild(root, of: window)
        let me = Unmanaged.passUnretained(self).toOpaque()
        toolkit.connect(window.pointer, "close-request", onCloseRequest, data: me)
        toolkit.onKeyPressed(window, onKeyPressed, data: me)
        draw()
        toolkit.present(window)
        if let clock = toolkit.frameClock(of: window) { toolkit.connect(clock, "after-paint", onFramePainted, data: me) }
        reportDue = "shown"
    }

    /// A new presentation: what changed is drawn in the next frame; a dismissed one closes the window.
    private func update(_ new: JSON, live: Bool) {
        presentation = new
        if new["dismissed"]?.boolValue == true { return dismissed(reason: "dismissed") }
        if opened && new["expanded"]?.boolValue == false { return finish(by: "server", reason: "interface closed") }
        redraw(live: live)
    }

    private func redraw(live: Bool) {
        guard let window, !finished else { return }
        draw()
        toolkit.queueDraw(window)
        if live && reportDue == nil { reportDue = "redrawn" }
    }

    /// Rebuilds each section whose part of the presentation changed, and the status line.
    private func draw() {
        if let status {
            toolkit.setVisible(statusText != nil, status)
            toolkit.setText(statusText ?? "", ofLabel: status)
        }
        let parts: [Section: JSON] = [
            .top: .object([("header", presentation["header"] ?? .null), ("opened", .bool(opened)),
                           ("hidden", presentation["defaultContentHidden"] ?? .null),
                           ("content", presentation["defaultContent"] ?? .null)]),
            .view: .object([("view", presentation["view"] ?? .null), ("media", presentation["mediaButton"] ?? .null),
                            ("size", presentation["contentSize"] ?? .null), ("opened", .bool(opened)),
                            ("interaction", presentation["userInteractionEnabled"] ?? .null)]),
            .actions: presentation["actions"] ?? .null,
            .input: presentation["textInput"] ?? .null,
        ]
        for section in Section.allCases {
            guard let (box, child, drawn) = sections[section], let part = parts[section], part != drawn else {
                continue
            }
            if let child {
                controls.removeAll { control in isInside(control.widget, child) }
                owners = owners.filter { $0.value != child }
                toolkit.remove(child, from: box)
            }
            let made = build(section)
            if let made { toolkit.append(made, to: box) }
            sections[section] = (box, made, part)
        }
        let sheet = styleSheet()
        if sheet != loadedSheet, let style {
            toolkit.load(sheet, into: style)
            loadedSheet = sheet
        }
    }

    /// The controls belong to the section they were built in: kept with it, by its child widget.
    private var owners: [Widget: Widget] = [:]
    private var building: Widget?

    private func isInside(_ control: Widget, _ section: Widget) -> Bool { owners[control] == section }

    private func register(_ name: String, _ kind: String, _ widget: Widget) {
        controls.append((name, kind, widget))
        if let building { owners[widget] = building }
    }

    private func build(_ section: Section) -> Widget? {
        let container = toolkit.box(vertical: true, spacing: 6)
        building = container
        defer { building = nil }
        switch section {
        case .top:
            buildTop(in: container)
        case .view:
            buildView(in: container)
        case .actions:
            buildActions(in: container)
        case .input:
            guard let input = presentation["textInput"], input != .null else { return nil }
            toolkit.setMargins(container, 12)
            buildTextEntry(in: container, button: input["buttonTitle"]?.stringValue ?? "Send",
                           placeholder: input["placeholder"]?.stringValue ?? "", visible: true) { [unowned self] text in
                send(.notificationsInput, [("text", .string(text))], response: "the extension received the text")
            }
        }
        return container
    }

    private func buildTop(in container: Widget) {
        defaultContentDrawn = false
        toolkit.setMargins(container, 12)
        let header = toolkit.label(presentation["header"]?.stringValue ?? "")
        toolkit.addClass("caption-heading", to: header)
        toolkit.addClass("dim-label", to: header)
        toolkit.append(header, to: container)
        guard presentation["defaultContentHidden"]?.boolValue != true, opened || !hidesDefaultContent, let content = presentation["defaultContent"] else { return }
        for (key, style) in [("title", "heading"), ("subtitle", "heading"), ("body", "body")] {
            guard let text = content[key]?.stringValue, !text.isEmpty else { continue }
            defaultContentDrawn = true
            let label = toolkit.label(text)
            toolkit.addClass(style, to: label)
            toolkit.addClass("tidings-default-\(key)", to: label)
            toolkit.append(label, to: container)
        }
    }

    /// The view's height: width × ratio while the extension loads, then the height it prefers.
    package var viewHeight: Int {
        let size = presentation["contentSize"]
        let serverWidth = size?["width"]?.doubleValue ?? Double(options.width)
        let initial = size?["initialHeight"]?.doubleValue
        let ratio = loadingRatio ?? initial.map { serverWidth > 0 ? $0 / serverWidth : 0 } ?? 0
        let ratioHeight = ratio * Double(options.width)
        let height = opened ? size?["height"]?.doubleValue ?? ratioHeight : ratioHeight
        return height.isFinite ? Int(max(0, min(height, 10_000)).rounded()) : 0
    }

    private func buildView(in container: Widget) {
        viewport = nil
        // While the extension loads, its view's place is kept at width × ratio (the status line says "Loading…").
        let view = presentation["view"].flatMap { $0 == .null ? nil : $0 }
        guard view != nil || !opened else { return }
        let interactive = presentation["userInteractionEnabled"]?.boolValue == true
        let content = toolkit.box(vertical: true, spacing: 0)
        toolkit.setMargins(content, 12)
        if let view, let element = element(view, interactive: interactive, depth: 0) { toolkit.append(element, to: content) }
        let overlay = toolkit.overlay(child: content)
        if let media = presentation["mediaButton"], media != .null {
            let playing = media["playing"]?.boolValue == true
            let title = playing ? "Pause" : "Play"
            let button = toolkit.button(title) { [unowned self] in
                send(.notificationsTapMediaButton, [], response: "the extension received the tap")
            }
            toolkit.setAccessibleName(title, of: button)
            let frame = (media["frame"]?.arrayValue ?? []).compactMap(\.doubleValue).map { $0.isFinite ? Int(max(0, min($0, 10_000))) : 0 }
            if frame.count == 4 {
                toolkit.place(button, x: frame[0], y: frame[1])
                toolkit.setSize(button, width: frame[2], height: frame[3])
            }
            toolkit.addOverlay(button, to: overlay)
            register(title, "mediaButton", button)
        }
        let viewport = toolkit.clip(overlay)
        self.viewport = viewport
        toolkit.setSize(viewport, width: options.width, height: viewHeight)
        toolkit.append(viewport, to: container)
    }

    /// One element of the view and its children; nil for a hidden one (or one nested too deep).
    private func element(_ node: JSON, interactive: Bool, depth: Int) -> Widget? {
        guard node["hidden"]?.boolValue != true, depth < 64 else { return nil }
        let enabled = interactive && node["enabled"]?.boolValue != false
        let id = node["id"]?.stringValue ?? ""
        switch node["type"]?.stringValue {
        case "stack":
            let vertical = node["axis"]?.stringValue != "horizontal"
            let spacing = node["spacing"]?.doubleValue.map { $0.isFinite ? Int(max(0, min($0, 1_000))) : 0 } ?? 0
            let box = toolkit.box(vertical: vertical, spacing: spacing)
            for child in node["children"]?.arrayValue ?? [] {
                if let made = element(child, interactive: interactive, depth: depth + 1) { toolkit.append(made, to: box) }
            }
            return box
        case "label":
            let label = toolkit.label(node["text"]?.stringValue ?? "")
            let style = node["style"]?.stringValue ?? "body"
            toolkit.addClass(Self.labelClasses[style] ?? "body", to: label)
            if let color = node["textColor"]?.stringValue, let css = Self.cssColor(color) {
                toolkit.addClass("tidings-color-\(css.name)", to: label)
                colors[css.name] = css.value
            }
            return label
        case "image":
            guard let attachment = node["attachment"], let path = ImageFile.path(ofAttachment: attachment) else { return nil }
            return toolkit.picture(file: path)
        case "button":
            let title = node["title"]?.stringValue ?? id
            let button = toolkit.button(title) { [unowned self] in
                send(.notificationsInteract, [("element", .string(id)), ("event", .string("tap"))],
                     response: "the extension received the tap")
            }
            toolkit.setSensitive(enabled, button)
            register(title, "button", button)
            return button
        case "textField":
            let placeholder = node["placeholder"]?.stringValue ?? ""
            let name = placeholder.isEmpty ? id : placeholder
            var entry: Widget?
            let made = toolkit.entry(placeholder: placeholder, accessibleName: name) { [unowned self] in
                guard let entry else { return }
                send(.notificationsInteract, [("element", .string(id)), ("event", .string("submit")),
                                              ("text", .string(toolkit.text(of: entry)))],
                     response: "the extension received the text")
            }
            entry = made
            if let text = node["text"]?.stringValue { toolkit.setText(text, of: made) }
            toolkit.setSensitive(enabled, made)
            register(name, "textField", made)
            return made
        default:
            return nil
        }
    }

    private func buildActions(in container: Widget) {
        toolkit.setMargins(container, 12)
        for action in presentation["actions"]?.arrayValue ?? [] {
            guard let identifier = action["identifier"]?.stringValue else { continue }
            let title = action["title"]?.stringValue ?? identifier
            let destructive = action["options"]?.arrayValue?.contains(.string("destructive")) == true
            if let input = action["textInput"], input != .null {
                var row: Widget?
                let button = toolkit.button(title) { [unowned self] in
                    guard let row, let window else { return }
                    toolkit.setVisible(true, row)
                    if let field = fields[row] { toolkit.focus(field) }
                    toolkit.queueDraw(window)
                    if reportDue == nil { reportDue = "redrawn" }
                }
                register(title, "action", button)
                toolkit.append(button, to: container)
                row = buildTextEntry(in: container, button: input["buttonTitle"]?.stringValue ?? "Send",
                                     placeholder: input["placeholder"]?.stringValue ?? "", visible: options.reply == identifier) {
                    [unowned self] text in
                    send(.notificationsRespond, [("action", .string(identifier)), ("text", .string(text))],
                         response: "the response went to its receiver")
                }
                if options.reply == identifier, let row, let field = fields[row] { toolkit.focus(field) }
            } else {
                let button = toolkit.button(title) { [unowned self] in
                    send(.notificationsRespond, [("action", .string(identifier))], response: "the response went to its receiver")
                }
                if destructive { toolkit.addClass("destructive-action", to: button) }
                register(title, "action", button)
                toolkit.append(button, to: container)
            }
        }
    }

    /// The entry of each text row, to focus when the row opens.
    private var fields: [Widget: Widget] = [:]

    /// A row of an entry and its send button; Enter in the entry sends too.
    @discardableResult
    private func buildTextEntry(in container: Widget, button title: String, placeholder: String, visible: Bool,
                                send: @escaping (String) -> Void) -> Widget {
        let row = toolkit.box(vertical: false, spacing: 6)
        var field: Widget?
        let sendText = { [unowned self] in
            guard let field else { return }
            send(toolkit.text(of: field))
        }
        let entry = toolkit.entry(placeholder: placeholder, accessibleName: placeholder.isEmpty ? title : placeholder,
                                  activate: sendText)
        field = entry
        toolkit.setExpandsHorizontally(entry)
        let button = toolkit.button(title, action: sendText)
        toolkit.append(entry, to: row)
        toolkit.append(button, to: row)
        toolkit.setVisible(visible, row)
        toolkit.append(row, to: container)
        fields[row] = entry
        register(placeholder.isEmpty ? title : placeholder, "textInput", entry)
        register(title, "send", button)
        return row
    }

    // MARK: Style

    /// The colours of the labels drawn, by class name.
    private var colors: [String: String] = [:]
    private var loadedSheet = ""

    private func styleSheet() -> String {
        colors.sorted { $0.key < $1.key }.map { "label.tidings-color-\($0.key) { color: \($0.value); }" }.joined(separator: "\n")
    }

    /// GTK's type classes for the interface file's text styles.
    static let labelClasses = ["title": "title-2", "headline": "heading", "subheadline": "body", "body": "body",
                               "footnote": "caption", "caption": "caption"]

    /// A colour `#RRGGBB` or `#RRGGBBAA` as a class name and a CSS value; nil for anything else.
    static func cssColor(_ text: String) -> (name: String, value: String)? {
        guard let color = Color(hex: text) else { return nil }
        let rgba = color.rgba
        let channels = [rgba >> 24, rgba >> 16 & 0xFF, rgba >> 8 & 0xFF]
        return (String(rgba, radix: 16), "rgba(\(channels.map(String.init).joined(separator: ",")),\(Double(rgba & 0xFF) / 255))")
    }

    /// The part of rectangle `a` ([x, y, width, height]) inside `b`; empty (zero width or height) when none is.
    static func intersection(_ a: [Int], _ b: [Int]) -> [Int] {
        let x = max(a[0], b[0]), y = max(a[1], b[1])
        let right = min(a[0] + a[2], b[0] + b[2]), bottom = min(a[1] + a[3], b[1] + b[3])
        return [x, y, max(0, right - x), max(0, bottom - y)]
    }

    // MARK: Frames, keys, closing

    /// A frame was drawn: the log line due, with the window's size and each control's place.
    fileprivate func painted() {
        guard let event = reportDue, let window, !finished else { return }
        // A frame drawn before the window took its new size: the size is logged with a frame that follows it
        // (one more is asked for, a few times at most: a window the screen cannot grow is logged as it is).
        if let root, toolkit.naturalHeight(of: root) != toolkit.height(of: root), framesWaited < 8 {
            framesWaited += 1
            return toolkit.queueDraw(window)
        }
        framesWaited = 0
        reportDue = nil
        var placed: [JSON] = []
        let clip = viewport.flatMap { toolkit.bounds(of: $0, in: window) }
        for control in controls where toolkit.isMapped(control.widget) {
            guard var frame = toolkit.bounds(of: control.widget, in: window) else { continue }
            if ["button", "textField", "mediaButton"].contains(control.kind), let clip { frame = Self.intersection(frame, clip) }
            guard frame[2] > 0, frame[3] > 0 else { continue }
            placed.append(.object([("name", .string(control.name)), ("kind", .string(control.kind)),
                                   ("frame", .array(frame.map { .integer(Int64($0)) }))]))
        }
        let width = toolkit.width(of: window), height = toolkit.height(of: window)
        if event == "shown" {
            call(.notificationsOpen, identifierParams) { [unowned self] answer in opened(answer) }
        }
        log.record(event, [("identifier", .string(options.identifier)), ("width", .integer(Int64(width))),
                           ("height", .integer(Int64(height))), ("viewHeight", .integer(Int64(viewHeight))),
                           ("loading", .bool(!opened)), ("defaultContent", .bool(defaultContentDrawn)), ("status", statusText.map(JSON.string) ?? .null),
                           ("controls", .array(placed))],
                   "\(event) the interface of \(options.identifier) at \(width)×\(height)")
    }

    fileprivate func closeRequested() {
        finish(by: "person", reason: "closed")
    }

    fileprivate func keyPressed(_ key: UInt32) -> Bool {
        guard key == UInt32(TIDINGS_GDK_KEY_ESCAPE), let window else { return false }
        toolkit.close(window)
        return true
    }

    /// The window is closing: the interface is closed on the server unless the server dismissed it, then the loop ends.
    private func finish(by: String, reason: String) {
        guard !finished else { return }
        finished = true
        log.record("closed", [("identifier", .string(options.identifier)), ("by", .string(by)), ("reason", .string(reason))],
                   "closed the interface of \(options.identifier) (\(reason))")
        if let window, by == "server" { toolkit.destroy(window) }
        window = nil
        guard by == "person" else { return stop() }
        // The close is sent and flushed now; the loop ends when it is answered (or the connection ends).
        connection.call(.notificationsClose, identifierParams) { [unowned self] _ in stop() }
        do throws(SystemError) { try connection.flush() } catch { return stop() }
        toolkit.watch(connection.descriptor, for: Int32(TIDINGS_G_IO_IN | TIDINGS_G_IO_HUP | TIDINGS_G_IO_ERR),
                      onClosingReadable, data: Unmanaged.passUnretained(self).toOpaque())
    }

    /// After closing: reads until the close is answered.
    fileprivate func closingRead() -> Bool {
        let closed = (try? connection.receive { _ in }) ?? true
        if closed { stop() }
        return !closed
    }

    private func stop() {
        if let loop { toolkit.quit(loop) }
    }

    private func fail(_ diagnostic: Diagnostic) {
        failure = WindowFailure(diagnostic: diagnostic, noWindow: false)
        if !finished {
            finished = true
            if let window { toolkit.destroy(window) }
            window = nil
        }
        stop()
    }
}

private func window(_ data: UnsafeMutableRawPointer?) -> ExpandedWindow? {
    data.map { Unmanaged<ExpandedWindow>.fromOpaque($0).takeUnretainedValue() }
}

private let onSocketReadable: tidings_g_unix_fd_source_func = { _, _, data in
    (window(data)?.readable() ?? false) ? 1 : 0
}

private let onSocketWritable: tidings_g_unix_fd_source_func = { _, _, data in
    (window(data)?.writable() ?? false) ? 1 : 0
}

private let onClosingReadable: tidings_g_unix_fd_source_func = { _, _, data in
    (window(data)?.closingRead() ?? false) ? 1 : 0
}

private let onFramePainted: tidings_gdk_frame_handler = { _, data in
    window(data)?.painted()
}

private let onCloseRequest: tidings_gtk_close_request_handler = { _, data in
    window(data)?.closeRequested()
    return 0
}

private let onKeyPressed: tidings_gtk_key_pressed_handler = { _, key, _, _, data in
    (window(data)?.keyPressed(key) ?? false) ? 1 : 0
}

extension Diagnostic.Code {
    /// The server refused to show the notification (unknown, or not presented).
    package static let windowRefused = Self("window.refused")
    /// The server's connection broke while the window was open.
    package static let windowServerGone = Self("window.server-gone")
}
