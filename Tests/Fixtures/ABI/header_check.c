/*
 * Compiled as C99, C11 and C++ with -Wall -Wextra -pedantic -Werror to prove
 * tidings.h is clean in each; it uses every macro and names every type.
 */
#include "tidings.h"

static const tidings_host *host;

static void *create(tidings_context context) {
    return (void *)context;
}

static void destroy(void *instance) {
    (void)instance;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    const tidings_content *content = notification->content;
    tidings_action action = {sizeof(tidings_action), TIDINGS_ACTION_FOREGROUND | TIDINGS_ACTION_DESTRUCTIVE, "a", "A", 0, 0};
    const tidings_action *actions[1];
    tidings_media_button button = {sizeof(tidings_media_button), TIDINGS_MEDIA_BUTTON_OVERLAY, {0, 0, 44, 44},
                                   TIDINGS_RGBA(255, 255, 255, 255)};
    tidings_context context = (tidings_context)instance;
    actions[0] = &action;
    if (content->badge != TIDINGS_BADGE_NONE && content->interruption_level == TIDINGS_INTERRUPTION_CRITICAL) {
        host->set_actions(context, actions, 1);
    }
    host->set_media_button(context, &button);
    host->log(context, TIDINGS_LOG_DEBUG, TIDINGS_DEFAULT_ACTION_IDENTIFIER);
    (void)TIDINGS_DISMISS_ACTION_IDENTIFIER;
    (void)TIDINGS_STATUS_WRONG_ELEMENT_KIND;
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    (void)instance;
    (void)response;
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
}

/* Version 3: the actions shown, completions naming their instance, named interfaces both ways. */
static void receive_actions(void *user_data, const tidings_action *const *actions, size_t count) {
    size_t *seen = (size_t *)user_data;
    *seen = count > 0 && actions[0]->struct_size >= TIDINGS_ACTION_SIZE_V1 ? count : 0;
}

static void use_version_3(tidings_context context, tidings_completion completion, const tidings_notification *notification,
                          const tidings_content *content) {
    size_t seen = 0;
    const tidings_limits_interface *limits =
        (const tidings_limits_interface *)host->get_interface(host, TIDINGS_LIMITS_INTERFACE);
    tidings_actions_receiver receiver = receive_actions;
    if (limits != NULL && limits->struct_size >= TIDINGS_LIMITS_INTERFACE_SIZE_1 &&
        limits->max_text_bytes >= TIDINGS_MAX_TEXT_BYTES && limits->calls_per_second > 0) {
        host->get_actions(context, receiver, &seen);
    }
    const tidings_content_interface *contents =
        (const tidings_content_interface *)host->get_interface(host, TIDINGS_CONTENT_INTERFACE);
    if (contents != NULL && contents->struct_size >= TIDINGS_CONTENT_INTERFACE_SIZE_1) {
        const tidings_content_details *details = contents->get_details(content);
        if (details != NULL && details->struct_size >= TIDINGS_CONTENT_DETAILS_SIZE_1 && details->critical_sound) {
            host->log(context, TIDINGS_LOG_INFO, details->launch_image_name);
        }
    }
    const tidings_trigger_interface *triggers =
        (const tidings_trigger_interface *)host->get_interface(host, TIDINGS_TRIGGER_INTERFACE);
    if (triggers != NULL && triggers->struct_size >= TIDINGS_TRIGGER_INTERFACE_SIZE_1) {
        const tidings_trigger *trigger = triggers->get_trigger(notification);
        tidings_trigger_kind kind = trigger != NULL && trigger->struct_size >= TIDINGS_TRIGGER_SIZE_1 ? trigger->kind : 0;
        if ((kind == TIDINGS_TRIGGER_CALENDAR && trigger->hour != TIDINGS_DATE_COMPONENT_UNSET) ||
            (kind == TIDINGS_TRIGGER_LOCATION && trigger->notify_on_entry) ||
            (kind == TIDINGS_TRIGGER_TIME_INTERVAL && trigger->repeats) || kind == TIDINGS_TRIGGER_PUSH) {
            host->log(context, TIDINGS_LOG_INFO, "triggered");
        }
    }
    if (host->complete_response_for(context, completion, TIDINGS_RESPONSE_DISMISS) == TIDINGS_STATUS_RATE_LIMITED) {
        host->complete_request_for(context, completion, content);
    }
    (void)(TIDINGS_MAX_IDENTIFIER_BYTES + TIDINGS_MAX_TITLE_BYTES + TIDINGS_MAX_LOG_BYTES + TIDINGS_MAX_URL_BYTES +
           TIDINGS_MAX_USER_INFO_VALUE_BYTES + TIDINGS_MAX_ENTRIES);
    (void)(TIDINGS_USER_INFO_ENTRY_SIZE_V1 + TIDINGS_ATTACHMENT_SIZE_V1 + TIDINGS_ATTACHMENT_SIZE_V2 +
           TIDINGS_CONTENT_SIZE_V1 + TIDINGS_NOTIFICATION_SIZE_V1 + TIDINGS_RESPONSE_SIZE_V1 +
           TIDINGS_ATTACHMENT_REQUEST_SIZE_V2 + TIDINGS_ATTACHMENT_RESULT_SIZE_V2 + TIDINGS_MEDIA_BUTTON_SIZE_V1 +
           TIDINGS_HOST_SIZE_V1 + TIDINGS_HOST_SIZE_V2 + TIDINGS_HOST_SIZE_V3 + TIDINGS_EXTENSION_SIZE_V1 +
           TIDINGS_EXTENSION_SIZE_V2 + TIDINGS_EXTENSION_SIZE_V3 + TIDINGS_ENTRY_INFO_SIZE_V3);
}

/* Version 2: a service extension that attaches a file and reads it back. */
static void did_receive_request(void *instance, const tidings_notification *request, tidings_completion completion) {
    tidings_context context = (tidings_context)instance;
    tidings_attachment_request attachment;
    tidings_attachment_result result;
    tidings_attachment_error error = TIDINGS_ATTACHMENT_INVALID_URL;
    char identifier[64];
    tidings_content content = *request->content;
    tidings_rect whole = {0, 0, 0, 0};
    attachment.struct_size = sizeof attachment;
    attachment.thumbnail_hidden = false;
    attachment.identifier = "image";
    attachment.url = "file:///tmp/image.png";
    attachment.type_hint = "public.png";
    attachment.thumbnail_clipping_rect = whole;
    attachment.thumbnail_time = -1;
    result.struct_size = sizeof result;
    result.identifier = identifier;
    result.identifier_capacity = sizeof identifier;
    if (host->create_attachment(context, &attachment, &result) == TIDINGS_STATUS_INVALID_ATTACHMENT) {
        error = result.error;
    }
    if (error == TIDINGS_ATTACHMENT_CORRUPT || host->open_attachment(context, identifier) < 0) {
        content.title = "no image";
    }
    (void)TIDINGS_STATUS_NOT_SUPPORTED;
    use_version_3(context, completion, request, &content);
    (void)(TIDINGS_ATTACHMENT_UNRECOGNIZED_TYPE + TIDINGS_ATTACHMENT_INVALID_FILE_SIZE +
           TIDINGS_ATTACHMENT_NOT_IN_DATA_STORE + TIDINGS_ATTACHMENT_MOVE_INTO_DATA_STORE_FAILED);
    host->complete_request(completion, &content);
}

static void time_will_expire(void *instance) {
    (void)instance;
}

static const void *get_interface(const char *id) {
    (void)id;
    return 0;
}

/* Zero-initialised and assigned in the entry, which reads the same in C and C++. */
static tidings_extension descriptor;

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    tidings_extension_entry_function self = tidings_extension_entry;
    (void)self;
    if (host_abi_version < 1 || !TIDINGS_HAS_FIELD(table, tidings_host, complete_response) ||
        TIDINGS_EXTENSION_MIN_SIZE > sizeof(tidings_extension)) {
        return 0;
    }
    host = table;
    descriptor.struct_size = sizeof descriptor;
    descriptor.abi_version = TIDINGS_ABI_VERSION;
    descriptor.create = create;
    descriptor.destroy = destroy;
    descriptor.did_receive_notification = did_receive_notification;
    descriptor.did_receive_response = did_receive_response;
    if (TIDINGS_HAS_FIELD(table, tidings_host, open_attachment)) {
        descriptor.did_receive_request = did_receive_request;
        descriptor.service_extension_time_will_expire = time_will_expire;
    }
    return &descriptor;
}

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry_v3(const tidings_entry_info *info) {
    tidings_extension_entry_v3_function self = tidings_extension_entry_v3;
    const char *symbol = TIDINGS_ENTRY_V3_SYMBOL;
    (void)self;
    (void)symbol;
    if (info->struct_size < TIDINGS_ENTRY_INFO_SIZE_V3 || info->bundle_path == 0) return 0;
    descriptor.get_interface = get_interface;
    return tidings_extension_entry(info->host_abi_version, info->host);
}
