/*
 * BuildStatus: a content extension in plain C99, using only tidings.h.
 *
 * It shows a CI build's result for notifications of category "build-status":
 * the project and branch, the status in green or red, and the duration, all
 * from userInfo. It overrides the header title with the project's name, and
 * when the build failed it replaces the category's actions with "Retry" and
 * "Open log". "Mute" keeps the notification on screen (doNotDismiss) and says
 * so; "Retry" and "Open log" close it and forward the action to the app.
 *
 * Build it anywhere with:  cc -std=c99 -shared -fPIC -I<include dir> BuildStatus.c -o libBuildStatus.so
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct build_status {
    tidings_context context;
    int muted;
} build_status;

/* The string value of a userInfo entry, or `fallback`. */
static const char *user_info(const tidings_content *content, const char *key, const char *fallback) {
    size_t i;
    for (i = 0; i < content->user_info_count; i++) {
        const tidings_user_info_entry *entry = content->user_info[i];
        if (strcmp(entry->key, key) == 0 && entry->string_value != NULL) {
            return entry->string_value;
        }
    }
    return fallback;
}

static void *create(tidings_context context) {
    build_status *self = calloc(1, sizeof *self);
    if (self != NULL) {
        self->context = context;
    }
    return self;
}

static void destroy(void *instance) {
    free(instance);
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    build_status *self = instance;
    const tidings_content *content = notification->content;
    const char *project = user_info(content, "project", content->title);
    const char *status = user_info(content, "status", "unknown");
    int passed = strcmp(status, "passed") == 0;
    char line[256];

    snprintf(line, sizeof line, "CI · %s", project);
    host->set_title(self->context, line);

    snprintf(line, sizeof line, "%s on %s", project, user_info(content, "branch", "main"));
    host->set_text(self->context, "project", line);

    snprintf(line, sizeof line, "Build %s", status);
    host->set_text(self->context, "status", line);
    host->set_text_color(self->context, "status",
                         passed ? TIDINGS_RGBA(0x34, 0xC7, 0x59, 0xFF) : TIDINGS_RGBA(0xFF, 0x3B, 0x30, 0xFF));

    snprintf(line, sizeof line, "Took %s", user_info(content, "duration", "?"));
    host->set_text(self->context, "details", line);
    host->set_preferred_content_height(self->context, 96);

    if (!passed) {
        static const tidings_action retry = {
            .struct_size = sizeof(tidings_action), .options = TIDINGS_ACTION_FOREGROUND,
            .identifier = "retry", .title = "Retry"};
        static const tidings_action open_log = {
            .struct_size = sizeof(tidings_action), .options = TIDINGS_ACTION_FOREGROUND,
            .identifier = "open-log", .title = "Open log"};
        static const tidings_action mute = {.struct_size = sizeof(tidings_action), .identifier = "mute", .title = "Mute"};
        const tidings_action *actions[3];
        actions[0] = &retry;
        actions[1] = &open_log;
        actions[2] = &mute;
        host->set_actions(self->context, actions, 3);
    }
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    build_status *self = instance;
    if (strcmp(response->action_identifier, "mute") == 0) {
        self->muted = 1;
        host->set_text(self->context, "details", "Muted: no more notifications for this branch today.");
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
        return;
    }
    if (strcmp(response->action_identifier, TIDINGS_DISMISS_ACTION_IDENTIFIER) == 0) {
        host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
        return;
    }
    /* retry, open-log, the default action: the app does the work. */
    host->log(self->context, TIDINGS_LOG_INFO, "forwarding the action to the app");
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
}

/* Version 1 is all this extension uses; media and service functions stay NULL. */
static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .did_receive_response = did_receive_response,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    if (host_abi_version < 1 || table == NULL || !TIDINGS_HAS_FIELD(table, tidings_host, complete_response)) {
        return NULL;
    }
    host = table;
    return &descriptor;
}
