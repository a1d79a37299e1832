/*
 * An extension that keeps a ledger per instance, so that tests can tell
 * which instance a notification or a response reached.
 *
 * Each instance has a name of its own ("N@T": its number in the process and
 * the monotonic clock when it was made) and remembers the identifier of
 * every notification it received.
 *
 * did_receive_notification writes the name to label "instance" and the
 * notification's identifier to label "received". First, by userInfo:
 *   "milliseconds"  sleeps that long (a slow extension)
 *   "gate"          waits until that path exists (at most 30 s)
 *
 * Built with -DLEDGER_BUILD='"TEXT"', the name ends in " build TEXT": two
 * builds of the library tell apart which of them an instance ran.
 *
 * did_receive_response writes "IDENTIFIER seen by NAME" to label
 * "response" when this instance received that notification, and completes
 * with DO_NOT_DISMISS for action "keep", DISMISS for any other. A response
 * to a notification this instance never received (it went astray) writes
 * "IDENTIFIER unseen by NAME" and completes with DISMISS_AND_FORWARD_ACTION,
 * which tells it apart in the response's own outcome even when responses to
 * thread-mates, sharing the view, overlap.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tidings.h"

#ifndef LEDGER_BUILD
#define LEDGER_BUILD NULL
#endif

static const tidings_host *host;
static int created;
static const char *const build = LEDGER_BUILD;

typedef struct ledger {
    tidings_context context;
    char name[64];
    char **received;
    size_t count, capacity;
} ledger;

static void pause_for(long milliseconds) {
    struct timespec pause;
    pause.tv_sec = milliseconds / 1000;
    pause.tv_nsec = (milliseconds % 1000) * 1000000L;
    nanosleep(&pause, NULL);
}

static void *create(tidings_context context) {
    struct timespec now;
    ledger *self = calloc(1, sizeof *self);
    if (self == NULL) return NULL;
    self->context = context;
    clock_gettime(CLOCK_MONOTONIC, &now);
    snprintf(self->name, sizeof self->name, "%d@%lld.%09ld%s%s", __atomic_add_fetch(&created, 1, __ATOMIC_SEQ_CST),
             (long long)now.tv_sec, now.tv_nsec, build == NULL ? "" : " build ", build == NULL ? "" : build);
    return self;
}

static void destroy(void *instance) {
    ledger *self = instance;
    size_t i;
    for (i = 0; i < self->count; i++) free(self->received[i]);
    free(self->received);
    free(self);
}

static void remember(ledger *self, const char *identifier) {
    if (self->count == self->capacity) {
        size_t capacity = self->capacity == 0 ? 64 : self->capacity * 2;
        char **grown = realloc(self->received, capacity * sizeof *grown);
        if (grown == NULL) return;
        self->received = grown;
        self->capacity = capacity;
    }
    self->received[self->count] = strdup(identifier);
    if (self->received[self->count] != NULL) self->count++;
}

static int has_received(const ledger *self, const char *identifier) {
    size_t i;
    for (i = 0; i < self->count; i++) {
        if (strcmp(self->received[i], identifier) == 0) return 1;
    }
    return 0;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    ledger *self = instance;
    const tidings_content *content = notification->content;
    size_t i;
    for (i = 0; i < content->user_info_count; i++) {
        const char *key = content->user_info[i]->key, *value = content->user_info[i]->string_value;
        if (value == NULL) continue;
        if (strcmp(key, "gate") == 0) {
            int waited;
            for (waited = 0; waited < 30000 && access(value, F_OK) != 0; waited++) pause_for(1);
        } else if (strcmp(key, "milliseconds") == 0) {
            pause_for(atol(value));
        }
    }
    remember(self, notification->identifier);
    host->set_text(self->context, "instance", self->name);
    host->set_text(self->context, "received", notification->identifier);
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    ledger *self = instance;
    const char *identifier = response->notification->identifier;
    int seen = has_received(self, identifier);
    char text[256];
    snprintf(text, sizeof text, "%s %s by %s", identifier, seen ? "seen" : "unseen", self->name);
    host->set_text(self->context, "response", text);
    if (!seen) {
        host->complete_response(completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
    } else if (strcmp(response->action_identifier, "keep") == 0) {
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
    } else {
        host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
    }
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = TIDINGS_ABI_VERSION,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .did_receive_response = did_receive_response,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    (void)host_abi_version;
    host = table;
    return &descriptor;
}
