/*
 * A hostile content extension that floods its view: did_receive_notification
 * starts a thread that calls set_text on label "text" in a loop, with the
 * texts "1", "2", …, as fast as the host lets it — a call refused with
 * TIDINGS_STATUS_RATE_LIMITED by the host-call rate is made again a
 * millisecond later, so that the loop stays under that rate (it is no call
 * storm) and floods only what the host shows.
 *
 * The notification's userInfo "calls" (a string) is how many texts it sets,
 * ending with the text of that number, eight at a time with a millisecond's
 * rest after each eight (as an extension that animates too fast would: its
 * changes come spread out, not in one burst the host sees as one);
 * "0" (or none) floods without rest until the host refuses it for good
 * (TIDINGS_STATUS_INVALID_CONTEXT: an instance judged abusive) or ends its
 * worker. ViewChangeServerTests delivers it.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct flood {
    tidings_context context;
    long calls;
} flood;

static void *create(tidings_context context) {
    flood *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy(void *instance) {
    /* The thread works on its own copy; its context is answered INVALID_CONTEXT once the instance is gone. */
    free(instance);
}

static void *run(void *argument) {
    flood *work = argument;
    struct timespec pause = {0, 1000000L};
    char text[32];
    long i = 1;
    while (work->calls == 0 || i <= work->calls) {
        snprintf(text, sizeof text, "%ld", i);
        tidings_status status = host->set_text(work->context, "text", text);
        if (status == TIDINGS_STATUS_OK) {
            if (work->calls != 0 && i % 8 == 0) nanosleep(&pause, NULL);
            i++;
        } else if (status == TIDINGS_STATUS_RATE_LIMITED) {
            nanosleep(&pause, NULL);
        } else {
            break;
        }
    }
    free(work);
    return NULL;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    flood *self = instance;
    const tidings_content *content = notification->content;
    flood *work = malloc(sizeof *work);
    pthread_t thread;
    pthread_attr_t attributes;
    size_t i;
    if (work == NULL) return;
    work->context = self->context;
    work->calls = 0;
    for (i = 0; i < content->user_info_count; i++) {
        const tidings_user_info_entry *entry = content->user_info[i];
        if (strcmp(entry->key, "calls") == 0 && entry->string_value != NULL) work->calls = atol(entry->string_value);
    }
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attributes, run, work) != 0) free(work);
    pthread_attr_destroy(&attributes);
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    if (host_abi_version < 1 || table == NULL) return NULL;
    host = table;
    return &descriptor;
}
