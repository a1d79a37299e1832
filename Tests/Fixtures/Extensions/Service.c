/*
 * A service extension for tests. What it does with a request depends on the
 * request's userInfo "mode":
 *   rewrite        prefixes the title with "Rewritten: " and completes at once
 *   never          never completes, not even when time runs out
 *   expire         completes only in time-will-expire, with the title "Best attempt"
 *   too-late       in time-will-expire, completes from another thread after 1 s
 *   remove-alert   completes with empty title, subtitle and body
 *   original       completes with NULL: show the original
 *   wrong-function calls complete_response with the request's token, then completes properly
 *   async          completes from another thread after 20 ms
 *   attach         attaches the file named by userInfo "file" (identifier: userInfo
 *                  "identifier", type hint: userInfo "type"), titles the content
 *                  "Attached ID TYPE SIZE readable" (when open_attachment reads it)
 *                  and completes; with userInfo "keep": "no"
 *                  it leaves the attachment out of the content; on failure it logs
 *                  "attachment error CODE" and completes without attachments
 *   attach-then-never  attaches the file named by userInfo "file", then never completes
 * time-will-expire always logs "time will expire".
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct service {
    tidings_context context;
    tidings_completion completion;
    char mode[32];
    tidings_content content; /* the request's content, for a later best attempt */
} service;

static const char *user_info(const tidings_content *content, const char *key) {
    size_t i;
    for (i = 0; i < content->user_info_count; i++) {
        if (strcmp(content->user_info[i]->key, key) == 0) {
            return content->user_info[i]->string_value;
        }
    }
    return NULL;
}

/* Completes with `original` retitled. During did_receive_request the
 * request's pointers are still valid; after it (`borrowed` false) only the
 * strings this file owns are, so userInfo and attachments are left out. */
static void complete_with_title(tidings_completion completion, const tidings_content *original, const char *title,
                                int borrowed) {
    tidings_content changed = *original;
    changed.title = title;
    if (!borrowed) {
        changed.subtitle = "";
        changed.body = "Best attempt body";
        changed.category_identifier = "";
        changed.thread_identifier = "";
        changed.target_content_identifier = NULL;
        changed.sound = NULL;
        changed.user_info_count = 0;
        changed.user_info = NULL;
        changed.attachment_count = 0;
        changed.attachments = NULL;
    }
    host->complete_request(completion, &changed);
}

typedef struct later_work {
    tidings_completion completion;
    long milliseconds;
} later_work;

static void *complete_later(void *argument) {
    later_work *work = argument;
    struct timespec pause;
    static const tidings_content best = {
        .struct_size = sizeof(tidings_content), .title = "Late", .subtitle = "", .body = "Late body",
        .category_identifier = "", .thread_identifier = "", .badge = TIDINGS_BADGE_NONE};
    pause.tv_sec = work->milliseconds / 1000;
    pause.tv_nsec = (work->milliseconds % 1000) * 1000000L;
    nanosleep(&pause, NULL);
    host->complete_request(work->completion, &best);
    free(work);
    return NULL;
}

static void later(tidings_completion completion, long milliseconds) {
    pthread_t thread;
    later_work *work = malloc(sizeof *work);
    work->completion = completion;
    work->milliseconds = milliseconds;
    pthread_create(&thread, NULL, complete_later, work);
    pthread_detach(thread);
}

static void *create(tidings_context context) {
    service *self = calloc(1, sizeof *self);
    self->context = context;
    return self;
}

static void destroy(void *instance) {
    free(instance);
}

static void did_receive_request(void *instance, const tidings_notification *request, tidings_completion completion) {
    service *self = instance;
    const tidings_content *content = request->content;
    const char *mode = user_info(content, "mode");
    char title[256];
    self->completion = completion;
    self->content = *content;
    snprintf(self->mode, sizeof self->mode, "%s", mode ? mode : "rewrite");
    if (strcmp(self->mode, "rewrite") == 0) {
        snprintf(title, sizeof title, "Rewritten: %s", content->title);
        complete_with_title(completion, content, title, 1);
    } else if (strcmp(self->mode, "remove-alert") == 0) {
        tidings_content empty = *content;
        empty.title = "";
        empty.subtitle = "";
        empty.body = "";
        host->complete_request(completion, &empty);
    } else if (strcmp(self->mode, "original") == 0) {
        host->complete_request(completion, NULL);
    } else if (strcmp(self->mode, "wrong-function") == 0) {
        tidings_status status = host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
        snprintf(title, sizeof title, "complete_response said %d", (int)status);
        complete_with_title(completion, content, title, 1);
    } else if (strcmp(self->mode, "async") == 0) {
        later(completion, 20);
    } else if (strcmp(self->mode, "attach-then-never") == 0) {
        tidings_attachment_request attachment = {
            .struct_size = sizeof(tidings_attachment_request), .url = user_info(content, "file"), .thumbnail_time = -1};
        host->create_attachment(self->context, &attachment, NULL);
    } else if (strcmp(self->mode, "attach") == 0) {
        tidings_attachment_request attachment = {
            .struct_size = sizeof(tidings_attachment_request), .identifier = user_info(content, "identifier"),
            .url = user_info(content, "file"), .type_hint = user_info(content, "type"), .thumbnail_time = -1};
        char made[64] = "";
        tidings_attachment_result result = {
            .struct_size = sizeof(tidings_attachment_result), .identifier = made, .identifier_capacity = sizeof made};
        tidings_attachment with = {.struct_size = sizeof(tidings_attachment), .identifier = made, .type = "", .url = ""};
        const tidings_attachment *list[1];
        tidings_content changed = *content;
        const char *keep = user_info(content, "keep");
        if (host->create_attachment(self->context, &attachment, &result) == TIDINGS_STATUS_OK) {
            list[0] = &with;
            /* "keep": "no" creates the attachment but hands back content without it. */
            changed.attachment_count = keep && strcmp(keep, "no") == 0 ? 0 : 1;
            changed.attachments = list;
            int descriptor = host->open_attachment(self->context, made);
            char first = 0;
            int readable = descriptor >= 0 && read(descriptor, &first, 1) == 1;
            if (descriptor >= 0) close(descriptor);
            snprintf(title, sizeof title, "Attached %s %s %llu %s", made, result.type, (unsigned long long)result.size,
                     readable ? "readable" : "unreadable");
            changed.title = title;
        } else {
            snprintf(title, sizeof title, "attachment error %d", (int)result.error);
            host->log(self->context, TIDINGS_LOG_WARNING, title);
            changed.attachment_count = 0;
            changed.attachments = NULL;
        }
        host->complete_request(completion, &changed);
    }
    /* never, expire, too-late: nothing yet. */
}

static void time_will_expire(void *instance) {
    service *self = instance;
    host->log(self->context, TIDINGS_LOG_INFO, "time will expire");
    if (strcmp(self->mode, "expire") == 0) {
        complete_with_title(self->completion, &self->content, "Best attempt", 0);
    } else if (strcmp(self->mode, "too-late") == 0) {
        later(self->completion, 1000);
    }
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 2,
    .create = create,
    .destroy = destroy,
    .did_receive_request = did_receive_request,
    .service_extension_time_will_expire = time_will_expire,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    if (host_abi_version < 2 || !TIDINGS_HAS_FIELD(table, tidings_host, open_attachment)) {
        return NULL;
    }
    host = table;
    return &descriptor;
}
