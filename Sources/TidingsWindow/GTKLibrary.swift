import Glibc
import TidingsBase
import TidingsLoader
import TidingsWindowShims

/// GTK 4 (libgtk-4.so.1), opened with `dlopen` at run time: the package does
/// not link it, so `tidings` builds and runs where it is missing, and only a
/// window asked for opens it. GLib's and GObject's functions are found
/// through it (they are its dependencies). The functions are resolved once,
/// by name, into typed C function pointers.
///
/// The library is never closed (`DynamicLibrary` never calls `dlclose`):
/// GLib keeps types, threads and sources for the life of the process.
/// The value is immutable after `init`; GTK itself is used from one thread,
/// the one that called `start()`.
package final class GTKLibrary: @unchecked Sendable {
    /// Where the library is looked up by default: its soname, through the loader's search path.
    package static let defaultPath = "libgtk-4.so.1"

    private let library: DynamicLibrary

    let mainLoopNew: tidings_g_main_loop_new
    let mainLoopRun: tidings_g_main_loop_run
    let mainLoopQuit: tidings_g_main_loop_quit
    let unixFDAdd: tidings_g_unix_fd_add
    let signalConnectData: tidings_g_signal_connect_data
    let objectUnref: tidings_g_object_unref
    let valueInit: tidings_g_value_init
    let valueSetString: tidings_g_value_set_string
    let valueSetBoolean: tidings_g_value_set_boolean
    let valueUnset: tidings_g_value_unset
    let objectSetProperty: tidings_g_object_set_property
    let initCheck: tidings_gtk_init_check
    let windowNew: tidings_gtk_window_new
    let windowSetTitle: tidings_gtk_window_set_title
    let windowSetChild: tidings_gtk_window_set_child
    let windowSetResizable: tidings_gtk_window_set_resizable
    let windowPresent: tidings_gtk_window_present
    let windowDestroy: tidings_gtk_window_destroy
    let windowClose: tidings_gtk_window_close
    let boxNew: tidings_gtk_box_new
    let boxAppend: tidings_gtk_box_append
    let boxRemove: tidings_gtk_box_remove
    let overlayNew: tidings_gtk_overlay_new
    let overlaySetChild: tidings_gtk_overlay_set_child
    let overlayAddOverlay: tidings_gtk_overlay_add_overlay
    let scrolledWindowNew: tidings_gtk_scrolled_window_new
    let scrolledWindowSetChild: tidings_gtk_scrolled_window_set_child
    let scrolledWindowSetPolicy: tidings_gtk_scrolled_window_set_policy
    let labelNew: tidings_gtk_label_new
    let labelSetText: tidings_gtk_label_set_text
    let labelSetWrap: tidings_gtk_label_set_wrap
    let labelSetXAlign: tidings_gtk_label_set_xalign
    let labelSetMaxWidthChars: tidings_gtk_label_set_max_width_chars
    let buttonNewWithLabel: tidings_gtk_button_new_with_label
    let entryNew: tidings_gtk_entry_new
    let entrySetPlaceholderText: tidings_gtk_entry_set_placeholder_text
    let editableGetText: tidings_gtk_editable_get_text
    let editableSetText: tidings_gtk_editable_set_text
    let pictureNewForFilename: tidings_gtk_picture_new_for_filename
    let widgetSetSizeRequest: tidings_gtk_widget_set_size_request
    let widgetAddCSSClass: tidings_gtk_widget_add_css_class
    let widgetSetVisible: tidings_gtk_widget_set_boolean
    let widgetSetSensitive: tidings_gtk_widget_set_boolean
    let widgetSetHExpand: tidings_gtk_widget_set_boolean
    let widgetSetHAlign: tidings_gtk_widget_set_int
    let widgetSetVAlign: tidings_gtk_widget_set_int
    let widgetSetMarginStart: tidings_gtk_widget_set_int
    let widgetSetMarginEnd: tidings_gtk_widget_set_int
    let widgetSetMarginTop: tidings_gtk_widget_set_int
    let widgetSetMarginBottom: tidings_gtk_widget_set_int
    let widgetComputeBounds: tidings_gtk_widget_compute_bounds
    let widgetGetMapped: tidings_gtk_widget_get_boolean
    let widgetGetWidth: tidings_gtk_widget_get_int
    let widgetGetHeight: tidings_gtk_widget_get_int
    let widgetMeasure: tidings_gtk_widget_measure
    let widgetGetFrameClock: tidings_gtk_widget_get_frame_clock
    let widgetQueueDraw: tidings_gtk_widget_queue_draw
    let widgetAddController: tidings_gtk_widget_add_controller
    let widgetGrabFocus: tidings_gtk_widget_grab_focus
    let eventControllerKeyNew: tidings_gtk_event_controller_key_new
    let accessibleUpdatePropertyValue: tidings_gtk_accessible_update_property_value
    let cssProviderNew: tidings_gtk_css_provider_new
    let cssProviderLoadFromData: tidings_gtk_css_provider_load_from_data
    let displayGetDefault: tidings_gdk_display_get_default
    let styleContextAddProviderForDisplay: tidings_gtk_style_context_add_provider_for_display
    let settingsGetDefault: tidings_gtk_settings_get_default

    /// Opens the library at `path` and resolves every function the wrapper calls.
    /// - Throws: `window.no-library` when it cannot be opened or lacks one of them.
    package init(path: String = GTKLibrary.defaultPath) throws(Diagnostic) {
        let opened: DynamicLibrary
        do {
            opened = try DynamicLibrary(opening: path)
        } catch {
            throw .error(.noToolkit, "cannot open \(path): \(error.message)")
        }
        mainLoopNew = try Self.resolve("g_main_loop_new", in: opened, at: path)
        mainLoopRun = try Self.resolve("g_main_loop_run", in: opened, at: path)
        mainLoopQuit = try Self.resolve("g_main_loop_quit", in: opened, at: path)
        unixFDAdd = try Self.resolve("g_unix_fd_add", in: opened, at: path)
        signalConnectData = try Self.resolve("g_signal_connect_data", in: opened, at: path)
        objectUnref = try Self.resolve("g_object_unref", in: opened, at: path)
        valueInit = try Self.resolve("g_value_init", in: opened, at: path)
        valueSetString = try Self.resolve("g_value_set_string", in: opened, at: path)
        valueSetBoolean = try Self.resolve("g_value_set_boolean", in: opened, at: path)
        valueUnset = try Self.resolve("g_value_unset", in: opened, at: path)
        objectSetProperty = try Self.resolve("g_object_set_property", in: opened, at: path)
        initCheck = try Self.resolve("gtk_init_check", in: opened, at: path)
        windowNew = try Self.resolve("gtk_window_new", in: opened, at: path)
        windowSetTitle = try Self.resolve("gtk_window_set_title", in: opened, at: path)
        windowSetChild = try Self.resolve("gtk_window_set_child", in: opened, at: path)
        windowSetResizable = try Self.resolve("gtk_window_set_resizable", in: opened, at: path)
        windowPresent = try Self.resolve("gtk_window_present", in: opened, at: path)
        windowDestroy = try Self.resolve("gtk_window_destroy", in: opened, at: path)
        windowClose = try Self.resolve("gtk_window_close", in: opened, at: path)
        boxNew = try Self.resolve("gtk_box_new", in: opened, at: path)
        boxAppend = try Self.resolve("gtk_box_append", in: opened, at: path)
        boxRemove = try Self.resolve("gtk_box_remove", in: opened, at: path)
        overlayNew = try Self.resolve("gtk_overlay_new", in: opened, at: path)
        overlaySetChild = try Self.resolve("gtk_overlay_set_child", in: opened, at: path)
        overlayAddOverlay = try Self.resolve("gtk_overlay_add_overlay", in: opened, at: path)
        scrolledWindowNew = try Self.resolve("gtk_scrolled_window_new", in: opened, at: path)
        scrolledWindowSetChild = try Self.resolve("gtk_scrolled_window_set_child", in: opened, at: path)
        scrolledWindowSetPolicy = try Self.resolve("gtk_scrolled_window_set_policy", in: opened, at: path)
        labelNew = try Self.resolve("gtk_label_new", in: opened, at: path)
        labelSetText = try Self.resolve("gtk_label_set_text", in: opened, at: path)
        labelSetWrap = try Self.resolve("gtk_label_set_wrap", in: opened, at: path)
        labelSetXAlign = try Self.resolve("gtk_label_set_xalign", in: opened, at: path)
        labelSetMaxWidthChars = try Self.resolve("gtk_label_set_max_width_chars", in: opened, at: path)
        buttonNewWithLabel = try Self.resolve("gtk_button_new_with_label", in: opened, at: path)
        entryNew = try Self.resolve("gtk_entry_new", in: opened, at: path)
        entrySetPlaceholderText = try Self.resolve("gtk_entry_set_placeholder_text", in: opened, at: path)
        editableGetText = try Self.resolve("gtk_editable_get_text", in: opened, at: path)
        editableSetText = try Self.resolve("gtk_editable_set_text", in: opened, at: path)
        pictureNewForFilename = try Self.resolve("gtk_picture_new_for_filename", in: opened, at: path)
        widgetSetSizeRequest = try Self.resolve("gtk_widget_set_size_request", in: opened, at: path)
        widgetAddCSSClass = try Self.resolve("gtk_widget_add_css_class", in: opened, at: path)
        widgetSetVisible = try Self.resolve("gtk_widget_set_visible", in: opened, at: path)
        widgetSetSensitive = try Self.resolve("gtk_widget_set_sensitive", in: opened, at: path)
        widgetSetHExpand = try Self.resolve("gtk_widget_set_hexpand", in: opened, at: path)
        widgetSetHAlign = try Self.resolve("gtk_widget_set_halign", in: opened, at: path)
        widgetSetVAlign = try Self.resolve("gtk_widget_set_valign", in: opened, at: path)
        widgetSetMarginStart = try Self.resolve("gtk_widget_set_margin_start", in: opened, at: path)
        widgetSetMarginEnd = try Self.resolve("gtk_widget_set_margin_end", in: opened, at: path)
        widgetSetMarginTop = try Self.resolve("gtk_widget_set_margin_top", in: opened, at: path)
        widgetSetMarginBottom = try Self.resolve("gtk_widget_set_margin_bottom", in: opened, at: path)
        widgetComputeBounds = try Self.resolve("gtk_widget_compute_bounds", in: opened, at: path)
        widgetGetMapped = try Self.resolve("gtk_widget_get_mapped", in: opened, at: path)
        widgetGetWidth = try Self.resolve("gtk_widget_get_width", in: opened, at: path)
        widgetGetHeight = try Self.resolve("gtk_widget_get_height", in: opened, at: path)
        widgetMeasure = try Self.resolve("gtk_widget_measure", in: opened, at: path)
        widgetGetFrameClock = try Self.resolve("gtk_widget_get_frame_clock", in: opened, at: path)
        widgetQueueDraw = try Self.resolve("gtk_widget_queue_draw", in: opened, at: path)
        widgetAddController = try Self.resolve("gtk_widget_add_controller", in: opened, at: path)
        widgetGrabFocus = try Self.resolve("gtk_widget_grab_focus", in: opened, at: path)
        eventControllerKeyNew = try Self.resolve("gtk_event_controller_key_new", in: opened, at: path)
        accessibleUpdatePropertyValue = try Self.resolve("gtk_accessible_update_property_value", in: opened, at: path)
        cssProviderNew = try Self.resolve("gtk_css_provider_new", in: opened, at: path)
        cssProviderLoadFromData = try Self.resolve("gtk_css_provider_load_from_data", in: opened, at: path)
        displayGetDefault = try Self.resolve("gdk_display_get_default", in: opened, at: path)
        styleContextAddProviderForDisplay = try Self.resolve("gtk_style_context_add_provider_for_display", in: opened, at: path)
        settingsGetDefault = try Self.resolve("gtk_settings_get_default", in: opened, at: path)
        library = opened
    }

    /// The function `name` of the library, as the C function pointer type `Function`.
    private static func resolve<Function>(_ name: String, in library: borrowing DynamicLibrary,
                                          at path: String) throws(Diagnostic) -> Function {
        guard let function = library.function(named: name, as: Function.self) else {
            throw .error(.noToolkit, "\(path) has no function \(name)")
        }
        return function
    }
}

extension Diagnostic.Code {
    /// GTK 4 cannot be opened, or lacks a function the window calls.
    package static let noToolkit = Self("window.no-library")
    /// GTK cannot open the display (none set, or it does not answer).
    package static let noDisplay = Self("window.no-display")
}
