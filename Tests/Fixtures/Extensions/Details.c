/*
 * A content extension that reads each notification's content details
 * through the host's "tidings.content/1" interface and logs them in one
 * line: "critical=C volume=V launch=L summary=S count=N filter=F" ("no
 * details" when the host offers none or does not know the content). It
 * also asks about a content it made itself, which the host must not know:
 * "own=unknown" (or "own=known", a fault).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tidings.h"

static const tidings_host *host;

static void *create(tidings_context context) {
    return context;
}

static void destroy(void *instance) {
    (void)instance;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    tidings_context context = (tidings_context)instance;
    const tidings_content_interface *contents = NULL;
    const tidings_content_details *details = NULL;
    tidings_content own = {.struct_size = sizeof(tidings_content), .title = "", .subtitle = "", .body = "",
                           .category_identifier = "", .thread_identifier = ""};
    char line[1024];
    if (TIDINGS_HAS_FIELD(host, tidings_host, get_interface) && host->get_interface != NULL) {
        contents = (const tidings_content_interface *)host->get_interface(host, TIDINGS_CONTENT_INTERFACE);
    }
    if (contents != NULL && contents->struct_size >= TIDINGS_CONTENT_INTERFACE_SIZE_1) {
        details = contents->get_details(notification->content);
        host->log(context, TIDINGS_LOG_INFO, contents->get_details(&own) == NULL ? "own=unknown" : "own=known");
    }
    if (details == NULL || details->struct_size < TIDINGS_CONTENT_DETAILS_SIZE_1) {
        host->log(context, TIDINGS_LOG_INFO, "no details");
        return;
    }
    snprintf(line, sizeof line, "critical=%d volume=%g launch=%s summary=%s count=%llu filter=%s",
             (int)details->critical_sound, details->sound_volume, details->launch_image_name,
             details->summary_argument, (unsigned long long)details->summary_argument_count,
             details->filter_criteria != NULL ? details->filter_criteria : "(null)");
    host->log(context, TIDINGS_LOG_INFO, line);
}

/* A version 3 extension: it asks for an interface, which hosts before version 3 cannot offer. */
static const tidings_extension descriptor = {.struct_size = sizeof descriptor, .abi_version = 3, .create = create,
                                             .destroy = destroy, .did_receive_notification = did_receive_notification};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry_v3(const tidings_entry_info *info) {
    host = info->host;
    return &descriptor;
}
