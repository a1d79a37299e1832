/*
 * An extension that logs, through host->log, every field of every
 * notification and response it receives, one field per line, so that tests
 * can check what the host marshals into the ABI's structs (an attachment
 * also gives "size=N hidden=H clip=X,Y,W,H time=T"); and "created=N"
 * when it makes its Nth instance. It answers every response at once with
 * DO_NOT_DISMISS.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct echo {
    tidings_context context;
} echo;

static void say(echo *self, const char *name, const char *value) {
    char line[1024];
    snprintf(line, sizeof line, "%s=%s", name, value != NULL ? value : "(null)");
    host->log(self->context, TIDINGS_LOG_INFO, line);
}

static int created;

static void *create(tidings_context context) {
    char number[32];
    echo *self = calloc(1, sizeof *self);
    if (self == NULL) return NULL;
    self->context = context;
    snprintf(number, sizeof number, "%d", ++created);
    say(self, "created", number);
    return self;
}

static void destroy(void *instance) {
    free(instance);
}

static void echo_notification(echo *self, const tidings_notification *notification) {
    const tidings_content *content = notification->content;
    char number[128];
    size_t i;
    say(self, "identifier", notification->identifier);
    snprintf(number, sizeof number, "%.3f", notification->date);
    say(self, "date", number);
    say(self, "title", content->title);
    say(self, "subtitle", content->subtitle);
    say(self, "body", content->body);
    say(self, "category", content->category_identifier);
    say(self, "thread", content->thread_identifier);
    say(self, "target", content->target_content_identifier);
    say(self, "sound", content->sound);
    snprintf(number, sizeof number, "%lld %.2f %d", (long long)content->badge, content->relevance_score,
             (int)content->interruption_level);
    say(self, "badge relevance level", number);
    for (i = 0; i < content->user_info_count; i++) {
        const tidings_user_info_entry *entry = content->user_info[i];
        say(self, "key", entry->key);
        say(self, "json", entry->json);
        say(self, "string", entry->string_value);
    }
    for (i = 0; i < content->attachment_count; i++) {
        const tidings_attachment *attachment = content->attachments[i];
        say(self, "attachment", attachment->identifier);
        say(self, "type", attachment->type);
        say(self, "url", attachment->url);
        if (TIDINGS_HAS_FIELD(attachment, tidings_attachment, thumbnail_time)) {
            char line[160];
            snprintf(line, sizeof line, "%llu hidden=%d clip=%g,%g,%g,%g time=%g",
                     (unsigned long long)attachment->size, (int)attachment->thumbnail_hidden,
                     attachment->thumbnail_clipping_rect.x, attachment->thumbnail_clipping_rect.y,
                     attachment->thumbnail_clipping_rect.width, attachment->thumbnail_clipping_rect.height,
                     attachment->thumbnail_time);
            say(self, "size", line);
        }
    }
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    echo_notification(instance, notification);
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    say(instance, "action", response->action_identifier);
    say(instance, "text", response->user_text);
    echo_notification(instance, response->notification);
    host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
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
