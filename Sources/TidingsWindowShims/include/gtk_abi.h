// The part of GTK 4's C interface (and of GLib's and GObject's beneath it)
// that TidingsWindow calls: opaque types, the few structs passed by value or
// filled in, enum values, and the types of the functions it resolves with
// dlsym at run time. Header only: nothing here links GTK, so the package
// builds and runs on machines without it (libgtk-4.so.1 is a run-time
// dependency, opened by TidingsWindow only when a window is asked for).
// The declarations follow GTK 4's stable ABI (libgtk-4.so.1, GLib 2.x).
#ifndef TIDINGS_GTK_ABI_H
#define TIDINGS_GTK_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct tidings_gtk_widget tidings_gtk_widget;
typedef struct tidings_gtk_css_provider tidings_gtk_css_provider;
typedef struct tidings_gtk_event_controller tidings_gtk_event_controller;
typedef struct tidings_gdk_display tidings_gdk_display;
typedef struct tidings_gdk_frame_clock tidings_gdk_frame_clock;
typedef struct tidings_g_main_loop tidings_g_main_loop;
typedef struct tidings_gtk_settings tidings_gtk_settings;

/// GValue: a type and two words of data (g_value_init fills it; zeroed before).
typedef struct tidings_g_value {
    size_t g_type;
    uint64_t data[2];
} tidings_g_value;

/// graphene_rect_t: origin and size, in floats.
typedef struct tidings_graphene_rect {
    float x, y, width, height;
} tidings_graphene_rect;

// Enum values used.
enum {
    TIDINGS_GTK_ORIENTATION_HORIZONTAL = 0,
    TIDINGS_GTK_ORIENTATION_VERTICAL = 1,
    TIDINGS_GTK_ALIGN_FILL = 0,
    TIDINGS_GTK_ALIGN_START = 1,
    TIDINGS_GTK_POLICY_EXTERNAL = 3,
    TIDINGS_GTK_ACCESSIBLE_PROPERTY_LABEL = 4,
    TIDINGS_GTK_STYLE_PROVIDER_PRIORITY_APPLICATION = 600,
    TIDINGS_G_IO_IN = 1,
    TIDINGS_G_IO_OUT = 4,
    TIDINGS_G_IO_ERR = 8,
    TIDINGS_G_IO_HUP = 16,
    TIDINGS_G_TYPE_BOOLEAN = 5 << 2,
    TIDINGS_G_TYPE_STRING = 16 << 2,
    TIDINGS_GDK_KEY_ESCAPE = 0xff1b,
};

// Callbacks: a signal handler is called through GCallback, cast to its signal's type.
typedef void (*tidings_g_callback)(void);
typedef void (*tidings_g_closure_notify)(void *data, void *closure);
/// GUnixFDSourceFunc: a watched descriptor is ready; returns whether to keep watching.
typedef int (*tidings_g_unix_fd_source_func)(int fd, unsigned int condition, void *data);
/// "clicked" (GtkButton), "activate" (GtkEntry): the widget and the handler's data.
typedef void (*tidings_gtk_widget_handler)(tidings_gtk_widget *widget, void *data);
/// "close-request" (GtkWindow): returns whether to keep the window open.
typedef int (*tidings_gtk_close_request_handler)(tidings_gtk_widget *window, void *data);
/// "key-pressed" (GtkEventControllerKey): returns whether the key was handled.
typedef int (*tidings_gtk_key_pressed_handler)(tidings_gtk_event_controller *controller, unsigned int keyval,
                                               unsigned int keycode, unsigned int state, void *data);
/// "after-paint" (GdkFrameClock): a frame was drawn.
typedef void (*tidings_gdk_frame_handler)(tidings_gdk_frame_clock *clock, void *data);

// GLib: the main loop and watched descriptors.
typedef tidings_g_main_loop *(*tidings_g_main_loop_new)(void *context, int is_running);
typedef void (*tidings_g_main_loop_run)(tidings_g_main_loop *loop);
typedef void (*tidings_g_main_loop_quit)(tidings_g_main_loop *loop);
typedef unsigned int (*tidings_g_unix_fd_add)(int fd, unsigned int condition, tidings_g_unix_fd_source_func function,
                                              void *data);

// GObject: signals, references, values, properties.
typedef unsigned long (*tidings_g_signal_connect_data)(void *instance, const char *signal, tidings_g_callback handler,
                                                       void *data, tidings_g_closure_notify destroy, int flags);
typedef void (*tidings_g_object_unref)(void *object);
typedef tidings_g_value *(*tidings_g_value_init)(tidings_g_value *value, size_t type);
typedef void (*tidings_g_value_set_string)(tidings_g_value *value, const char *string);
typedef void (*tidings_g_value_set_boolean)(tidings_g_value *value, int boolean);
typedef void (*tidings_g_value_unset)(tidings_g_value *value);
typedef void (*tidings_g_object_set_property)(void *object, const char *name, const tidings_g_value *value);

// GTK: start, windows, containers, widgets.
typedef int (*tidings_gtk_init_check)(void);
typedef tidings_gtk_widget *(*tidings_gtk_window_new)(void);
typedef void (*tidings_gtk_window_set_title)(tidings_gtk_widget *window, const char *title);
typedef void (*tidings_gtk_window_set_child)(tidings_gtk_widget *window, tidings_gtk_widget *child);
typedef void (*tidings_gtk_window_set_resizable)(tidings_gtk_widget *window, int resizable);
typedef void (*tidings_gtk_window_present)(tidings_gtk_widget *window);
typedef void (*tidings_gtk_window_destroy)(tidings_gtk_widget *window);
typedef void (*tidings_gtk_window_close)(tidings_gtk_widget *window);
typedef tidings_gtk_widget *(*tidings_gtk_box_new)(int orientation, int spacing);
typedef void (*tidings_gtk_box_append)(tidings_gtk_widget *box, tidings_gtk_widget *child);
typedef void (*tidings_gtk_box_remove)(tidings_gtk_widget *box, tidings_gtk_widget *child);
typedef tidings_gtk_widget *(*tidings_gtk_overlay_new)(void);
typedef void (*tidings_gtk_overlay_set_child)(tidings_gtk_widget *overlay, tidings_gtk_widget *child);
typedef void (*tidings_gtk_overlay_add_overlay)(tidings_gtk_widget *overlay, tidings_gtk_widget *child);
typedef tidings_gtk_widget *(*tidings_gtk_scrolled_window_new)(void);
typedef void (*tidings_gtk_scrolled_window_set_child)(tidings_gtk_widget *window, tidings_gtk_widget *child);
typedef void (*tidings_gtk_scrolled_window_set_policy)(tidings_gtk_widget *window, int horizontal, int vertical);
typedef tidings_gtk_widget *(*tidings_gtk_label_new)(const char *text);
typedef void (*tidings_gtk_label_set_text)(tidings_gtk_widget *label, const char *text);
typedef void (*tidings_gtk_label_set_wrap)(tidings_gtk_widget *label, int wrap);
typedef void (*tidings_gtk_label_set_xalign)(tidings_gtk_widget *label, float xalign);
typedef void (*tidings_gtk_label_set_max_width_chars)(tidings_gtk_widget *label, int chars);
typedef tidings_gtk_widget *(*tidings_gtk_button_new_with_label)(const char *label);
typedef tidings_gtk_widget *(*tidings_gtk_entry_new)(void);
typedef void (*tidings_gtk_entry_set_placeholder_text)(tidings_gtk_widget *entry, const char *text);
typedef const char *(*tidings_gtk_editable_get_text)(tidings_gtk_widget *editable);
typedef void (*tidings_gtk_editable_set_text)(tidings_gtk_widget *editable, const char *text);
typedef tidings_gtk_widget *(*tidings_gtk_picture_new_for_filename)(const char *path);
typedef void (*tidings_gtk_widget_set_size_request)(tidings_gtk_widget *widget, int width, int height);
typedef void (*tidings_gtk_widget_add_css_class)(tidings_gtk_widget *widget, const char *name);
typedef void (*tidings_gtk_widget_set_boolean)(tidings_gtk_widget *widget, int value);
typedef void (*tidings_gtk_widget_set_int)(tidings_gtk_widget *widget, int value);
typedef int (*tidings_gtk_widget_compute_bounds)(tidings_gtk_widget *widget, tidings_gtk_widget *target,
                                                 tidings_graphene_rect *bounds);
typedef int (*tidings_gtk_widget_get_int)(tidings_gtk_widget *widget);
typedef int (*tidings_gtk_widget_get_boolean)(tidings_gtk_widget *widget);
typedef void (*tidings_gtk_widget_measure)(tidings_gtk_widget *widget, int orientation, int for_size, int *minimum,
                                           int *natural, int *minimum_baseline, int *natural_baseline);
typedef tidings_gdk_frame_clock *(*tidings_gtk_widget_get_frame_clock)(tidings_gtk_widget *widget);
typedef void (*tidings_gtk_widget_queue_draw)(tidings_gtk_widget *widget);
typedef void (*tidings_gtk_widget_add_controller)(tidings_gtk_widget *widget, tidings_gtk_event_controller *controller);
typedef int (*tidings_gtk_widget_grab_focus)(tidings_gtk_widget *widget);
typedef tidings_gtk_event_controller *(*tidings_gtk_event_controller_key_new)(void);
typedef void (*tidings_gtk_accessible_update_property_value)(tidings_gtk_widget *accessible, int count,
                                                             const int *properties, const tidings_g_value *values);
typedef tidings_gtk_css_provider *(*tidings_gtk_css_provider_new)(void);
typedef void (*tidings_gtk_css_provider_load_from_data)(tidings_gtk_css_provider *provider, const char *data,
                                                        ptrdiff_t length);
typedef tidings_gdk_display *(*tidings_gdk_display_get_default)(void);
typedef void (*tidings_gtk_style_context_add_provider_for_display)(tidings_gdk_display *display,
                                                                   tidings_gtk_css_provider *provider,
                                                                   unsigned int priority);
typedef tidings_gtk_settings *(*tidings_gtk_settings_get_default)(void);

#endif
