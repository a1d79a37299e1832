import Glibc
import TidingsBase
import TidingsWindowShims

/// A GTK widget, as the window's code holds it: a borrowed pointer. GTK's
/// containers own their children (a widget made is floating until added),
/// and the window is owned by GTK's list of toplevels until it is
/// destroyed; the Swift side never references or unreferences a widget, and
/// holds one only while it is in the window's tree. (GTK's constructors
/// never return NULL; were one to, GTK's own checks refuse the NULL widget
/// with a warning in each call, and nothing crashes.)
package struct Widget: Hashable {
    let pointer: OpaquePointer?
}

/// A GObject reference the Swift side owns (one a `…_new` of a non-widget
/// class returned): unreferenced when the last Swift reference goes away.
final class ObjectReference {
    let pointer: OpaquePointer
    private let unref: tidings_g_object_unref

    init(_ pointer: OpaquePointer, unref: tidings_g_object_unref) {
        self.pointer = pointer
        self.unref = unref
    }

    deinit { unref(UnsafeMutableRawPointer(pointer)) }
}

/// What a signal handler runs: a closure, owned by the signal's connection
/// (retained when connected, released by GObject's destroy notification
/// when the connection ends with its widget).
final class SignalTarget {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
}

/// The C side of every widget signal the window connects (`clicked`, `activate`).
private let widgetSignal: tidings_gtk_widget_handler = { _, data in
    guard let data else { return }
    Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue().action()
}

/// Releases a signal's target when its connection ends.
private let releaseTarget: tidings_g_closure_notify = { data, _ in
    guard let data else { return }
    Unmanaged<SignalTarget>.fromOpaque(data).release()
}

/// The typed face of `GTKLibrary`: widgets made, configured and connected,
/// with Swift strings and closures. One thread (GTK's).
package final class Toolkit {
    let gtk: GTKLibrary

    /// GTK started on the display `DISPLAY` (or `WAYLAND_DISPLAY`) names, with
    /// the cairo renderer unless `GSK_RENDERER` says otherwise (GTK 4.8's GL
    /// renderer draws an empty window on Xvfb).
    /// - Throws: `window.no-library` without GTK 4, `window.no-display` when
    ///   GTK cannot open a display.
    package init(library path: String = GTKLibrary.defaultPath) throws(Diagnostic) {
        setenv("GSK_RENDERER", "cairo", 0)
        gtk = try GTKLibrary(path: path)
        guard gtk.initCheck() != 0 else {
            throw .error(.noDisplay, "GTK cannot open a display (DISPLAY or WAYLAND_DISPLAY names none that answers)")
        }
    }

    // MARK: Widgets

    func window(title: String) -> Widget {
        let window = Widget(pointer: gtk.windowNew())
        gtk.windowSetTitle(window.pointer, title)
        return window
    }

    func box(vertical: Bool, spacing: Int) -> Widget {
        Widget(pointer: gtk.boxNew(Int32(vertical ? TIDINGS_GTK_ORIENTATION_VERTICAL : TIDINGS_GTK_ORIENTATION_HORIZONTAL),
                                   Int32(clamping: spacing)))
    }

    func append(_ child: Widget, to box: Widget) { gtk.boxAppend(box.pointer, child.pointer) }
    func remove(_ child: Widget, from box: Widget) { gtk.boxRemove(box.pointer, child.pointer) }

    /// A label that wraps at the width it is given (and asks for no more).
    func label(_ text: String) -> Widget {
        let label = Widget(pointer: gtk.labelNew(text))
        gtk.labelSetWrap(label.pointer, 1)
        gtk.labelSetMaxWidthChars(label.pointer, 1)
        gtk.labelSetXAlign(label.pointer, 0)
        return label
    }

    func setText(_ text: String, ofLabel label: Widget) { gtk.labelSetText(label.pointer, text) }

    func button(_ title: String, action: @escaping () -> Void) -> Widget {
        let button = Widget(pointer: gtk.buttonNewWithLabel(title))
        connect(button, "clicked", action)
        return button
    }

    /// A one-line entry; `activate` runs on Enter.
    func entry(placeholder: String, accessibleName: String, activate: @escaping () -> Void) -> Widget {
        let entry = Widget(pointer: gtk.entryNew())
        gtk.entrySetPlaceholderText(entry.pointer, placeholder)
        setAccessibleName(accessibleName, of: entry)
        connect(entry, "activate", activate)
        return entry
    }

    func text(of editable: Widget) -> String {
        gtk.editableGetText(editable.pointer).map { String(cString: $0) } ?? ""
    }

    func setText(_ text: String, of editable: Widget) { gtk.editableSetText(editable.pointer, text) }

    func picture(file path: String) -> Widget { Widget(pointer: gtk.pictureNewForFilename(path)) }

    func overlay(child: Widget) -> Widget {
        let overlay = Widget(pointer: gtk.overlayNew())
        gtk.overlaySetChild(overlay.pointer, child.pointer)
        return overlay
    }

    func addOverlay(_ child: Widget, to overlay: Widget) { gtk.overlayAddOverlay(overlay.pointer, child.pointer) }

    /// A viewport of exactly the size it is given: it clips its child and shows no scroll bars.
    func clip(_ child: Widget) -> Widget {
        let scrolled = Widget(pointer: gtk.scrolledWindowNew())
        gtk.scrolledWindowSetPolicy(scrolled.pointer, Int32(TIDINGS_GTK_POLICY_EXTERNAL), Int32(TIDINGS_GTK_POLICY_EXTERNAL))
        gtk.scrolledWindowSetChild(scrolled.pointer, child.pointer)
        return scrolled
    }

    // MARK: Properties

    func setSize(_ widget: Widget, width: Int, height: Int) {
        gtk.widgetSetSizeRequest(widget.pointer, Int32(clamping: width), Int32(clamping: height))
    }

    func addClass(_ name: String, to widget: Widget) { gtk.widgetAddCSSClass(widget.pointer, name) }
    func setVisible(_ visible: Bool, _ widget: Widget) { gtk.widgetSetVisible(widget.pointer, visible ? 1 : 0) }
    func setSensitive(_ sensitive: Bool, _ widget: Widget) { gtk.widgetSetSensitive(widget.pointer, sensitive ? 1 : 0) }
    func setExpandsHorizontally(_ widget: Widget) { gtk.widgetSetHExpand(widget.pointer, 1) }

    /// Puts `widget` at `x`, `y` of its parent (an overlay), at its own size.
    func place(_ widget: Widget, x: Int, y: Int) {
        gtk.widgetSetHAlign(widget.pointer, Int32(TIDINGS_GTK_ALIGN_START))
        gtk.widgetSetVAlign(widget.pointer, Int32(TIDINGS_GTK_ALIGN_START))
        gtk.widgetSetMarginStart(widget.pointer, Int32(clamping: x))
        gtk.widgetSetMarginTop(widget.pointer, Int32(clamping: y))
    }

    func setMargins(_ widget: Widget, _ margin: Int) {
        let value = Int32(clamping: margin)
        gtk.widgetSetMarginStart(widget.pointer, value)
        gtk.widgetSetMarginEnd(widget.pointer, value)
        gtk.widgetSetMarginTop(widget.pointer, value)
        gtk.widgetSetMarginBottom(widget.pointer, value)
    }

    /// The accessible name screen readers say (a button's label is its own; entries need one).
    func setAccessibleName(_ name: String, of widget: Widget) {
        var value = tidings_g_value()
        _ = gtk.valueInit(&value, Int(TIDINGS_G_TYPE_STRING))
        gtk.valueSetString(&value, name)
        var property = Int32(TIDINGS_GTK_ACCESSIBLE_PROPERTY_LABEL)
        gtk.accessibleUpdatePropertyValue(widget.pointer, 1, &property, &value)
        gtk.valueUnset(&value)
    }

    /// `widget`'s rectangle in `target`'s coordinates, rounded to pixels; nil when it is not laid out.
    func bounds(of widget: Widget, in target: Widget) -> [Int]? {
        var rect = tidings_graphene_rect()
        guard gtk.widgetComputeBounds(widget.pointer, target.pointer, &rect) != 0,
              rect.x.isFinite, rect.y.isFinite, rect.width.isFinite, rect.height.isFinite else { return nil }
        return [rect.x, rect.y, rect.width, rect.height].map { Int(clamping: Int64($0.rounded())) }
    }

    /// Whether `widget` is on screen: shown, and every container above it too.
    func isMapped(_ widget: Widget) -> Bool { gtk.widgetGetMapped(widget.pointer) != 0 }
    /// The height `widget` asks for at its present width: what its window grows or shrinks to.
    func naturalHeight(of widget: Widget) -> Int {
        var minimum: Int32 = 0, natural: Int32 = 0, minimumBaseline: Int32 = 0, naturalBaseline: Int32 = 0
        gtk.widgetMeasure(widget.pointer, Int32(TIDINGS_GTK_ORIENTATION_VERTICAL), gtk.widgetGetWidth(widget.pointer),
                          &minimum, &natural, &minimumBaseline, &naturalBaseline)
        return Int(natural)
    }

    func width(of widget: Widget) -> Int { Int(gtk.widgetGetWidth(widget.pointer)) }
    func height(of widget: Widget) -> Int { Int(gtk.widgetGetHeight(widget.pointer)) }
    func focus(_ widget: Widget) { _ = gtk.widgetGrabFocus(widget.pointer) }
    func queueDraw(_ widget: Widget) { gtk.widgetQueueDraw(widget.pointer) }

    // MARK: Windows

    func setChild(_ child: Widget, of window: Widget) { gtk.windowSetChild(window.pointer, child.pointer) }
    func setResizable(_ resizable: Bool, _ window: Widget) { gtk.windowSetResizable(window.pointer, resizable ? 1 : 0) }
    func present(_ window: Widget) { gtk.windowPresent(window.pointer) }
    func destroy(_ window: Widget) { gtk.windowDestroy(window.pointer) }
    /// Asks the window to close, as its close button does (its `close-request` runs).
    func close(_ window: Widget) { gtk.windowClose(window.pointer) }

    // MARK: Style

    /// A style sheet for the whole display, above the theme; replaced with `load`.
    func styleSheet() -> ObjectReference? {
        guard let display = gtk.displayGetDefault() else { return nil }
        guard let made = gtk.cssProviderNew() else { return nil }
        let provider = ObjectReference(made, unref: gtk.objectUnref)
        gtk.styleContextAddProviderForDisplay(display, provider.pointer,
                                              UInt32(TIDINGS_GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        return provider
    }

    func load(_ css: String, into sheet: ObjectReference) {
        var bytes = Array(css.utf8)
        bytes.append(0)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                gtk.cssProviderLoadFromData(sheet.pointer, chars.baseAddress, css.utf8.count)
            }
        }
    }

    /// Asks GTK's theme for its dark (or light) variant, as `--appearance` forces it.
    func preferDark(_ dark: Bool) {
        guard let settings = gtk.settingsGetDefault() else { return }
        var value = tidings_g_value()
        _ = gtk.valueInit(&value, Int(TIDINGS_G_TYPE_BOOLEAN))
        gtk.valueSetBoolean(&value, dark ? 1 : 0)
        gtk.objectSetProperty(UnsafeMutableRawPointer(settings), "gtk-application-prefer-dark-theme", &value)
        gtk.valueUnset(&value)
    }

    // MARK: Signals and the loop

    /// Runs `action` on `signal` of `widget` (a signal whose handler takes the widget and the data).
    func connect(_ widget: Widget, _ signal: String, _ action: @escaping () -> Void) {
        let target = Unmanaged.passRetained(SignalTarget(action)).toOpaque()
        _ = gtk.signalConnectData(UnsafeMutableRawPointer(widget.pointer), signal,
                                  unsafeBitCast(widgetSignal, to: tidings_g_callback.self), target, releaseTarget, 0)
    }

    /// Connects a C handler of its own type to `signal` of `instance`, with `data` (owned by the caller).
    func connect<Handler>(_ instance: OpaquePointer?, _ signal: String, _ handler: Handler, data: UnsafeMutableRawPointer) {
        _ = gtk.signalConnectData(UnsafeMutableRawPointer(instance), signal, unsafeBitCast(handler, to: tidings_g_callback.self),
                                  data, nil, 0)
    }

    /// A key controller on `widget`, calling `handler` with `data` for each key pressed.
    func onKeyPressed(_ widget: Widget, _ handler: tidings_gtk_key_pressed_handler, data: UnsafeMutableRawPointer) {
        guard let controller = gtk.eventControllerKeyNew() else { return }
        connect(controller, "key-pressed", handler, data: data)
        gtk.widgetAddController(widget.pointer, controller)
    }

    /// GLib's main loop on the default context: `run` until `quit`. Made once
    /// per window and kept for the life of the process (never unreferenced).
    func mainLoop() -> OpaquePointer? { gtk.mainLoopNew(nil, 0) }
    func run(_ loop: OpaquePointer) { gtk.mainLoopRun(loop) }
    func quit(_ loop: OpaquePointer) { gtk.mainLoopQuit(loop) }

    func frameClock(of widget: Widget) -> OpaquePointer? { gtk.widgetGetFrameClock(widget.pointer) }

    /// Watches `descriptor` for `condition` (`TIDINGS_G_IO_…`) in GLib's default main context.
    func watch(_ descriptor: Int32, for condition: Int32, _ handler: tidings_g_unix_fd_source_func,
               data: UnsafeMutableRawPointer) {
        _ = gtk.unixFDAdd(descriptor, UInt32(condition), handler, data)
    }
}
