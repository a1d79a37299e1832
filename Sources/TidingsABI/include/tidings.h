/*
 * tidings.h — the Tidings notification extension ABI, version 3.
 *
 * A Tidings extension is a shared library inside a bundle directory
 * (NAME.appex/ with an Info.plist). The host loads it with
 * dlopen(RTLD_NOW | RTLD_LOCAL), never unloads it, looks up one exported entry
 * function, and talks to it only through the structs and function pointers
 * declared here. This header is the whole contract: an extension written in
 * C needs nothing else.
 *
 * Rules that hold for everything below:
 *
 *  - Sizes and versions first. Every struct that crosses the boundary begins
 *    with `struct_size`, set by whoever fills the struct to sizeof() as that
 *    side compiled it. The top-level structs (tidings_host,
 *    tidings_extension) also carry `abi_version`.
 *  - Append only. Later versions only ever add fields at the end of a struct.
 *    A reader never touches a field that lies beyond the `struct_size` it was
 *    given; use TIDINGS_HAS_FIELD() before reading a field added after the
 *    struct's first version. A function pointer that is NULL, or beyond the
 *    struct's size, means "not implemented", and the host then does what
 *    Apple's system does when the corresponding method is absent. See
 *    "Versions" below for what each version added and the sizes each side
 *    accepts.
 *  - Strings are UTF-8 and NUL-terminated. Whatever the host passes to the
 *    extension is borrowed: valid only until the call returns, so copy what
 *    you keep. Whatever the extension passes to a host function is copied by
 *    the host before that function returns.
 *  - Threads. The host calls an extension instance from one thread at a time
 *    (not always the same thread). Host functions may be called from any
 *    thread, at any time, with any context, including a stale one.
 *  - Completion. A response's completion is called exactly once, from any
 *    thread, before its deadline: `--deadline SECONDS` of `tidings serve`
 *    (120 s by default) and of `tidings deliver` and `preview` (10 s by
 *    default); Apple sets none. Past it the
 *    host applies TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION. The host
 *    never crashes on a completion call, and what counts as a fault of the
 *    extension (toward the quarantine of an isolated bundle: 3 faults within
 *    60 s) is exactly this:
 *      no fault   a completion after the deadline (refused, reported as
 *                 response.completion-late and the server's
 *                 extension.late-completion event), or none at all;
 *      a fault    misuse of a token: calling it a second time (a late call
 *                 included), an option outside the three defined values,
 *                 the wrong function (complete_request with a response's
 *                 token, complete_response with a request's), or naming
 *                 another instance (complete_response_for,
 *                 complete_request_for); each misused token counts once,
 *                 however many calls misuse it. An unknown token is refused
 *                 and counts for nothing.
 *    A service extension's content handler (complete_request) follows the
 *    same rules, with its own deadline (`--service-deadline`, 30 s).
 *
 * Values that mirror Apple's UserNotifications framework (response options,
 * action options, media button types, interruption levels, action
 * identifiers) have Apple's numeric values and spellings.
 *
 * Versions
 *
 *  1  Content extensions: tidings_extension up to media_pause; tidings_host
 *     up to complete_response; every struct of "What the host passes" and
 *     tidings_action, tidings_media_button.
 *  2  Service extensions (did_receive_request,
 *     service_extension_time_will_expire, complete_request), attachments
 *     made by extensions (create_attachment, tidings_attachment_request,
 *     tidings_attachment_result) and read through the host
 *     (open_attachment); an attachment's size and thumbnail options.
 *  3  Named interfaces both ways (tidings_host.get_interface,
 *     tidings_extension.get_interface); completions that name their
 *     instance (complete_response_for, complete_request_for); the bundle's
 *     directory at entry (tidings_extension_entry_v3, tidings_entry_info);
 *     the presented actions' getter (get_actions).
 *
 * Version 3 is meant to be the last global version for a long time: a new
 * capability arrives as a named interface (see "Named interfaces"), which
 * either side may offer or not, and which needs no new version number.
 *
 * The rules for the two sides:
 *
 *  - A struct is accepted when its `struct_size` is at least its size in the
 *    version that introduced it (TIDINGS_<STRUCT>_SIZE_V<N> below). The host
 *    reads only the bytes a struct's size covers; a field beyond it takes
 *    the default its comment gives (NULL, 0, false or "not implemented" when
 *    none is given). The host writes into an extension's struct
 *    (tidings_attachment_result) only within its `struct_size`.
 *  - The host fills what it passes with the size of its own version; an
 *    extension reads a field added after a struct's first version only when
 *    TIDINGS_HAS_FIELD() says the struct covers it.
 *  - An extension declares in tidings_extension.abi_version the lowest
 *    version whose functions it uses, at most the host's. The host calls
 *    only the functions the descriptor's size covers, and treats the
 *    descriptor as of the version it declares.
 *  - Build against the newest header; set struct_size to sizeof() of what
 *    you fill; fill structs with designated initializers (C) or
 *    value-initialize them (C++), so fields you do not name are zero.
 */
#ifndef TIDINGS_H
#define TIDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions and the entry point                                              */
/* ------------------------------------------------------------------------ */

/** The ABI version this header describes. */
#define TIDINGS_ABI_VERSION 3u

/** The name of the one function every extension library exports. */
#define TIDINGS_ENTRY_SYMBOL "tidings_extension_entry"

/** Marks a function as exported from the shared library. */
#if defined(__GNUC__) || defined(__clang__)
#define TIDINGS_EXPORT __attribute__((visibility("default")))
#else
#define TIDINGS_EXPORT
#endif

/**
 * True when the struct at `pointer` (of struct type `type`) is large enough
 * to contain `field`, judged by the `struct_size` it carries.
 * Use it before reading any field added after version 1.
 */
#define TIDINGS_HAS_FIELD(pointer, type, field)                                \
    ((pointer)->struct_size >= TIDINGS_SIZE_THROUGH(type, field))

/** The size of struct type `type` up to and including `field`. */
#define TIDINGS_SIZE_THROUGH(type, field)                                      \
    (offsetof(type, field) + sizeof(((const type *)0)->field))

/* ------------------------------------------------------------------------ */
/* Plain values                                                              */
/* ------------------------------------------------------------------------ */

/** The result of a host function. */
typedef int32_t tidings_status;
/** The call succeeded. */
#define TIDINGS_STATUS_OK 0
/** A required pointer was NULL, a string was not UTF-8, or a number was out of range. */
#define TIDINGS_STATUS_INVALID_ARGUMENT 1
/** The context is unknown, or its instance has been destroyed. */
#define TIDINGS_STATUS_INVALID_CONTEXT 2
/** The interface declares no element with that identifier. */
#define TIDINGS_STATUS_NO_SUCH_ELEMENT 3
/** The element exists but is of another kind (text on an image, say). */
#define TIDINGS_STATUS_WRONG_ELEMENT_KIND 4
/** The notification carries no attachment with that identifier. */
#define TIDINGS_STATUS_NO_SUCH_ATTACHMENT 5
/** The manifest does not allow it (a title without UNNotificationExtensionOverridesDefaultTitle). */
#define TIDINGS_STATUS_NOT_PERMITTED 6
/** The completion is unknown, already used, or past its deadline. */
#define TIDINGS_STATUS_INVALID_COMPLETION 7
/** v2: the attachment was refused; the error code says why (Apple's 100–105). */
#define TIDINGS_STATUS_INVALID_ATTACHMENT 8
/** v2: the call does not apply to this kind of extension or instance. */
#define TIDINGS_STATUS_NOT_SUPPORTED 9
/**
 * The instance called host functions faster than the host allows (by
 * default 10,000 a second, 20,000 at once); the call changed nothing. An
 * extension whose calls are refused as many times as the burst within a
 * second is taken for a call storm: its calls answer TIDINGS_STATUS_INVALID_CONTEXT
 * from then on, and an isolated one's worker is ended. Changes of what
 * shows (every host call but log) are also counted in a second budget of
 * 300 a second, 1,000 at once: none is refused for it (front ends are told
 * of at most 60 changes a second, however many come), but an instance that
 * changes what shows faster than that for as long as the burst lasts is
 * taken for a flood in the same way (fault class "abuse"). Hosts before it
 * answered no such status; treat any status you do not know as a failure.
 */
#define TIDINGS_STATUS_RATE_LIMITED 10

/*
 * Limits on what an extension passes to the host, in bytes of UTF-8
 * without the terminating NUL. The host never reads past a limit: a longer
 * string is refused with TIDINGS_STATUS_INVALID_ARGUMENT (a log message is
 * cut instead, ending in "…"), a longer field of a content handed to
 * complete_request is dropped and reported.
 */
/** Element, action, attachment, category and thread identifiers; userInfo keys. */
#define TIDINGS_MAX_IDENTIFIER_BYTES 256
/** set_text's text, a content's body. */
#define TIDINGS_MAX_TEXT_BYTES 16384
/** Titles (set_title, a content's title and subtitle, an action's title, a text-input button title and placeholder), a sound's name. */
#define TIDINGS_MAX_TITLE_BYTES 1024
/** A log message (longer ones are cut). */
#define TIDINGS_MAX_LOG_BYTES 4096
/** An attachment request's url. */
#define TIDINGS_MAX_URL_BYTES 4096
/** One userInfo value's JSON in a content handed back. */
#define TIDINGS_MAX_USER_INFO_VALUE_BYTES 65536
/** userInfo entries and attachments of a content handed back (those beyond are dropped). */
#define TIDINGS_MAX_ENTRIES 256

/**
 * v2: why an attachment was refused, with the values of Apple's
 * UNErrorCode (UNErrorCodeAttachment…).
 */
typedef int32_t tidings_attachment_error;
/**
 * The file is missing, is not a regular file (a link, a directory, a FIFO, a
 * device), its URL is not a file URL, or its path leaves the directory it
 * must stay in.
 */
#define TIDINGS_ATTACHMENT_INVALID_URL 100
/** The content is of no type a notification may carry. */
#define TIDINGS_ATTACHMENT_UNRECOGNIZED_TYPE 101
/** The file is larger than its type allows (audio 5 MB, image 10 MB, video 50 MB). */
#define TIDINGS_ATTACHMENT_INVALID_FILE_SIZE 102
/** The attachment is no longer in the host's store. */
#define TIDINGS_ATTACHMENT_NOT_IN_DATA_STORE 103
/** The file could not be moved or copied into the host's store. */
#define TIDINGS_ATTACHMENT_MOVE_INTO_DATA_STORE_FAILED 104
/** The file's content is damaged. */
#define TIDINGS_ATTACHMENT_CORRUPT 105

/** How a content extension answers a response (UNNotificationContentExtensionResponseOption). */
typedef int32_t tidings_response_option;
/** Keep showing the notification; the extension handled the action. */
#define TIDINGS_RESPONSE_DO_NOT_DISMISS 0
/** Close the notification; the extension handled the action. */
#define TIDINGS_RESPONSE_DISMISS 1
/** Close the notification and forward the action to the app. */
#define TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION 2

/** The media play/pause button (UNNotificationContentExtensionMediaPlayPauseButtonType). */
typedef int32_t tidings_media_button_type;
/** No button (the default). */
#define TIDINGS_MEDIA_BUTTON_NONE 0
/** A button that is always visible and toggles between play and pause. */
#define TIDINGS_MEDIA_BUTTON_DEFAULT 1
/** A button over the content, hidden while playing. */
#define TIDINGS_MEDIA_BUTTON_OVERLAY 2

/** Options of an action, a bit set (UNNotificationActionOptions). */
typedef uint32_t tidings_action_options;
/** The action needs an unlocked device. */
#define TIDINGS_ACTION_AUTHENTICATION_REQUIRED 1u
/** The action destroys something and is drawn as such. */
#define TIDINGS_ACTION_DESTRUCTIVE 2u
/** The action brings the app to the foreground. */
#define TIDINGS_ACTION_FOREGROUND 4u

/** How urgently a notification asks for attention (UNNotificationInterruptionLevel). */
typedef int32_t tidings_interruption_level;
#define TIDINGS_INTERRUPTION_PASSIVE 0
#define TIDINGS_INTERRUPTION_ACTIVE 1
#define TIDINGS_INTERRUPTION_TIME_SENSITIVE 2
#define TIDINGS_INTERRUPTION_CRITICAL 3

/** The severity of a message passed to tidings_host.log. */
typedef int32_t tidings_log_level;
#define TIDINGS_LOG_DEBUG 0
#define TIDINGS_LOG_INFO 1
#define TIDINGS_LOG_WARNING 2
#define TIDINGS_LOG_ERROR 3

/** A colour as 0xRRGGBBAA: red in the high byte, alpha in the low byte. */
typedef uint32_t tidings_rgba;
/** Builds a tidings_rgba from four 0–255 components. */
#define TIDINGS_RGBA(r, g, b, a)                                               \
    ((tidings_rgba)((((uint32_t)(r) & 0xFFu) << 24) |                          \
                    (((uint32_t)(g) & 0xFFu) << 16) |                          \
                    (((uint32_t)(b) & 0xFFu) << 8) | ((uint32_t)(a) & 0xFFu)))

/** The badge value that means "no badge given" (the badge is left as it is). */
#define TIDINGS_BADGE_NONE (-1)

/** The action identifier of a response when the user opened the notification. */
#define TIDINGS_DEFAULT_ACTION_IDENTIFIER "com.apple.UNNotificationDefaultActionIdentifier"
/**
 * The action identifier of a response when the user explicitly dismissed the
 * notification; delivered only for categories with the customDismissAction
 * option.
 */
#define TIDINGS_DISMISS_ACTION_IDENTIFIER "com.apple.UNNotificationDismissActionIdentifier"

/**
 * The host's handle for one extension instance. It is a name, not a pointer
 * the extension may dereference. Stale handles are safe: host functions
 * answer TIDINGS_STATUS_INVALID_CONTEXT.
 */
typedef struct tidings_context_handle *tidings_context;

/** The host's handle for one pending response; see tidings_host.complete_response. */
typedef uint64_t tidings_completion;

typedef struct tidings_host tidings_host;
typedef struct tidings_action tidings_action;

/**
 * v3. Receives the actions get_actions reports: `count` actions, borrowed
 * for the call (copy what you keep). `user_data` is what was passed to
 * get_actions.
 */
typedef void (*tidings_actions_receiver)(void *user_data,
                                         const tidings_action *const *actions,
                                         size_t count);

/** A rectangle in points, origin at the top left. Fixed layout; never extended. */
typedef struct tidings_rect {
    double x;
    double y;
    double width;
    double height;
} tidings_rect;

/* ------------------------------------------------------------------------ */
/* What the host passes to the extension (borrowed for the call)            */
/* ------------------------------------------------------------------------ */

/** One top-level entry of the notification's userInfo dictionary. */
typedef struct tidings_user_info_entry {
    uint32_t struct_size;
    /** The key. Never NULL. */
    const char *key;
    /** The value as JSON text ("42", "\"text\"", "{...}"). Never NULL. */
    const char *json;
    /** The value when it is a string, without JSON quoting; NULL otherwise. */
    const char *string_value;
} tidings_user_info_entry;

/** A media file attached to a notification (UNNotificationAttachment). */
typedef struct tidings_attachment {
    uint32_t struct_size;
    /** The attachment's identifier, unique within its notification. Never NULL. */
    const char *identifier;
    /** Its uniform type identifier, such as "public.png"; "" when unknown. */
    const char *type;
    /** A file:// URL of the file in the host's store. Never NULL. */
    const char *url;
    /** v2: the file's size in bytes. */
    uint64_t size;
    /** v2: hide the thumbnail (UNNotificationAttachmentOptionsThumbnailHiddenKey). */
    bool thumbnail_hidden;
    /**
     * v2: the part of the image shown as the thumbnail, normalised to 0…1
     * (ThumbnailClippingRectKey); a zero size means the whole image.
     */
    tidings_rect thumbnail_clipping_rect;
    /**
     * v2: the moment of a video or animation shown as the thumbnail, in
     * seconds; negative for the default (as when the struct ends before it).
     */
    double thumbnail_time;
} tidings_attachment;

/**
 * The content of a notification (UNNotificationContent). What it does not
 * carry (a critical sound, the launch image, the summary argument, the
 * filter criteria) a host offers through "tidings.content/1".
 */
typedef struct tidings_content {
    uint32_t struct_size;
    tidings_interruption_level interruption_level;
    /** Title, subtitle and body; "" when absent, never NULL. */
    const char *title;
    const char *subtitle;
    const char *body;
    /** The category identifier; "" when the notification has none. */
    const char *category_identifier;
    /** The thread identifier; "" when the notification has none. */
    const char *thread_identifier;
    /** The target content identifier; NULL when absent. */
    const char *target_content_identifier;
    /** The sound name ("default" for the default sound); NULL for silence. */
    const char *sound;
    /** The badge number; TIDINGS_BADGE_NONE when absent (0 removes the badge). */
    int64_t badge;
    /** Relevance between 0 and 1 for summaries. */
    double relevance_score;
    /** The userInfo entries, in the order the payload gave them. */
    size_t user_info_count;
    const tidings_user_info_entry *const *user_info;
    /** The attachments, in order; the first is the one shown in the thumbnail. */
    size_t attachment_count;
    const tidings_attachment *const *attachments;
} tidings_content;

/** A delivered notification (UNNotification and its request). */
typedef struct tidings_notification {
    uint32_t struct_size;
    /** The request identifier. Never NULL. */
    const char *identifier;
    /** The delivery date in seconds since 1970-01-01 00:00 UTC. */
    double date;
    const tidings_content *content;
} tidings_notification;

/** The user's answer to a notification (UNNotificationResponse). */
typedef struct tidings_response {
    uint32_t struct_size;
    /**
     * The chosen action's identifier, TIDINGS_DEFAULT_ACTION_IDENTIFIER or
     * TIDINGS_DISMISS_ACTION_IDENTIFIER. Never NULL.
     */
    const char *action_identifier;
    /** The text the user typed for a text-input action; NULL otherwise. */
    const char *user_text;
    /** The notification the user answered. */
    const tidings_notification *notification;
} tidings_response;

/* ------------------------------------------------------------------------ */
/* What the extension passes to the host (copied before the call returns)   */
/* ------------------------------------------------------------------------ */

/** An action button (UNNotificationAction, or UNTextInputNotificationAction). */
struct tidings_action {
    uint32_t struct_size;
    tidings_action_options options;
    /** The identifier the response will carry. Must not be NULL or empty. */
    const char *identifier;
    /** The button's title. Must not be NULL. */
    const char *title;
    /** For a text-input action, the send button's title; NULL for a plain action. */
    const char *text_input_button_title;
    /** For a text-input action, the placeholder; NULL for none. */
    const char *text_input_placeholder;
};

/**
 * v2: what an extension asks to attach (UNNotificationAttachment's
 * initializer): a file it can read, which the host validates by content and
 * moves (or copies) into its store.
 */
typedef struct tidings_attachment_request {
    uint32_t struct_size;
    /** Hide the thumbnail. */
    bool thumbnail_hidden;
    /** The identifier; NULL or "" for one the host generates. */
    const char *identifier;
    /** The file: an absolute path or a file:// URL. Never NULL. */
    const char *url;
    /** A uniform type identifier the content must match; NULL to go by content alone. */
    const char *type_hint;
    /** The thumbnail's clipping rectangle, normalised to 0…1; a zero size for the whole image. */
    tidings_rect thumbnail_clipping_rect;
    /** The thumbnail's moment in seconds; negative for the default. */
    double thumbnail_time;
} tidings_attachment_request;

/**
 * v2: what create_attachment made, filled by the host. The extension sets
 * `struct_size` and the identifier buffer; the host writes the rest, and
 * nothing beyond `struct_size`.
 */
typedef struct tidings_attachment_result {
    uint32_t struct_size;
    /** 0 when the attachment was made; else Apple's code (100–105) saying why not. */
    tidings_attachment_error error;
    /**
     * The extension's buffer for the attachment's identifier (the one asked
     * for, or the one generated), NUL-terminated and cut to
     * `identifier_capacity` bytes; NULL when the extension needs no copy.
     */
    char *identifier;
    size_t identifier_capacity;
    /**
     * The uniform type identifier recognised from the content ("public.png");
     * a static string, valid for the life of the process; "" on failure.
     */
    const char *type;
    /** The file's size in bytes; 0 on failure. */
    uint64_t size;
} tidings_attachment_result;

/** The media play/pause button the extension wants shown. */
typedef struct tidings_media_button {
    uint32_t struct_size;
    tidings_media_button_type type;
    /** The button's frame in the extension's view; an empty one (a zero width
     *  or height) shows no button, as iOS draws none for an empty
     *  mediaPlayPauseButtonFrame. */
    tidings_rect frame;
    /** The button's tint; alpha 0 means "host's default". */
    tidings_rgba tint_color;
} tidings_media_button;

/* ------------------------------------------------------------------------ */
/* The host's functions                                                      */
/* ------------------------------------------------------------------------ */

/**
 * The table of host functions, passed to the entry function. It stays valid
 * and unchanged for the life of the process, so an extension may keep the
 * pointer. Every function is safe to call from any thread; a `context` that
 * is stale or unknown yields TIDINGS_STATUS_INVALID_CONTEXT, never a crash.
 * The view functions change the host's copy of the view; the host shows the
 * change to every front end.
 */
struct tidings_host {
    uint32_t struct_size;
    uint32_t abi_version;
    /** The host's name and version, for logs. Static strings. */
    const char *name;
    const char *version;

    /**
     * Writes a line to the host's log, tagged with the extension.
     * Thread: any. Ownership: `message` is copied. A NULL context is allowed
     * (a message not tied to an instance).
     */
    void (*log)(tidings_context context, tidings_log_level level,
                const char *message);

    /**
     * Sets the text of the label element `element` (and, on hosts offering
     * "tidings.elements/1", a button's title or a text field's text).
     * Thread: any. Ownership: both strings are copied.
     */
    tidings_status (*set_text)(tidings_context context, const char *element,
                               const char *text);

    /**
     * Sets the text colour of the label element `element`.
     * Thread: any. Ownership: `element` is copied.
     */
    tidings_status (*set_text_color)(tidings_context context,
                                     const char *element, tidings_rgba color);

    /**
     * Shows the notification's attachment `attachment_identifier` in the
     * image element `element`; NULL clears the image.
     * Thread: any. Ownership: both strings are copied.
     */
    tidings_status (*set_image)(tidings_context context, const char *element,
                                const char *attachment_identifier);

    /**
     * Hides or shows any element.
     * Thread: any. Ownership: `element` is copied.
     */
    tidings_status (*set_hidden)(tidings_context context, const char *element,
                                 bool hidden);

    /**
     * Sets the height the extension's view prefers, in points (> 0 and
     * finite). The width is the front end's; only the height is the
     * extension's to choose (preferredContentSize).
     * Thread: any. Ownership: none.
     */
    tidings_status (*set_preferred_content_height)(tidings_context context,
                                                   double height);

    /**
     * Sets the title shown in place of the app's name. Honoured only when the
     * manifest sets UNNotificationExtensionOverridesDefaultTitle; otherwise
     * TIDINGS_STATUS_NOT_PERMITTED. NULL restores the app's name.
     * Thread: any. Ownership: `title` is copied.
     */
    tidings_status (*set_title)(tidings_context context, const char *title);

    /**
     * Replaces the action buttons shown with the notification
     * (notificationActions, iOS 12). `count` 0 removes them all.
     * Thread: any. Ownership: the array and every action are copied.
     */
    tidings_status (*set_actions)(tidings_context context,
                                  const tidings_action *const *actions,
                                  size_t count);

    /**
     * Sets the media play/pause button (type, frame and tint). The host calls
     * tidings_extension.media_play / media_pause when the user taps it.
     * Thread: any. Ownership: `button` is copied.
     */
    tidings_status (*set_media_button)(tidings_context context,
                                       const tidings_media_button *button);

    /**
     * Tells the host that media started playing on the extension's own
     * initiative (mediaPlayingStarted).
     * Thread: any. Ownership: none.
     */
    tidings_status (*media_playing_started)(tidings_context context);

    /**
     * Tells the host that media paused on the extension's own initiative
     * (mediaPlayingPaused).
     * Thread: any. Ownership: none.
     */
    tidings_status (*media_playing_paused)(tidings_context context);

    /**
     * Opens the app as if the user had chosen the default action, and closes
     * the notification (performNotificationDefaultAction, iOS 12).
     * Thread: any. Ownership: none.
     */
    tidings_status (*perform_default_action)(tidings_context context);

    /**
     * Closes the notification's custom view
     * (dismissNotificationContentExtension, iOS 12): its expanded interface
     * closes and the instance is destroyed; the notification stays.
     * Thread: any. Ownership: none.
     */
    tidings_status (*dismiss)(tidings_context context);

    /**
     * Completes a response passed to tidings_extension.did_receive_response.
     * Call it exactly once per response, before the deadline (see
     * "Completion" above), from any thread, during or after
     * did_receive_response. A repeated, late or unknown call returns
     * TIDINGS_STATUS_INVALID_COMPLETION and changes nothing; an option
     * outside the three defined values is treated as
     * TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION, so the app still learns of
     * the action, and is reported. Faults (see "Completion" above): a late
     * call is none; a repeated call, an undefined option or a call with a
     * request's token is one, once per token.
     * Thread: any. Ownership: none.
     */
    tidings_status (*complete_response)(tidings_completion completion,
                                        tidings_response_option option);

    /**
     * v2. Completes a request passed to tidings_extension.did_receive_request
     * with the content to show (the content handler of
     * didReceive(_:withContentHandler:)). `content` is usually the request's
     * content with some fields changed; its attachments name attachments of
     * the request or ones made with create_attachment (their `url` is
     * ignored). NULL shows the original content. A content without alert
     * text (title, subtitle and body all empty) is ignored, as on iOS, and
     * the original is shown. Call it exactly once, before the deadline or
     * during service_extension_time_will_expire; late and repeated calls are
     * refused (TIDINGS_STATUS_INVALID_COMPLETION) and reported. Faults (see
     * "Completion" above): a late call is none; a repeated call or one with
     * a response's token is one, once per token. A `content`, or a userInfo
     * entry or attachment it points to, whose struct_size is below its
     * version 1 size is refused (TIDINGS_STATUS_INVALID_ARGUMENT) and
     * completes nothing: the call may be made again, rightly.
     * Thread: any. Ownership: `content` and all it points to are copied.
     */
    tidings_status (*complete_request)(tidings_completion completion,
                                       const tidings_content *content);

    /**
     * v2. Creates an attachment for the request being served from a file the
     * extension can read (UNNotificationAttachment's initializer): the host
     * refuses what is not a regular file (a link, a directory, a FIFO, a
     * device), recognises the type by content (never by the file's name;
     * a `type_hint` the content does not match is refused; a file whose
     * name has no extension is refused, with 101, unless a `type_hint` is
     * given, as iOS refuses it), enforces the
     * type's size limit (audio 5 MB, image 10 MB, video 50 MB), and moves
     * the file into its store — so the file is gone from its place
     * afterwards, as on iOS. (The store keeps a copy it made and checked,
     * never the file itself; the file is then removed from its place, or
     * left there when it cannot be removed.)
     * On success the host fills `result` (identifier, type, size; error 0)
     * and returns TIDINGS_STATUS_OK. When the file is refused it returns
     * TIDINGS_STATUS_INVALID_ATTACHMENT with `result->error` set to Apple's
     * code, leaves the file where it was and the store as it was, and
     * reports the reason. On any other status (INVALID_ARGUMENT for a bad
     * or repeated identifier or a clipping rectangle outside 0…1,
     * INVALID_CONTEXT, NOT_SUPPORTED) `result` says nothing was made: error
     * 0, an empty identifier, type "", size 0. `result` may be NULL, and is
     * ignored when its `struct_size` is smaller than version 2's.
     * A file with other hard links loses only the name it was given by;
     * a file already in the store (another notification's attachment) is
     * copied and stays. An attachment made
     * as its request ends (after the deadline and grace period) is given
     * back and the call answers TIDINGS_STATUS_INVALID_CONTEXT.
     * Only a service extension's instance may create attachments; others
     * get TIDINGS_STATUS_NOT_SUPPORTED. The host does the checking and
     * copying outside the instance's lock: other host calls of the instance
     * do not wait for it.
     * Thread: any. Ownership: `request` is copied; `result` and its
     * identifier buffer are the caller's.
     */
    tidings_status (*create_attachment)(tidings_context context,
                                        const tidings_attachment_request *request,
                                        tidings_attachment_result *result);

    /**
     * v2. Opens the attachment `identifier` of the notification the instance
     * is showing (or the request it is serving) for reading: the analogue of
     * start/stopAccessingSecurityScopedResource. Returns a read-only file
     * descriptor of the regular file in the host's store, opened without
     * following links, or -1 when the context or attachment is unknown or
     * the file is no longer in the store (Apple's
     * TIDINGS_ATTACHMENT_NOT_IN_DATA_STORE).
     * Thread: any. Ownership: the descriptor is the caller's to close.
     */
    int (*open_attachment)(tidings_context context, const char *identifier);

    /**
     * v3. The host's interface named `id` (see "Named interfaces"), or NULL
     * when this host offers none by that id (or `host` or `id` is NULL).
     * `host` is the table the entry function was given: the interfaces, like
     * the limits, may differ between the hosts of one process.
     * Thread: any. Ownership: the interface is the host's and stays valid and
     * unchanged for the life of the process; `id` is borrowed for the call.
     */
    const void *(*get_interface)(const tidings_host *host, const char *id);

    /**
     * v3. complete_response, naming the instance the response was passed to:
     * the host accepts `completion` only from the instance it was given to
     * (TIDINGS_STATUS_INVALID_COMPLETION otherwise, and a fault of the
     * extension, once per token), so one extension cannot complete
     * another's responses. Use it instead of complete_response when the
     * host's abi_version is at least 3.
     * Thread: any. Ownership: none.
     */
    tidings_status (*complete_response_for)(tidings_context context,
                                            tidings_completion completion,
                                            tidings_response_option option);

    /**
     * v3. complete_request, naming the instance the request was passed to,
     * with the same rules as complete_response_for.
     * Thread: any. Ownership: `content` and all it points to are copied.
     */
    tidings_status (*complete_request_for)(tidings_context context,
                                           tidings_completion completion,
                                           const tidings_content *content);

    /**
     * v3. The action buttons shown with the notification now (the getter of
     * notificationActions): the category's, or those set by set_actions. The
     * host calls `receive` once, before get_actions returns, with the
     * actions (none: `count` 0). It does not call `receive`, and answers
     * TIDINGS_STATUS_INVALID_CONTEXT for a stale context,
     * TIDINGS_STATUS_INVALID_ARGUMENT for a NULL `receive`,
     * TIDINGS_STATUS_NOT_SUPPORTED for a service extension's instance (which
     * shows no actions) and TIDINGS_STATUS_RATE_LIMITED as any host call
     * may. The host holds no lock while `receive` runs: it may call host
     * functions.
     * Thread: any; `receive` runs on the calling thread. Ownership: the
     * actions are borrowed for the call of `receive`.
     */
    tidings_status (*get_actions)(tidings_context context,
                                  tidings_actions_receiver receive,
                                  void *user_data);
};

/* ------------------------------------------------------------------------ */
/* The extension's functions                                                 */
/* ------------------------------------------------------------------------ */

/**
 * What an extension library offers, returned by its entry function. It must
 * stay valid and unchanged for the life of the process (a static const
 * struct is the usual way).
 *
 * Fill it with designated initializers (C99: `{.struct_size = sizeof(
 * tidings_extension), .abi_version = 1, .create = create, ...}`), so that the
 * fields later versions append start out NULL without compiler warnings; in
 * C++, value-initialize it (`tidings_extension d{};`) and assign the fields.
 * Declare the lowest version whose functions the extension uses.
 *
 * An instance corresponds to one view controller on iOS: the host creates one
 * when a notification's expanded interface opens (a delivery alone creates
 * none), passes it the thread-mates delivered while it is open, and destroys
 * it when that interface closes. Every function that takes an instance is
 * called from one thread at a time.
 */
typedef struct tidings_extension {
    uint32_t struct_size;
    /** The ABI version the extension implements: at least 1, at most the host's. */
    uint32_t abi_version;

    /**
     * Creates an instance. `context` names it in host calls until destroy()
     * returns. Return an opaque non-NULL pointer, or NULL when the instance
     * cannot be made (the notification is then shown with its default
     * content). Required.
     * Thread: the host's calling thread. Ownership: the extension owns the
     * instance until destroy().
     */
    void *(*create)(tidings_context context);

    /**
     * Destroys an instance. Required.
     * Thread: the instance's. Ownership: the instance is the extension's to free.
     */
    void (*destroy)(void *instance);

    /**
     * Fills the view for a notification (didReceive(_:)). Called again on the
     * same instance when a new notification of the same thread arrives while
     * it is shown. Required.
     * Thread: the instance's. Ownership: `notification` is borrowed for the
     * call.
     */
    void (*did_receive_notification)(void *instance,
                                     const tidings_notification *notification);

    /**
     * Handles the user's response (didReceive(_:completionHandler:)).
     * Optional: when NULL the host sends every response straight to the app.
     * When present it must handle every action of every category the
     * extension serves and call host->complete_response(completion, option)
     * exactly once, during this call or later from any thread, before the
     * deadline (see "Completion" above: 120 s by default in `tidings serve`;
     * a later completion is no fault).
     * Thread: the instance's. Ownership: `response` is borrowed for the call;
     * `completion` is a number and may be kept.
     */
    void (*did_receive_response)(void *instance,
                                 const tidings_response *response,
                                 tidings_completion completion);

    /**
     * The user tapped play on the media button (mediaPlay). Optional.
     * Thread: the instance's. Ownership: none.
     */
    void (*media_play)(void *instance);

    /**
     * The user tapped pause on the media button (mediaPause). Optional.
     * Thread: the instance's. Ownership: none.
     */
    void (*media_pause)(void *instance);

    /**
     * v2. Rewrites an incoming notification before it is shown
     * (didReceive(_:withContentHandler:) of a service extension): change the
     * content, create attachments, then call
     * host->complete_request(completion, &content) once, from any thread,
     * before the deadline. Required of an extension whose manifest names the
     * service extension point.
     * Thread: the instance's. Ownership: `request` is borrowed for the call;
     * `completion` is a number and may be kept.
     */
    void (*did_receive_request)(void *instance,
                                const tidings_notification *request,
                                tidings_completion completion);

    /**
     * v2. The deadline has passed (serviceExtensionTimeWillExpire): call
     * complete_request now with the best attempt, or the original content is
     * shown. Optional.
     * Thread: another thread than the one still running did_receive_request,
     * possibly at the same time. Ownership: none.
     */
    void (*service_extension_time_will_expire)(void *instance);

    /**
     * v3. The extension's interface named `id` (see "Named interfaces"), or
     * NULL when it offers none by that id. The host asks after the entry
     * function returns, once per id it knows, and keeps what it got.
     * Optional: NULL offers none.
     * Thread: any, never at the same time as another call of it. Ownership:
     * the interface is the extension's and must stay valid and unchanged for
     * the life of the process; `id` is borrowed for the call.
     */
    const void *(*get_interface)(const char *id);
} tidings_extension;

/** The smallest tidings_extension a version 1 host accepts: up to did_receive_notification. */
#define TIDINGS_EXTENSION_MIN_SIZE                                             \
    TIDINGS_SIZE_THROUGH(tidings_extension, did_receive_notification)

/**
 * The type of the entry function.
 *
 * The host calls it once, after loading the library, with the highest ABI
 * version it speaks and its function table. The extension returns its
 * descriptor, whose abi_version is at least 1 and at most
 * `host_abi_version`, or NULL when it cannot serve that host.
 * Thread: the host's loading thread, once. Ownership: `host` stays valid for
 * the life of the process; the returned descriptor must, too.
 */
typedef const tidings_extension *(*tidings_extension_entry_function)(
    uint32_t host_abi_version, const tidings_host *host);

/**
 * v3. What a version 3 host tells the extension's v3 entry function.
 */
typedef struct tidings_entry_info {
    uint32_t struct_size;
    /** The highest ABI version the host speaks (at least 3). */
    uint32_t host_abi_version;
    /** The host's function table; valid for the life of the process. */
    const tidings_host *host;
    /**
     * The extension's bundle directory (NAME.appex) as an absolute path
     * without a trailing slash, for reading the bundle's own resources. In
     * a sandboxed worker this is the path the bundle has there, which may
     * differ from its path outside. Never NULL; valid for the life of the
     * process.
     */
    const char *bundle_path;
} tidings_entry_info;

/** The name of the v3 entry function. */
#define TIDINGS_ENTRY_V3_SYMBOL "tidings_extension_entry_v3"

/**
 * v3. The type of the v3 entry function. A host of version 3 or later calls
 * it, when the library exports it, instead of tidings_extension_entry, once,
 * after loading the library; the same rules hold for its descriptor.
 * Export tidings_extension_entry as well to be loaded by hosts before
 * version 3 (it may return the same descriptor when its abi_version is at
 * most their version, or NULL).
 * Thread: the host's loading thread, once. Ownership: `info` is borrowed for
 * the call (its `host` and `bundle_path` live on).
 */
typedef const tidings_extension *(*tidings_extension_entry_v3_function)(
    const tidings_entry_info *info);

#ifndef TIDINGS_NO_ENTRY_PROTOTYPE
/** The entry function every extension library exports; see tidings_extension_entry_function. */
TIDINGS_EXPORT const tidings_extension *
tidings_extension_entry(uint32_t host_abi_version, const tidings_host *host);
/** v3. The entry function of a version 3 extension; see tidings_extension_entry_v3_function. */
TIDINGS_EXPORT const tidings_extension *
tidings_extension_entry_v3(const tidings_entry_info *info);
#endif

/* ------------------------------------------------------------------------ */
/* Named interfaces                                                          */
/* ------------------------------------------------------------------------ */

/*
 * From version 3 on, a capability is added as a named interface rather than
 * a new ABI version: a struct of values and function pointers that one side
 * offers and the other asks for by id, with get_interface (the host asks
 * the extension's descriptor, the extension asks the host's table). NULL
 * means the other side does not offer it: carry on without it.
 *
 * An id is a name, a slash and a major version: "tidings.limits/1".
 * Names beginning with "tidings." are defined in this header; anyone else
 * names theirs with a reversed domain they own ("com.example.feature/1").
 * An id never changes meaning. Its struct begins with `struct_size` and
 * grows by appending, under the rules above (a field beyond the size given
 * takes its default); a change that is not an append takes a new major
 * version, and a side may offer several major versions at once. Every
 * function of an interface states its thread and ownership rules, as the
 * tables above do. Ids are compared byte for byte.
 */

/** The id of the host's limits interface, tidings_limits_interface. */
#define TIDINGS_LIMITS_INTERFACE "tidings.limits/1"

/**
 * The host's limits as this host applies them, which may be larger than
 * the TIDINGS_MAX_* values of the header an extension was built with.
 * Offered by hosts of version 3 and later.
 */
typedef struct tidings_limits_interface {
    uint32_t struct_size;
    /** TIDINGS_MAX_IDENTIFIER_BYTES as this host applies it. */
    uint32_t max_identifier_bytes;
    /** TIDINGS_MAX_TEXT_BYTES as this host applies it. */
    uint32_t max_text_bytes;
    /** TIDINGS_MAX_TITLE_BYTES as this host applies it. */
    uint32_t max_title_bytes;
    /** TIDINGS_MAX_LOG_BYTES as this host applies it. */
    uint32_t max_log_bytes;
    /** TIDINGS_MAX_URL_BYTES as this host applies it. */
    uint32_t max_url_bytes;
    /** TIDINGS_MAX_USER_INFO_VALUE_BYTES as this host applies it. */
    uint32_t max_user_info_value_bytes;
    /** TIDINGS_MAX_ENTRIES as this host applies it. */
    uint32_t max_entries;
    /** The most actions set_actions accepts. */
    uint32_t max_actions;
    /** Host calls an instance may make per second, on average; INFINITY for no limit. */
    double calls_per_second;
    /** Host calls an instance may make at once before the rate applies; INFINITY for no limit. */
    double call_burst;
} tidings_limits_interface;

/** The id of the host's content interface, tidings_content_interface. */
#define TIDINGS_CONTENT_INTERFACE "tidings.content/1"

/**
 * What a notification's content holds beyond tidings_content: the rest of
 * UNNotificationContent (launchImageName, summaryArgument,
 * summaryArgumentCount, filterCriteria) and of its UNNotificationSound
 * (critical, volume). The host fills it; the extension only reads it.
 */
typedef struct tidings_content_details {
    uint32_t struct_size;
    /** The sound is critical (aps.sound.critical): it plays even when the device is muted. */
    bool critical_sound;
    /** A critical sound's volume between 0 and 1; negative for the system's. */
    double sound_volume;
    /** The image shown while the app launches (aps.alert.launch-image); "" for none. Never NULL. */
    const char *launch_image_name;
    /**
     * What the notification adds to its category's summary format's %@
     * (aps.alert.summary-arg); "" for none. Never NULL.
     */
    const char *summary_argument;
    /**
     * How many items the notification adds to its group's count, the
     * summary format's %u (aps.alert.summary-arg-count); 0 counts as 1.
     */
    uint64_t summary_argument_count;
    /** The Focus filter criteria it matches (aps.filter-criteria); NULL for none. */
    const char *filter_criteria;
} tidings_content_details;

/**
 * The details of the contents the host passes, which tidings_content does
 * not carry. Offered by hosts of version 3 and later that carry them.
 */
typedef struct tidings_content_interface {
    uint32_t struct_size;
    /**
     * The details of `content`, which must be a content the host passed
     * (the content of the notification given to did_receive_notification,
     * did_receive_request or did_receive_response); NULL for any other
     * pointer, such as a content the extension made, and for NULL.
     * Thread: any, while `content` is valid. Ownership: the details and
     * their strings are the host's and borrowed as `content` is (for the
     * call that passed it); copy what you keep.
     */
    const tidings_content_details *(*get_details)(const tidings_content *content);
} tidings_content_interface;

/** The id of the host's trigger interface, tidings_trigger_interface. */
#define TIDINGS_TRIGGER_INTERFACE "tidings.trigger/1"

/** What delivered a notification, in a tidings_trigger (UNNotificationTrigger's subclasses). */
typedef int32_t tidings_trigger_kind;
/** An APNs payload (UNPushNotificationTrigger): a remote notification. */
#define TIDINGS_TRIGGER_PUSH 1
/** A time interval after the request was added (UNTimeIntervalNotificationTrigger). */
#define TIDINGS_TRIGGER_TIME_INTERVAL 2
/** Date components matched (UNCalendarNotificationTrigger). */
#define TIDINGS_TRIGGER_CALENDAR 3
/** The device crossing a region's edge (UNLocationNotificationTrigger). */
#define TIDINGS_TRIGGER_LOCATION 4

/** A calendar component the trigger does not give (as NSDateComponentUndefined). */
#define TIDINGS_DATE_COMPONENT_UNSET 0x7FFFFFFFFFFFFFFFLL

/**
 * The trigger of a delivered notification's request (UNNotificationRequest
 * .trigger), as it was when the notification was delivered: the fields of
 * its kind are set, the others are 0, NULL, false or
 * TIDINGS_DATE_COMPONENT_UNSET. The host fills it; the extension only reads it.
 */
typedef struct tidings_trigger {
    uint32_t struct_size;
    /** TIDINGS_TRIGGER_…; treat a kind you do not know as no trigger (later hosts may add some). */
    tidings_trigger_kind kind;
    /** The trigger fires again after firing (never for a push). */
    bool repeats;
    /** TIDINGS_TRIGGER_TIME_INTERVAL: the seconds after the request was added (repeating: between firings). */
    double time_interval;
    /**
     * TIDINGS_TRIGGER_CALENDAR: the date components matched (DateComponents),
     * in the Gregorian calendar, each TIDINGS_DATE_COMPONENT_UNSET when not
     * given: era (1 AD, 0 BC), year, month 1–12, day 1–31, hour 0–23, minute
     * and second 0–59, weekday 1 (Sunday)–7, weekday_ordinal 1–5,
     * week_of_month 1–6, week_of_year 1–53.
     */
    int64_t era;
    int64_t year;
    int64_t month;
    int64_t day;
    int64_t hour;
    int64_t minute;
    int64_t second;
    int64_t weekday;
    int64_t weekday_ordinal;
    int64_t week_of_month;
    int64_t week_of_year;
    /** TIDINGS_TRIGGER_CALENDAR: the time zone matched in ("Europe/Paris"); NULL for the user's. */
    const char *time_zone;
    /** TIDINGS_TRIGGER_LOCATION: the region's identifier (CLRegion.identifier); NULL for other kinds. */
    const char *region_identifier;
    /** TIDINGS_TRIGGER_LOCATION: the region's centre in degrees and its radius in metres (CLCircularRegion). */
    double latitude;
    double longitude;
    double radius;
    /** TIDINGS_TRIGGER_LOCATION: which crossings of the region's edge it fires on. */
    bool notify_on_entry;
    bool notify_on_exit;
} tidings_trigger;

/**
 * The trigger of the notifications the host passes. Offered by hosts of
 * version 3 and later that know triggers.
 */
typedef struct tidings_trigger_interface {
    uint32_t struct_size;
    /**
     * The trigger of `notification`, which must be a notification the host
     * passed (to did_receive_notification or did_receive_request, or in a
     * tidings_response); NULL for a notification delivered at once, which
     * has none, for any other pointer and for NULL.
     * Thread: any, while `notification` is valid. Ownership: the trigger and
     * its strings are the host's and borrowed as `notification` is (for the
     * call that passed it); copy what you keep.
     */
    const tidings_trigger *(*get_trigger)(const tidings_notification *notification);
} tidings_trigger_interface;

/*
 * Interactive elements. An interface file may declare buttons and text
 * fields beside labels, images and stacks. The user's taps and submitted
 * text reach the extension only when its manifest sets
 * UNNotificationExtensionUserInteractionEnabled to true and it offers
 * "tidings.element-events/1"; otherwise the host refuses them and tells the
 * front end why (nothing reaches the extension), as iOS blocks touches.
 * set_text sets a button's title and a text field's text as well as a
 * label's text on hosts offering "tidings.elements/1" (older hosts read no
 * interface file with buttons or text fields); set_hidden hides any element.
 */

/** The id of the host's elements interface, tidings_elements_interface. */
#define TIDINGS_ELEMENTS_INTERFACE "tidings.elements/1"

/** What an extension changes of its buttons and text fields beyond set_text and set_hidden. */
typedef struct tidings_elements_interface {
    uint32_t struct_size;
    /**
     * Lets the button or text field `element` take taps or text (true, as
     * the interface file's "enabled" defaults to), or not (false: front ends
     * draw it disabled and the host refuses its events). Answers
     * TIDINGS_STATUS_NO_SUCH_ELEMENT or TIDINGS_STATUS_WRONG_ELEMENT_KIND
     * (for a label, an image or a stack) as the view functions do.
     * Thread: any. Ownership: `element` is copied.
     */
    tidings_status (*set_enabled)(tidings_context context, const char *element, bool enabled);
} tidings_elements_interface;

/** The id of the host's text-input interface, tidings_text_input_interface. */
#define TIDINGS_TEXT_INPUT_INTERFACE "tidings.text-input/1"

/**
 * The guide's custom input view: on iOS the extension becomes first
 * responder and shows an inputView / inputAccessoryView of its own (a text
 * entry with its own send button). Here it asks the front end for text,
 * naming the button's title and the placeholder; the request shows in the
 * presentation ("textInput": {"buttonTitle", "placeholder"}) until the user
 * answers, the extension ends it, or the instance goes. The answer reaches
 * the extension through its "tidings.element-events/1" as an event of kind
 * TIDINGS_ELEMENT_EVENT_TEXT_INPUT, and the request is then cleared (ask
 * again for more).
 */
typedef struct tidings_text_input_interface {
    uint32_t struct_size;
    /**
     * Asks the front end for text (becomeFirstResponder), replacing a
     * request already shown. `button_title` must not be NULL; `placeholder`
     * may be NULL for none; each at most TIDINGS_MAX_TITLE_BYTES
     * (TIDINGS_STATUS_INVALID_ARGUMENT otherwise). Honoured only when the
     * manifest sets UNNotificationExtensionUserInteractionEnabled to true;
     * otherwise TIDINGS_STATUS_NOT_PERMITTED and nothing shows.
     * Thread: any. Ownership: both strings are copied.
     */
    tidings_status (*request_text_input)(tidings_context context, const char *button_title,
                                         const char *placeholder);
    /**
     * Withdraws the request (resignFirstResponder); TIDINGS_STATUS_OK also
     * when none is shown.
     * Thread: any. Ownership: none.
     */
    tidings_status (*end_text_input)(tidings_context context);
} tidings_text_input_interface;

/** The id of the extension's element-events interface, tidings_element_events_interface. */
#define TIDINGS_ELEMENT_EVENTS_INTERFACE "tidings.element-events/1"

/** What the user did, in a tidings_element_event. */
typedef int32_t tidings_element_event_kind;
/** The user tapped the button `element`; `text` is NULL. */
#define TIDINGS_ELEMENT_EVENT_TAP 1
/** The user submitted the text field `element` holding `text` (the field holds it from now on). */
#define TIDINGS_ELEMENT_EVENT_SUBMIT 2
/** The user answered the extension's request_text_input with `text`; `element` is NULL. */
#define TIDINGS_ELEMENT_EVENT_TEXT_INPUT 3

/** One event of the extension's view, filled by the host. */
typedef struct tidings_element_event {
    uint32_t struct_size;
    /** TIDINGS_ELEMENT_EVENT_…; ignore a kind you do not know (later hosts may add some). */
    tidings_element_event_kind kind;
    /** The element's identifier; NULL for a text-input answer. */
    const char *element;
    /** The user's text, at most TIDINGS_MAX_TEXT_BYTES; NULL for a tap. */
    const char *text;
} tidings_element_event;

/**
 * Offered by an extension (through tidings_extension.get_interface) to
 * receive its view's events. The host checks an event before it calls:
 * the element exists, is of the kind the event needs, is shown and
 * enabled; a text-input answer needs a request. It calls only when the
 * manifest sets UNNotificationExtensionUserInteractionEnabled to true.
 */
typedef struct tidings_element_events_interface {
    uint32_t struct_size;
    /**
     * The user tapped a button, submitted a text field or answered the
     * text-input request; the host's view already shows it (the field
     * holds the text, the request is gone). Change the view with the host
     * functions, during the call or later. Required in the interface.
     * Thread: the instance's, never at the same time as its other
     * functions. Ownership: `event` and its strings are borrowed for the
     * call; copy what you keep.
     */
    void (*handle_event)(void *instance, const tidings_element_event *event);
} tidings_element_events_interface;

/* ------------------------------------------------------------------------ */
/* Sizes per version                                                         */
/* ------------------------------------------------------------------------ */

/*
 * The smallest `struct_size` accepted for each struct: its size in the
 * version that introduced it. A struct may be larger (a later version's);
 * what lies beyond the size given takes its default.
 */
#define TIDINGS_USER_INFO_ENTRY_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_user_info_entry, string_value)
#define TIDINGS_ATTACHMENT_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_attachment, url)
#define TIDINGS_ATTACHMENT_SIZE_V2 TIDINGS_SIZE_THROUGH(tidings_attachment, thumbnail_time)
#define TIDINGS_CONTENT_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_content, attachments)
#define TIDINGS_NOTIFICATION_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_notification, content)
#define TIDINGS_RESPONSE_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_response, notification)
#define TIDINGS_ACTION_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_action, text_input_placeholder)
#define TIDINGS_ATTACHMENT_REQUEST_SIZE_V2 TIDINGS_SIZE_THROUGH(tidings_attachment_request, thumbnail_time)
#define TIDINGS_ATTACHMENT_RESULT_SIZE_V2 TIDINGS_SIZE_THROUGH(tidings_attachment_result, size)
#define TIDINGS_MEDIA_BUTTON_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_media_button, tint_color)
#define TIDINGS_HOST_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_host, complete_response)
#define TIDINGS_HOST_SIZE_V2 TIDINGS_SIZE_THROUGH(tidings_host, open_attachment)
#define TIDINGS_HOST_SIZE_V3 TIDINGS_SIZE_THROUGH(tidings_host, get_actions)
/** Version 1's descriptor through media_pause; TIDINGS_EXTENSION_MIN_SIZE is the least accepted. */
#define TIDINGS_EXTENSION_SIZE_V1 TIDINGS_SIZE_THROUGH(tidings_extension, media_pause)
#define TIDINGS_EXTENSION_SIZE_V2 TIDINGS_SIZE_THROUGH(tidings_extension, service_extension_time_will_expire)
#define TIDINGS_EXTENSION_SIZE_V3 TIDINGS_SIZE_THROUGH(tidings_extension, get_interface)
#define TIDINGS_ENTRY_INFO_SIZE_V3 TIDINGS_SIZE_THROUGH(tidings_entry_info, bundle_path)
#define TIDINGS_LIMITS_INTERFACE_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_limits_interface, call_burst)
#define TIDINGS_CONTENT_DETAILS_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_content_details, filter_criteria)
#define TIDINGS_CONTENT_INTERFACE_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_content_interface, get_details)
#define TIDINGS_TRIGGER_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_trigger, notify_on_exit)
#define TIDINGS_TRIGGER_INTERFACE_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_trigger_interface, get_trigger)
#define TIDINGS_ELEMENTS_INTERFACE_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_elements_interface, set_enabled)
#define TIDINGS_TEXT_INPUT_INTERFACE_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_text_input_interface, end_text_input)
#define TIDINGS_ELEMENT_EVENT_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_element_event, text)
#define TIDINGS_ELEMENT_EVENTS_INTERFACE_SIZE_1 TIDINGS_SIZE_THROUGH(tidings_element_events_interface, handle_event)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TIDINGS_H */
