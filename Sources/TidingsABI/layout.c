// Compile-time checks that the released layouts stay frozen on LP64
// platforms: version 1's fields keep their offsets, versions 2 and 3 only append.
// The header is the contract; this file only proves it.
#include "tidings.h"

#if defined(__LP64__)
_Static_assert(sizeof(tidings_rect) == 32, "tidings_rect is fixed");
_Static_assert(offsetof(tidings_host, log) == 24, "tidings_host v1 layout");
_Static_assert(offsetof(tidings_host, complete_response) == 128, "tidings_host v1 layout");
_Static_assert(offsetof(tidings_host, complete_request) == 136, "tidings_host v2 appends after v1");
_Static_assert(TIDINGS_HOST_SIZE_V2 == 160, "tidings_host v2 size");
_Static_assert(offsetof(tidings_host, get_interface) == 160, "tidings_host v3 appends after v2");
_Static_assert(sizeof(tidings_host) == 192, "tidings_host v3 size");
_Static_assert(offsetof(tidings_extension, create) == 8, "tidings_extension v1 layout");
_Static_assert(offsetof(tidings_extension, did_receive_request) == 56, "tidings_extension v2 appends after v1");
_Static_assert(TIDINGS_EXTENSION_SIZE_V2 == 72, "tidings_extension v2 size");
_Static_assert(offsetof(tidings_extension, get_interface) == 72, "tidings_extension v3 appends after v2");
_Static_assert(sizeof(tidings_extension) == 80, "tidings_extension v3 size");
_Static_assert(TIDINGS_EXTENSION_MIN_SIZE == 32, "tidings_extension minimum");
_Static_assert(sizeof(tidings_notification) == 32, "tidings_notification v1 size");
_Static_assert(sizeof(tidings_content) == 112, "tidings_content v1 size");
_Static_assert(sizeof(tidings_response) == 32, "tidings_response v1 size");
_Static_assert(sizeof(tidings_action) == 40, "tidings_action v1 size");
_Static_assert(sizeof(tidings_media_button) == 48, "tidings_media_button v1 size");
_Static_assert(offsetof(tidings_attachment, size) == 32, "tidings_attachment v2 appends after v1");
_Static_assert(sizeof(tidings_attachment) == 88, "tidings_attachment v2 size");
_Static_assert(sizeof(tidings_attachment_request) == 72, "tidings_attachment_request v2 size");
_Static_assert(sizeof(tidings_attachment_result) == 40, "tidings_attachment_result v2 size");
_Static_assert(sizeof(tidings_user_info_entry) == 32, "tidings_user_info_entry v1 size");
_Static_assert(sizeof(tidings_entry_info) == 24, "tidings_entry_info v3 size");
_Static_assert(sizeof(tidings_limits_interface) == 56, "tidings.limits/1 size");
_Static_assert(sizeof(tidings_content_details) == 48, "tidings_content_details size");
_Static_assert(sizeof(tidings_content_interface) == 16, "tidings.content/1 size");
_Static_assert(offsetof(tidings_trigger, time_interval) == 16, "tidings_trigger layout");
_Static_assert(offsetof(tidings_trigger, era) == 24, "tidings_trigger layout");
_Static_assert(offsetof(tidings_trigger, time_zone) == 112, "tidings_trigger layout");
_Static_assert(offsetof(tidings_trigger, latitude) == 128, "tidings_trigger layout");
_Static_assert(offsetof(tidings_trigger, notify_on_entry) == 152, "tidings_trigger layout");
_Static_assert(sizeof(tidings_trigger) == 160, "tidings_trigger size");
_Static_assert(sizeof(tidings_trigger_interface) == 16, "tidings.trigger/1 size");
_Static_assert(sizeof(tidings_elements_interface) == 16, "tidings.elements/1 size");
_Static_assert(sizeof(tidings_text_input_interface) == 24, "tidings.text-input/1 size");
_Static_assert(sizeof(tidings_element_event) == 24, "tidings_element_event size");
_Static_assert(sizeof(tidings_element_events_interface) == 16, "tidings.element-events/1 size");
#endif
