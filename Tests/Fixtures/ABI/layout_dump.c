/*
 * Prints the offset and size of every field of every ABI struct, one per
 * line: version 1's, and each later version's when the header is of that
 * version or later. Built against each frozen header and against the current one:
 * every line of a frozen header's output must appear unchanged in the
 * current one's (fields are only ever appended).
 */
#include <stdio.h>

#include "tidings.h"

#define FIELD(type, field) \
    printf(#type "." #field " %zu %zu\n", offsetof(type, field), sizeof(((type *)0)->field))

int main(void) {
    FIELD(tidings_rect, x); FIELD(tidings_rect, y); FIELD(tidings_rect, width); FIELD(tidings_rect, height);
    FIELD(tidings_user_info_entry, struct_size); FIELD(tidings_user_info_entry, key);
    FIELD(tidings_user_info_entry, json); FIELD(tidings_user_info_entry, string_value);
    FIELD(tidings_attachment, struct_size); FIELD(tidings_attachment, identifier);
    FIELD(tidings_attachment, type); FIELD(tidings_attachment, url);
    FIELD(tidings_content, struct_size); FIELD(tidings_content, interruption_level); FIELD(tidings_content, title);
    FIELD(tidings_content, subtitle); FIELD(tidings_content, body); FIELD(tidings_content, category_identifier);
    FIELD(tidings_content, thread_identifier); FIELD(tidings_content, target_content_identifier);
    FIELD(tidings_content, sound); FIELD(tidings_content, badge); FIELD(tidings_content, relevance_score);
    FIELD(tidings_content, user_info_count); FIELD(tidings_content, user_info);
    FIELD(tidings_content, attachment_count); FIELD(tidings_content, attachments);
    FIELD(tidings_notification, struct_size); FIELD(tidings_notification, identifier);
    FIELD(tidings_notification, date); FIELD(tidings_notification, content);
    FIELD(tidings_response, struct_size); FIELD(tidings_response, action_identifier);
    FIELD(tidings_response, user_text); FIELD(tidings_response, notification);
    FIELD(tidings_action, struct_size); FIELD(tidings_action, options); FIELD(tidings_action, identifier);
    FIELD(tidings_action, title); FIELD(tidings_action, text_input_button_title);
    FIELD(tidings_action, text_input_placeholder);
    FIELD(tidings_media_button, struct_size); FIELD(tidings_media_button, type); FIELD(tidings_media_button, frame);
    FIELD(tidings_media_button, tint_color);
    FIELD(tidings_host, struct_size); FIELD(tidings_host, abi_version); FIELD(tidings_host, name);
    FIELD(tidings_host, version); FIELD(tidings_host, log); FIELD(tidings_host, set_text);
    FIELD(tidings_host, set_text_color); FIELD(tidings_host, set_image); FIELD(tidings_host, set_hidden);
    FIELD(tidings_host, set_preferred_content_height); FIELD(tidings_host, set_title);
    FIELD(tidings_host, set_actions); FIELD(tidings_host, set_media_button);
    FIELD(tidings_host, media_playing_started); FIELD(tidings_host, media_playing_paused);
    FIELD(tidings_host, perform_default_action); FIELD(tidings_host, dismiss); FIELD(tidings_host, complete_response);
    FIELD(tidings_extension, struct_size); FIELD(tidings_extension, abi_version); FIELD(tidings_extension, create);
    FIELD(tidings_extension, destroy); FIELD(tidings_extension, did_receive_notification);
    FIELD(tidings_extension, did_receive_response); FIELD(tidings_extension, media_play);
    FIELD(tidings_extension, media_pause);
    printf("constants %d %d %d %u %u %u %d %d %d\n", TIDINGS_RESPONSE_DO_NOT_DISMISS, TIDINGS_RESPONSE_DISMISS,
           TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION, TIDINGS_ACTION_AUTHENTICATION_REQUIRED,
           TIDINGS_ACTION_DESTRUCTIVE, TIDINGS_ACTION_FOREGROUND, TIDINGS_MEDIA_BUTTON_NONE,
           TIDINGS_MEDIA_BUTTON_DEFAULT, TIDINGS_MEDIA_BUTTON_OVERLAY);
    printf("identifiers %s %s %s\n", TIDINGS_ENTRY_SYMBOL, TIDINGS_DEFAULT_ACTION_IDENTIFIER,
           TIDINGS_DISMISS_ACTION_IDENTIFIER);
#if TIDINGS_ABI_VERSION >= 2
    FIELD(tidings_attachment, size); FIELD(tidings_attachment, thumbnail_hidden);
    FIELD(tidings_attachment, thumbnail_clipping_rect); FIELD(tidings_attachment, thumbnail_time);
    FIELD(tidings_attachment_request, struct_size); FIELD(tidings_attachment_request, thumbnail_hidden);
    FIELD(tidings_attachment_request, identifier); FIELD(tidings_attachment_request, url);
    FIELD(tidings_attachment_request, type_hint); FIELD(tidings_attachment_request, thumbnail_clipping_rect);
    FIELD(tidings_attachment_request, thumbnail_time);
    FIELD(tidings_attachment_result, struct_size); FIELD(tidings_attachment_result, error);
    FIELD(tidings_attachment_result, identifier); FIELD(tidings_attachment_result, identifier_capacity);
    FIELD(tidings_attachment_result, type); FIELD(tidings_attachment_result, size);
    FIELD(tidings_host, complete_request); FIELD(tidings_host, create_attachment); FIELD(tidings_host, open_attachment);
    FIELD(tidings_extension, did_receive_request); FIELD(tidings_extension, service_extension_time_will_expire);
    printf("v2 statuses %d %d\n", TIDINGS_STATUS_INVALID_ATTACHMENT, TIDINGS_STATUS_NOT_SUPPORTED);
    printf("v2 attachment errors %d %d %d %d %d %d\n", TIDINGS_ATTACHMENT_INVALID_URL,
           TIDINGS_ATTACHMENT_UNRECOGNIZED_TYPE, TIDINGS_ATTACHMENT_INVALID_FILE_SIZE,
           TIDINGS_ATTACHMENT_NOT_IN_DATA_STORE, TIDINGS_ATTACHMENT_MOVE_INTO_DATA_STORE_FAILED,
           TIDINGS_ATTACHMENT_CORRUPT);
#endif
#if TIDINGS_ABI_VERSION >= 3
    FIELD(tidings_host, get_interface); FIELD(tidings_host, complete_response_for);
    FIELD(tidings_host, complete_request_for); FIELD(tidings_host, get_actions);
    FIELD(tidings_extension, get_interface);
    FIELD(tidings_entry_info, struct_size); FIELD(tidings_entry_info, host_abi_version);
    FIELD(tidings_entry_info, host); FIELD(tidings_entry_info, bundle_path);
    FIELD(tidings_limits_interface, struct_size); FIELD(tidings_limits_interface, max_identifier_bytes);
    FIELD(tidings_limits_interface, max_text_bytes); FIELD(tidings_limits_interface, max_title_bytes);
    FIELD(tidings_limits_interface, max_log_bytes); FIELD(tidings_limits_interface, max_url_bytes);
    FIELD(tidings_limits_interface, max_user_info_value_bytes); FIELD(tidings_limits_interface, max_entries);
    FIELD(tidings_limits_interface, max_actions); FIELD(tidings_limits_interface, calls_per_second);
    FIELD(tidings_limits_interface, call_burst);
    printf("v3 identifiers %s %s\n", TIDINGS_ENTRY_V3_SYMBOL, TIDINGS_LIMITS_INTERFACE);
    printf("v3 sizes %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\n",
           TIDINGS_USER_INFO_ENTRY_SIZE_V1, TIDINGS_ATTACHMENT_SIZE_V1, TIDINGS_ATTACHMENT_SIZE_V2,
           TIDINGS_CONTENT_SIZE_V1, TIDINGS_NOTIFICATION_SIZE_V1, TIDINGS_RESPONSE_SIZE_V1, TIDINGS_ACTION_SIZE_V1,
           TIDINGS_ATTACHMENT_REQUEST_SIZE_V2, TIDINGS_ATTACHMENT_RESULT_SIZE_V2, TIDINGS_MEDIA_BUTTON_SIZE_V1,
           TIDINGS_HOST_SIZE_V1, TIDINGS_HOST_SIZE_V2, TIDINGS_HOST_SIZE_V3, TIDINGS_EXTENSION_SIZE_V1,
           TIDINGS_EXTENSION_SIZE_V2, TIDINGS_EXTENSION_SIZE_V3, TIDINGS_ENTRY_INFO_SIZE_V3);
    printf("v3 limits %d %d %d %d %d %d %d %zu\n", TIDINGS_MAX_IDENTIFIER_BYTES, TIDINGS_MAX_TEXT_BYTES,
           TIDINGS_MAX_TITLE_BYTES, TIDINGS_MAX_LOG_BYTES, TIDINGS_MAX_URL_BYTES, TIDINGS_MAX_USER_INFO_VALUE_BYTES,
           TIDINGS_MAX_ENTRIES, TIDINGS_LIMITS_INTERFACE_SIZE_1);
#endif
    return 0;
}
