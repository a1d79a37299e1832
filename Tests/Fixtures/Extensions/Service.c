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
 *   attach-own-later   writes a PNG of its own in $TMPDIR, attaches it and returns
 *                  without completing; time-will-expire opens the attachment and
 *                  completes with the title "opened later: readable" (or "unreadable")
 *   block          stays in did_receive_request until time-will-expire has come (at
 *                  most 10 s); time-will-expire completes with the title "expired while
 *                  the request ran" (or "expired after the request returned")
 *   slow           sleeps userInfo "milliseconds" in did_receive_request, then completes
 *                  with the title "slow but done"
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
    char made[64];           /* the identifier of the attachment it made */
    pthread_mutex_t lock;
    pthread_cond_t expired;  /* signalled by time-will-expire */
    int running;             /* did_receive_request has not returned */
    int has_expired;
} service;

/* A 1×1 PNG. */
static const unsigned char png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x00, 0x02, 0x00, 0x00, 0x05, 0x00, 0x01, 0x7A, 0x5E, 0xAB, 0x3F, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

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
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->expired, NULL);
    return self;
}

static void destroy(void *instance) {
    service *self = instance;
    pthread_cond_destroy(&self->expired);
    pthread_mutex_destroy(&self->lock);
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
    pthread_mutex_lock(&self->lock);
    self->running = 1;
    pthread_mutex_unlock(&self->lock);
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
    } else if (strcmp(self->mode, "attach-own-later") == 0) {
        const char *directory = getenv("TMPDIR");
        char path[512];
        FILE *file;
        snprintf(path, sizeof path, "%s/own.png", directory != NULL ? directory : "/tmp");
        file = fopen(path, "wb");
        if (file != NULL) {
            fwrite(png, 1, sizeof png, file);
            fclose(file);
        }
        {
            tidings_attachment_request attachment = {
                .struct_size = sizeof(tidings_attachment_request), .identifier = "own", .url = path, .thumbnail_time = -1};
            tidings_attachment_result result = {
                .struct_size = sizeof(tidings_attachment_result), .identifier = self->made,
                .identifier_capacity = sizeof self->made};
            host->create_attachment(self->context, &attachment, &result);
        }
    } else if (strcmp(self->mode, "block") == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        pthread_mutex_lock(&self->lock);
        while (!self->has_expired) {
            if (pthread_cond_timedwait(&self->expired, &self->lock, &until) != 0) break;
        }
        pthread_mutex_unlock(&self->lock);
    } else if (strcmp(self->mode, "slow") == 0) {
        const char *milliseconds = user_info(content, "milliseconds");
        long wait = milliseconds != NULL ? atol(milliseconds) : 0;
        struct timespec pause = {wait / 1000, (wait % 1000) * 1000000L};
        nanosleep(&pause, NULL);
        complete_with_title(completion, content, "slow but done", 1);
    }
    /* never, expire, too-late, attach-own-later, block: nothing yet. */
    pthread_mutex_lock(&self->lock);
    self->running = 0;
    pthread_mutex_unlock(&self->lock);
}

static void time_will_expire(void *instance) {
    service *self = instance;
    host->log(self->context, TIDINGS_LOG_INFO, "time will expire");
    if (strcmp(self->mode, "expire") == 0) {
        complete_with_title(self->completion, &self->content, "Best attempt", 0);
    } else if (strcmp(self->mode, "too-late") == 0) {
        later(self->completion, 1000);
    } else if (strcmp(self->mode, "attach-own-later") == 0) {
        int descriptor = host->open_attachment(self->context, self->made);
        char first = 0;
        int readable = descriptor >= 0 && read(descriptor, &first, 1) == 1;
        if (descriptor >= 0) close(descriptor);
        complete_with_title(self->completion, &self->content, readable ? "opened later: readable" : "opened later: unreadable",
                            0);
    } else if (strcmp(self->mode, "block") == 0) {
        int running;
        pthread_mutex_lock(&self->lock);
        running = self->running;
        self->has_expired = 1;
        pthread_cond_signal(&self->expired);
        pthread_mutex_unlock(&self->lock);
        complete_with_title(self->completion, &self->content,
                            running ? "expired while the request ran" : "expired after the request returned", 0);
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
