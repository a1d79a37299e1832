/*
 * A content extension that changes its view after it answered, from a
 * thread of its own, as extensions that load something do.
 *
 * did_receive_notification sets label "status" to "loading", then starts a
 * thread that, after 30 ms, sets it to "updated" and the preferred height to
 * 200; then, by the notification's userInfo "then":
 *   "dismiss"  closes the notification (host->dismiss)
 *   "open"     opens the app (host->perform_default_action)
 * did_receive_response answers DISMISS_AND_FORWARD_ACTION at once.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct later {
    tidings_context context;
    char then[16];
} later;

static void *create(tidings_context context) {
    later *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy(void *instance) {
    /* The thread works on its own copy; its context is answered INVALID_CONTEXT once the instance is gone. */
    free(instance);
}

static void *update(void *argument) {
    later *self = argument;
    struct timespec pause = {0, 30 * 1000000L};
    nanosleep(&pause, NULL);
    host->set_text(self->context, "status", "updated");
    host->set_preferred_content_height(self->context, 200);
    if (strcmp(self->then, "dismiss") == 0) {
        host->dismiss(self->context);
    } else if (strcmp(self->then, "open") == 0) {
        host->perform_default_action(self->context);
    }
    free(self);
    return NULL;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    later *self = instance;
    later *work = malloc(sizeof *work);
    pthread_t thread;
    size_t i;
    const tidings_content *content = notification->content;
    host->set_text(self->context, "status", "loading");
    if (work == NULL) return;
    *work = *self;
    work->then[0] = '\0';
    for (i = 0; i < content->user_info_count; i++) {
        if (strcmp(content->user_info[i]->key, "then") == 0 && content->user_info[i]->string_value != NULL) {
            strncpy(work->then, content->user_info[i]->string_value, sizeof work->then - 1);
        }
    }
    if (pthread_create(&thread, NULL, update, work) == 0) {
        pthread_detach(thread);
    } else {
        free(work);
    }
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    (void)instance;
    (void)response;
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .did_receive_response = did_receive_response,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    if (host_abi_version < 1) return NULL;
    host = table;
    return &descriptor;
}
