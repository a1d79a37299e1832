/*
 * The compatibility exerciser: built against each frozen header (Tests/ABI/v1,
 * v2, v3) and against a "future" one (every sized struct one field longer,
 * version 4), it calls every host function its header has, with assertions
 * on the statuses and effects, and answers every call the host makes. Every
 * struct it hands the host lies at the end of a page whose next page is
 * inaccessible, so that a host reading past `struct_size` crashes; beside
 * each struct of its header's size goes an undersized one, which the host
 * must refuse without reading further.
 *
 * Built plain it is a content extension; with -DSERVICE (version 2 and
 * later) a service extension. What went wrong goes where the test reads it:
 *
 *   content  the label "report": "<step>: ok", or "<step>: FAILED ..." with
 *            each failed check, after did_receive_notification ("receive"),
 *            each response ("keep", "reply", "close", "open") and the media
 *            calls ("play", "pause", which set the label "media" too)
 *   service  the title of the content handed back: "exercised: ok" (mode
 *            "exercise") or "expired: ok" (mode "expire", completed in
 *            time-will-expire), else "...: FAILED ...". What the first
 *            request checks after it completed (a repeated completion is
 *            refused), which the host no longer waits for, the second one,
 *            "expire", waits for and counts among its own checks.
 *
 * The content extension's responses, by action identifier:
 *   keep   completes DO_NOT_DISMISS (when another instance lives — one
 *          whose response is under way, or another host's in this process —
 *          a v3 build first tries to complete with that instance's context
 *          and must be refused)
 *   reply  a text-input action: the text must be "hello"; completes DISMISS
 *   close  calls dismiss, completes DO_NOT_DISMISS: the interface closes,
 *          the notification stays
 *   open   calls perform_default_action, completes DO_NOT_DISMISS: the app
 *          gets the default action
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tidings.h"

#if defined(SERVICE) && TIDINGS_ABI_VERSION < 2
#error "A service extension needs version 2 of the header or later."
#endif

/* The version the descriptor declares: the lowest whose functions it uses. */
#if TIDINGS_ABI_VERSION >= 3
#define DECLARED_VERSION 3u
#else
#define DECLARED_VERSION TIDINGS_ABI_VERSION
#endif

static const tidings_host *host;
static uint32_t host_version;
#if TIDINGS_ABI_VERSION >= 3
static const char *bundle_path;
#endif

/* ---- Reporting ------------------------------------------------------------ */

typedef struct report {
    char text[2048];
    int failures;
} report;

static void fail(report *r, const char *what, long got) {
    size_t used = strlen(r->text);
    if (used + 80 < sizeof r->text) {
        snprintf(r->text + used, sizeof r->text - used, " %s (got %ld);", what, got);
    }
    r->failures++;
}

/* Checks that `status` is `expected`. */
#define EXPECT(r, status, expected, what)                                      \
    do {                                                                       \
        long got_ = (long)(status);                                            \
        if (got_ != (long)(expected)) fail((r), (what), got_);                 \
    } while (0)

/* Checks a condition. */
#define CHECK(r, condition, what)                                              \
    do {                                                                       \
        if (!(condition)) fail((r), (what), 0);                                \
    } while (0)

/* "step: ok" or "step: FAILED ..." in `out`. */
static void verdict(const report *r, const char *step, char *out, size_t size) {
    if (r->failures == 0) {
        snprintf(out, size, "%s: ok", step);
    } else {
        snprintf(out, size, "%s: FAILED%s", step, r->text);
    }
}

/* ---- Structs at the end of a page ----------------------------------------- */

/* The pages mapped during one call, unmapped at its end. */
typedef struct placements {
    void *maps[32];
    int count;
    size_t page;
} placements;

/* A copy of the first `size` bytes of `value` ending where an inaccessible
 * page begins: a host that reads one byte beyond `size` crashes. */
static void *place(placements *p, const void *value, size_t size) {
    unsigned char *base;
    if (p->page == 0) p->page = (size_t)sysconf(_SC_PAGESIZE);
    if (p->count == 32) return NULL;
    base = mmap(NULL, 2 * p->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    mprotect(base + p->page, p->page, PROT_NONE);
    p->maps[p->count++] = base;
    memcpy(base + p->page - size, value, size);
    return base + p->page - size;
}

static void unmap_all(placements *p) {
    int i;
    for (i = 0; i < p->count; i++) munmap(p->maps[i], 2 * p->page);
    p->count = 0;
}

/* The first bytes of a struct, for an undersized copy: struct_size and what follows. */
typedef struct undersized {
    uint32_t struct_size;
    uint32_t rest;
} undersized;

static const undersized small = {.struct_size = sizeof(undersized)};

/* A context no host ever gave. */
#define STALE_CONTEXT ((tidings_context)(uintptr_t)0x7)

/* ---- Version 3: interfaces, the bundle, the actions shown ------------------ */

#if TIDINGS_ABI_VERSION >= 3
static int host_has_version_3(void) {
    return host_version >= 3 && TIDINGS_HAS_FIELD(host, tidings_host, get_actions);
}

static void check_interfaces(report *r) {
    const tidings_limits_interface *limits;
    if (!host_has_version_3()) return;
    limits = host->get_interface(host, TIDINGS_LIMITS_INTERFACE);
    CHECK(r, limits != NULL, "get_interface(tidings.limits/1)");
    if (limits != NULL) {
        CHECK(r, limits->struct_size >= TIDINGS_LIMITS_INTERFACE_SIZE_1, "limits size");
        EXPECT(r, limits->max_identifier_bytes, TIDINGS_MAX_IDENTIFIER_BYTES, "limits identifier bytes");
        EXPECT(r, limits->max_actions, 64, "limits actions");
        CHECK(r, limits->calls_per_second > 0 && limits->call_burst > 0, "limits call rate");
    }
    CHECK(r, host->get_interface(host, "com.example.nobody/1") == NULL, "get_interface(unknown)");
    CHECK(r, host->get_interface(host, NULL) == NULL, "get_interface(NULL)");
}

static void check_bundle(report *r) {
    char path[1024];
    FILE *file;
    if (!host_has_version_3()) return;
    CHECK(r, bundle_path != NULL, "bundle path given");
    if (bundle_path == NULL) return;
    snprintf(path, sizeof path, "%s/Info.plist", bundle_path);
    file = fopen(path, "r");
    CHECK(r, file != NULL, "the bundle's Info.plist opens");
    if (file != NULL) fclose(file);
}

/* What a get_actions receiver saw. */
typedef struct seen_actions {
    size_t count;
    char first[64];
    char last[64];
    int calls;
    tidings_status nested; /* a host call made from inside the receiver */
    tidings_context context;
} seen_actions;

static void receive_actions(void *user_data, const tidings_action *const *actions, size_t count) {
    seen_actions *seen = user_data;
    seen->calls++;
    seen->count = count;
    if (count > 0) {
        snprintf(seen->first, sizeof seen->first, "%s", actions[0]->identifier);
        snprintf(seen->last, sizeof seen->last, "%s", actions[count - 1]->identifier);
    }
    /* No lock is held: a host call from here returns. */
    seen->nested = host->set_hidden(seen->context, "media", 0);
}

/* The interface this extension offers, which the loader's tests ask for. */
typedef struct exerciser_interface {
    uint32_t struct_size;
    uint32_t answer;
    int32_t (*twice)(int32_t value);
} exerciser_interface;

static int32_t twice(int32_t value) {
    return 2 * value;
}

static const exerciser_interface offered = {.struct_size = sizeof(exerciser_interface), .answer = 42, .twice = twice};

static const void *get_interface(const char *id) {
    if (id != NULL && strcmp(id, "com.example.exerciser/1") == 0) return &offered;
    return NULL;
}
#endif

#ifndef SERVICE
/* ---- The content extension --------------------------------------------------- */

typedef struct instance {
    tidings_context context;
} instance;

/* The contexts of the live instances, so that one may try another's completion. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static tidings_context live[16];

static void *create(tidings_context context) {
    instance *self = calloc(1, sizeof *self);
    int i;
    if (self == NULL) return NULL;
    self->context = context;
    pthread_mutex_lock(&live_lock);
    for (i = 0; i < 16; i++) {
        if (live[i] == NULL) {
            live[i] = context;
            break;
        }
    }
    pthread_mutex_unlock(&live_lock);
    return self;
}

static void destroy(void *pointer) {
    instance *self = pointer;
    int i;
    pthread_mutex_lock(&live_lock);
    for (i = 0; i < 16; i++) {
        if (live[i] == self->context) live[i] = NULL;
    }
    pthread_mutex_unlock(&live_lock);
    free(self);
}

#if TIDINGS_ABI_VERSION >= 3
/* Another live instance's context, or NULL. */
static tidings_context another(tidings_context mine) {
    tidings_context found = NULL;
    int i;
    pthread_mutex_lock(&live_lock);
    for (i = 0; i < 16 && found == NULL; i++) {
        if (live[i] != NULL && live[i] != mine) found = live[i];
    }
    pthread_mutex_unlock(&live_lock);
    return found;
}
#endif

#if TIDINGS_ABI_VERSION >= 3
/* Checks the actions shown: `count` of them, from `first` to `last`. */
static void check_actions(report *r, tidings_context context, size_t count, const char *first, const char *last) {
    seen_actions seen;
    if (!host_has_version_3()) return;
    memset(&seen, 0, sizeof seen);
    seen.context = context;
    EXPECT(r, host->get_actions(context, receive_actions, &seen), TIDINGS_STATUS_OK, "get_actions");
    EXPECT(r, seen.calls, 1, "get_actions receiver calls");
    EXPECT(r, seen.count, count, "get_actions count");
    EXPECT(r, seen.nested, TIDINGS_STATUS_OK, "a host call from the receiver");
    if (count > 0) {
        CHECK(r, strcmp(seen.first, first) == 0, "get_actions first");
        CHECK(r, strcmp(seen.last, last) == 0, "get_actions last");
    }
    EXPECT(r, host->get_actions(STALE_CONTEXT, receive_actions, &seen), TIDINGS_STATUS_INVALID_CONTEXT,
           "get_actions(stale)");
    EXPECT(r, seen.calls, 1, "no receiver call for a stale context");
    EXPECT(r, host->get_actions(context, NULL, NULL), TIDINGS_STATUS_INVALID_ARGUMENT, "get_actions(NULL)");
}

#endif

/* Completes a response with `option` through the function the host's version offers. */
static tidings_status complete_response(tidings_context context, tidings_completion completion,
                                        tidings_response_option option) {
#if TIDINGS_ABI_VERSION >= 3
    if (host_has_version_3()) return host->complete_response_for(context, completion, option);
#endif
    (void)context;
    return host->complete_response(completion, option);
}

/* set_actions with actions of this header's size at page ends, an
 * undersized one, and an empty list; leaves the category's four shown again
 * (keep, reply, close, open), set by the extension. */
static void exercise_actions(report *r, tidings_context context) {
    placements p = {{0}, 0, 0};
    tidings_action first = {.struct_size = sizeof(tidings_action), .options = TIDINGS_ACTION_FOREGROUND,
                            .identifier = "first", .title = "First"};
    tidings_action second = {.struct_size = sizeof(tidings_action), .identifier = "second", .title = "Second",
                             .text_input_button_title = "Send", .text_input_placeholder = "Say something"};
    tidings_action keep = {.struct_size = sizeof(tidings_action), .identifier = "keep", .title = "Keep"};
    tidings_action reply = {.struct_size = sizeof(tidings_action), .identifier = "reply", .title = "Reply",
                            .text_input_button_title = "Send", .text_input_placeholder = "Your answer"};
    tidings_action close_action = {.struct_size = sizeof(tidings_action), .options = TIDINGS_ACTION_DESTRUCTIVE,
                                   .identifier = "close", .title = "Close"};
    tidings_action open = {.struct_size = sizeof(tidings_action), .options = TIDINGS_ACTION_FOREGROUND,
                           .identifier = "open", .title = "Open"};
    const tidings_action *list[2];
    const tidings_action *category[4];
    const tidings_action *bad[1];
    list[0] = place(&p, &first, sizeof first);
    list[1] = place(&p, &second, sizeof second);
    category[0] = place(&p, &keep, sizeof keep);
    category[1] = place(&p, &reply, sizeof reply);
    category[2] = place(&p, &close_action, sizeof close_action);
    category[3] = place(&p, &open, sizeof open);
    bad[0] = place(&p, &small, sizeof small);
    EXPECT(r, host->set_actions(context, bad, 1), TIDINGS_STATUS_INVALID_ARGUMENT, "set_actions(undersized)");
    EXPECT(r, host->set_actions(context, NULL, 1), TIDINGS_STATUS_INVALID_ARGUMENT, "set_actions(NULL, 1)");
    EXPECT(r, host->set_actions(context, list, 0), TIDINGS_STATUS_OK, "set_actions(none)");
#if TIDINGS_ABI_VERSION >= 3
    check_actions(r, context, 0, "", "");
#endif
    EXPECT(r, host->set_actions(context, list, 2), TIDINGS_STATUS_OK, "set_actions");
#if TIDINGS_ABI_VERSION >= 3
    check_actions(r, context, 2, "first", "second");
#endif
    EXPECT(r, host->set_actions(context, category, 4), TIDINGS_STATUS_OK, "set_actions(the category's)");
    unmap_all(&p);
}

static void exercise_media_button(report *r, tidings_context context) {
    placements p = {{0}, 0, 0};
    tidings_media_button button = {.struct_size = sizeof(tidings_media_button), .type = TIDINGS_MEDIA_BUTTON_OVERLAY,
                                   .frame = {0, 0, 44, 44}, .tint_color = TIDINGS_RGBA(255, 255, 255, 255)};
    tidings_media_button odd = button;
    odd.type = 7;
    EXPECT(r, host->set_media_button(context, place(&p, &small, sizeof small)), TIDINGS_STATUS_INVALID_ARGUMENT,
           "set_media_button(undersized)");
    EXPECT(r, host->set_media_button(context, place(&p, &odd, sizeof odd)), TIDINGS_STATUS_INVALID_ARGUMENT,
           "set_media_button(type 7)");
    EXPECT(r, host->set_media_button(context, NULL), TIDINGS_STATUS_INVALID_ARGUMENT, "set_media_button(NULL)");
    EXPECT(r, host->set_media_button(context, place(&p, &button, sizeof button)), TIDINGS_STATUS_OK,
           "set_media_button");
    unmap_all(&p);
}

#if TIDINGS_ABI_VERSION >= 2
/* A content extension may open its attachments, and may not create any. */
static void exercise_attachments(report *r, tidings_context context, const tidings_content *content) {
    placements p = {{0}, 0, 0};
    char made[16] = "x";
    tidings_attachment_request request = {.struct_size = sizeof(tidings_attachment_request), .url = "/dev/null",
                                           .thumbnail_time = -1};
    tidings_attachment_result result = {.struct_size = sizeof(tidings_attachment_result), .error = 99,
                                        .identifier = made, .identifier_capacity = sizeof made, .size = 7};
    tidings_attachment_result *placed = place(&p, &result, sizeof result);
    EXPECT(r, host->create_attachment(context, place(&p, &request, sizeof request), placed),
           TIDINGS_STATUS_NOT_SUPPORTED, "create_attachment in a content extension");
    if (placed != NULL) {
        EXPECT(r, placed->error, 0, "result error");
        EXPECT(r, placed->size, 0, "result size");
        CHECK(r, made[0] == '\0', "result identifier emptied");
        CHECK(r, placed->type != NULL && placed->type[0] == '\0', "result type empty");
    }
    EXPECT(r, host->open_attachment(context, "missing"), -1, "open_attachment(missing)");
    EXPECT(r, host->open_attachment(STALE_CONTEXT, "photo"), -1, "open_attachment(stale)");
    if (content->attachment_count > 0) {
        const tidings_attachment *attachment = content->attachments[0];
        int descriptor = host->open_attachment(context, attachment->identifier);
        unsigned char magic[4] = {0};
        CHECK(r, descriptor >= 0, "open_attachment");
        if (descriptor >= 0) {
            CHECK(r, read(descriptor, magic, 4) == 4 && magic[1] == 'P' && magic[2] == 'N', "the attachment reads");
            close(descriptor);
        }
        CHECK(r, TIDINGS_HAS_FIELD(attachment, tidings_attachment, thumbnail_time), "the host's attachment is v2");
        CHECK(r, attachment->size > 0, "the attachment's size");
        CHECK(r, attachment->thumbnail_time < 0, "the attachment's default thumbnail time");
    }
    unmap_all(&p);
}
#endif

static void did_receive_notification(void *pointer, const tidings_notification *notification) {
    instance *self = pointer;
    tidings_context context = self->context;
    const tidings_content *content = notification->content;
    report r;
    char text[2200];
    memset(&r, 0, sizeof r);
    host->log(NULL, TIDINGS_LOG_DEBUG, "exerciser: a line of no instance");
    host->log(context, TIDINGS_LOG_INFO, "exerciser: received");
#if TIDINGS_ABI_VERSION >= 3
    check_interfaces(&r);
    check_bundle(&r);
    /* Before set_actions: the category's. */
    check_actions(&r, context, 4, "keep", "open");
#endif
    EXPECT(&r, host->set_text(context, "title", content->title), TIDINGS_STATUS_OK, "set_text");
    EXPECT(&r, host->set_text(context, "nowhere", "x"), TIDINGS_STATUS_NO_SUCH_ELEMENT, "set_text(unknown)");
    EXPECT(&r, host->set_text(context, NULL, "x"), TIDINGS_STATUS_INVALID_ARGUMENT, "set_text(NULL)");
    EXPECT(&r, host->set_text(STALE_CONTEXT, "title", "x"), TIDINGS_STATUS_INVALID_CONTEXT, "set_text(stale)");
    EXPECT(&r, host->set_text_color(context, "title", TIDINGS_RGBA(255, 0, 0, 255)), TIDINGS_STATUS_OK,
           "set_text_color");
    EXPECT(&r, host->set_text_color(context, "picture", TIDINGS_RGBA(255, 0, 0, 255)),
           TIDINGS_STATUS_WRONG_ELEMENT_KIND, "set_text_color(image)");
    EXPECT(&r, host->set_image(context, "picture", NULL), TIDINGS_STATUS_OK, "set_image(NULL)");
    EXPECT(&r, host->set_image(context, "picture", "missing"), TIDINGS_STATUS_NO_SUCH_ATTACHMENT, "set_image(missing)");
    if (content->attachment_count > 0) {
        EXPECT(&r, host->set_image(context, "picture", content->attachments[0]->identifier), TIDINGS_STATUS_OK,
               "set_image");
    }
    EXPECT(&r, host->set_hidden(context, "media", true), TIDINGS_STATUS_OK, "set_hidden");
    EXPECT(&r, host->set_hidden(context, "media", false), TIDINGS_STATUS_OK, "set_hidden(false)");
    EXPECT(&r, host->set_preferred_content_height(context, 240), TIDINGS_STATUS_OK, "set_preferred_content_height");
    EXPECT(&r, host->set_preferred_content_height(context, -1), TIDINGS_STATUS_INVALID_ARGUMENT,
           "set_preferred_content_height(-1)");
    EXPECT(&r, host->set_title(context, "Exercised"), TIDINGS_STATUS_OK, "set_title");
    exercise_actions(&r, context);
    exercise_media_button(&r, context);
    EXPECT(&r, host->media_playing_started(context), TIDINGS_STATUS_OK, "media_playing_started");
    EXPECT(&r, host->media_playing_paused(context), TIDINGS_STATUS_OK, "media_playing_paused");
    EXPECT(&r, host->media_playing_started(STALE_CONTEXT), TIDINGS_STATUS_INVALID_CONTEXT, "media_playing_started(stale)");
    EXPECT(&r, host->perform_default_action(STALE_CONTEXT), TIDINGS_STATUS_INVALID_CONTEXT,
           "perform_default_action(stale)");
    EXPECT(&r, host->dismiss(STALE_CONTEXT), TIDINGS_STATUS_INVALID_CONTEXT, "dismiss(stale)");
#if TIDINGS_ABI_VERSION >= 2
    exercise_attachments(&r, context, content);
#endif
    verdict(&r, "receive", text, sizeof text);
    host->set_text(context, "report", text);
}

static void did_receive_response(void *pointer, const tidings_response *response, tidings_completion completion) {
    instance *self = pointer;
    tidings_context context = self->context;
    const char *action = response->action_identifier;
    tidings_response_option option = TIDINGS_RESPONSE_DO_NOT_DISMISS;
    report r;
    char text[2200];
    memset(&r, 0, sizeof r);
    CHECK(&r, response->notification != NULL && response->notification->content != NULL, "the response's notification");
    EXPECT(&r, host->complete_response(completion ^ 0x5A5A5A5AULL, TIDINGS_RESPONSE_DISMISS),
           TIDINGS_STATUS_INVALID_COMPLETION, "complete_response(forged)");
#if TIDINGS_ABI_VERSION >= 2
    EXPECT(&r, host->complete_request(completion, NULL), TIDINGS_STATUS_INVALID_COMPLETION,
           "complete_request(a response's token)");
#endif
    if (strcmp(action, "keep") == 0) {
#if TIDINGS_ABI_VERSION >= 3
        tidings_context other = another(context);
        if (host_has_version_3()) {
            if (other != NULL) {
                EXPECT(&r, host->complete_response_for(other, completion, TIDINGS_RESPONSE_DISMISS),
                       TIDINGS_STATUS_INVALID_COMPLETION, "complete_response_for(another instance)");
            }
            EXPECT(&r, host->complete_response_for(NULL, completion, TIDINGS_RESPONSE_DISMISS),
                   TIDINGS_STATUS_INVALID_COMPLETION, "complete_response_for(NULL)");
            check_actions(&r, context, 4, "keep", "open");
        }
#endif
    } else if (strcmp(action, "reply") == 0) {
        CHECK(&r, response->user_text != NULL && strcmp(response->user_text, "hello") == 0, "the user's text");
        option = TIDINGS_RESPONSE_DISMISS;
    } else if (strcmp(action, "close") == 0) {
        EXPECT(&r, host->dismiss(context), TIDINGS_STATUS_OK, "dismiss");
    } else if (strcmp(action, "open") == 0) {
        EXPECT(&r, host->perform_default_action(context), TIDINGS_STATUS_OK, "perform_default_action");
    }
    /* The verdict goes out before the completion, which may close the notification. */
    verdict(&r, action, text, sizeof text);
    host->set_text(context, "report", text);
    if (complete_response(context, completion, option) != TIDINGS_STATUS_OK) {
        host->log(context, TIDINGS_LOG_ERROR, "exerciser: the completion was refused");
    }
}

static void media(void *pointer, const char *state) {
    instance *self = pointer;
    report r;
    char text[2200];
    memset(&r, 0, sizeof r);
    EXPECT(&r, host->set_text(self->context, "media", state), TIDINGS_STATUS_OK, "set_text(media)");
    verdict(&r, state, text, sizeof text);
    host->set_text(self->context, "report", text);
}

static void media_play(void *pointer) {
    media(pointer, "play");
}

static void media_pause(void *pointer) {
    media(pointer, "pause");
}

static tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = DECLARED_VERSION,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .did_receive_response = did_receive_response,
    .media_play = media_play,
    .media_pause = media_pause,
#if TIDINGS_ABI_VERSION >= 3
    .get_interface = get_interface,
#endif
};

#else /* SERVICE */
/* ---- The service extension --------------------------------------------------- */

static const char *user_info(const tidings_content *content, const char *key) {
    size_t i;
    for (i = 0; i < content->user_info_count; i++) {
        if (strcmp(content->user_info[i]->key, key) == 0) return content->user_info[i]->string_value;
    }
    return NULL;
}

/* A 1×1 PNG. */
static const unsigned char png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x00, 0x02, 0x00, 0x00, 0x05, 0x00, 0x01, 0x7A, 0x5E, 0xAB, 0x3F, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

typedef struct request_state {
    tidings_context context;
    tidings_completion completion;
} request_state;

/* What the checks after a completion found, for the next request to report. */
static pthread_mutex_t after_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t after_done = PTHREAD_COND_INITIALIZER;
static char after_text[2200];

/* Waits (at most 5 s) for the checks after the last completion, and counts what they found. */
static void check_after_last_completion(report *r) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&after_lock);
    while (after_text[0] == '\0') {
        if (pthread_cond_timedwait(&after_done, &after_lock, &until) != 0) break;
    }
    if (strcmp(after_text, "after completion: ok") != 0) fail(r, after_text[0] ? after_text : "no checks after completion", 0);
    after_text[0] = '\0';
    pthread_mutex_unlock(&after_lock);
}

/* Writes a PNG of its own where it may write, and returns its path. */
static const char *write_png(char *path, size_t size, const char *name) {
    const char *directory = getenv("TMPDIR");
    FILE *file;
    snprintf(path, size, "%s/%s", directory != NULL ? directory : "/tmp", name);
    file = fopen(path, "wb");
    if (file != NULL) {
        fwrite(png, 1, sizeof png, file);
        fclose(file);
    }
    return path;
}

/* Completes with `title`, a userInfo entry and `made` (when not NULL) as
 * the only attachment, each struct at a page end, through the function the
 * host's version offers; then checks that a second completion is refused,
 * and keeps what it found for the next request. */
static void complete_with(tidings_context context, tidings_completion completion, const char *title,
                          const char *made) {
    placements p = {{0}, 0, 0};
    report after;
    char text[2200];
    tidings_user_info_entry entry = {.struct_size = sizeof(tidings_user_info_entry), .key = "exercised", .json = "true"};
    const tidings_user_info_entry *entries[1];
    tidings_attachment attachment = {.struct_size = sizeof(tidings_attachment), .identifier = made, .type = "", .url = ""};
    const tidings_attachment *attachments[1];
    tidings_content content = {.struct_size = sizeof(tidings_content), .interruption_level = TIDINGS_INTERRUPTION_ACTIVE,
                               .title = title, .subtitle = "", .body = "Body", .category_identifier = "",
                               .thread_identifier = "", .badge = TIDINGS_BADGE_NONE, .relevance_score = 0.5};
    tidings_content *placed;
    tidings_status status;
    memset(&after, 0, sizeof after);
    entries[0] = place(&p, &entry, sizeof entry);
    content.user_info_count = 1;
    content.user_info = entries;
    if (made != NULL) {
        attachments[0] = place(&p, &attachment, sizeof attachment);
        content.attachment_count = 1;
        content.attachments = attachments;
    }
    placed = place(&p, &content, sizeof content);
    /* Undersized: the content itself, or an entry or attachment it points to. Each is refused as an invalid
     * argument, read no further than its size, and completes nothing: the token stays usable. */
    EXPECT(&after, host->complete_request(completion, place(&p, &small, sizeof small)), TIDINGS_STATUS_INVALID_ARGUMENT,
           "complete_request(undersized content)");
    {
        const void *small_entries[1];
        tidings_content *with_small;
        small_entries[0] = place(&p, &small, sizeof small);
        with_small = place(&p, &content, sizeof content);
        if (with_small != NULL) {
            with_small->user_info = (const tidings_user_info_entry *const *)small_entries;
            with_small->user_info_count = 1;
        }
        EXPECT(&after, host->complete_request(completion, with_small), TIDINGS_STATUS_INVALID_ARGUMENT,
               "complete_request(undersized userInfo entry)");
        with_small = place(&p, &content, sizeof content);
        if (with_small != NULL) {
            with_small->attachments = (const tidings_attachment *const *)small_entries;
            with_small->attachment_count = 1;
        }
        EXPECT(&after, host->complete_request(completion, with_small), TIDINGS_STATUS_INVALID_ARGUMENT,
               "complete_request(undersized attachment)");
    }
#if TIDINGS_ABI_VERSION >= 3
    if (host_has_version_3()) {
        EXPECT(&after, host->complete_request_for(context, completion, place(&p, &small, sizeof small)),
               TIDINGS_STATUS_INVALID_ARGUMENT, "complete_request_for(undersized content)");
        EXPECT(&after, host->complete_request_for(NULL, completion, placed), TIDINGS_STATUS_INVALID_COMPLETION,
               "complete_request_for(NULL)");
        EXPECT(&after, host->complete_request_for(STALE_CONTEXT, completion, placed), TIDINGS_STATUS_INVALID_COMPLETION,
               "complete_request_for(stale)");
        status = host->complete_request_for(context, completion, placed);
    } else
#endif
    {
        (void)context;
        status = host->complete_request(completion, placed);
    }
    EXPECT(&after, status, TIDINGS_STATUS_OK, "complete_request");
    EXPECT(&after, host->complete_request(completion, placed), TIDINGS_STATUS_INVALID_COMPLETION,
           "complete_request again");
    verdict(&after, "after completion", text, sizeof text);
    pthread_mutex_lock(&after_lock);
    snprintf(after_text, sizeof after_text, "%s", text);
    pthread_cond_broadcast(&after_done);
    pthread_mutex_unlock(&after_lock);
    unmap_all(&p);
}

static void did_receive_request(void *pointer, const tidings_notification *request, tidings_completion completion) {
    request_state *self = pointer;
    tidings_context context = self->context;
    const tidings_content *content = request->content;
    const char *mode = user_info(content, "mode");
    placements p = {{0}, 0, 0};
    report r;
    char text[2200];
    char path[512];
    char made[64] = "";
    char nothing[8] = "x";
    tidings_attachment_request ask = {.struct_size = sizeof(tidings_attachment_request), .thumbnail_hidden = true,
                                      .identifier = "made", .type_hint = "public.png",
                                      .thumbnail_clipping_rect = {0, 0, 0.5, 0.5}, .thumbnail_time = 1.5};
    tidings_attachment_request missing = {.struct_size = sizeof(tidings_attachment_request),
                                          .url = "/nonexistent/file.png", .thumbnail_time = -1};
    tidings_attachment_result result = {.struct_size = sizeof(tidings_attachment_result), .identifier = made,
                                        .identifier_capacity = sizeof made};
    tidings_attachment_result *placed;
    tidings_status status;
    memset(&r, 0, sizeof r);
    self->completion = completion;
    host->log(context, TIDINGS_LOG_INFO, "exerciser: request");
    if (mode != NULL && strcmp(mode, "expire") == 0) return; /* completed in time-will-expire */
#if TIDINGS_ABI_VERSION >= 3
    check_interfaces(&r);
    check_bundle(&r);
    if (host_has_version_3()) {
        seen_actions seen;
        memset(&seen, 0, sizeof seen);
        EXPECT(&r, host->get_actions(context, receive_actions, &seen), TIDINGS_STATUS_NOT_SUPPORTED,
               "get_actions in a service extension");
        EXPECT(&r, seen.calls, 0, "no receiver call in a service extension");
    }
#endif
    EXPECT(&r, host->set_text(context, "title", "x"), TIDINGS_STATUS_NO_SUCH_ELEMENT, "set_text in a service extension");
    EXPECT(&r, host->complete_response(completion, TIDINGS_RESPONSE_DISMISS), TIDINGS_STATUS_INVALID_COMPLETION,
           "complete_response(a request's token)");
    /* An undersized content, read no further than its size, with a token nobody gave: the struct is refused
     * before the token is looked at. A forged token with no content is refused as a completion. */
    EXPECT(&r, host->complete_request(completion ^ 0x5A5A5A5AULL, place(&p, &small, sizeof small)),
           TIDINGS_STATUS_INVALID_ARGUMENT, "complete_request(forged, undersized)");
    EXPECT(&r, host->complete_request(completion ^ 0x5A5A5A5AULL, NULL), TIDINGS_STATUS_INVALID_COMPLETION,
           "complete_request(forged)");
    /* Undersized requests and results: refused, and nothing written beyond their size. */
    EXPECT(&r, host->create_attachment(context, place(&p, &small, sizeof small), NULL), TIDINGS_STATUS_INVALID_ARGUMENT,
           "create_attachment(undersized request)");
    status = host->create_attachment(context, place(&p, &missing, sizeof missing), place(&p, &small, sizeof small));
    EXPECT(&r, status, TIDINGS_STATUS_INVALID_ATTACHMENT, "create_attachment(missing file, undersized result)");
    placed = place(&p, &result, sizeof result);
    if (placed != NULL) placed->identifier = nothing;
    EXPECT(&r, host->create_attachment(context, place(&p, &missing, sizeof missing), placed),
           TIDINGS_STATUS_INVALID_ATTACHMENT, "create_attachment(missing file)");
    if (placed != NULL) EXPECT(&r, placed->error, TIDINGS_ATTACHMENT_INVALID_URL, "the missing file's error");
    CHECK(&r, nothing[0] == '\0', "no identifier for a missing file");
    /* A file of its own, at page ends, of this header's sizes. */
    ask.url = write_png(path, sizeof path, "exerciser.png");
    placed = place(&p, &result, sizeof result);
    EXPECT(&r, host->create_attachment(context, place(&p, &ask, sizeof ask), placed), TIDINGS_STATUS_OK,
           "create_attachment");
    if (placed != NULL) {
        EXPECT(&r, placed->error, 0, "the made attachment's error");
        CHECK(&r, strcmp(made, "made") == 0, "the made attachment's identifier");
        CHECK(&r, placed->type != NULL && strcmp(placed->type, "public.png") == 0, "the made attachment's type");
        EXPECT(&r, placed->size, sizeof png, "the made attachment's size");
    }
    {
        int descriptor = host->open_attachment(context, "made");
        CHECK(&r, descriptor >= 0, "open_attachment(made)");
        if (descriptor >= 0) close(descriptor);
    }
    EXPECT(&r, host->open_attachment(context, "missing"), -1, "open_attachment(missing)");
    verdict(&r, "exercised", text, sizeof text);
    complete_with(context, completion, text, "made");
    unmap_all(&p);
}

static void time_will_expire(void *pointer) {
    request_state *self = pointer;
    report r;
    char text[2200];
    memset(&r, 0, sizeof r);
    host->log(self->context, TIDINGS_LOG_INFO, "exerciser: time will expire");
    check_after_last_completion(&r);
    verdict(&r, "expired", text, sizeof text);
    complete_with(self->context, self->completion, text, NULL);
}

static void *create_request(tidings_context context) {
    request_state *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy_request(void *pointer) {
    free(pointer);
}

static tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = DECLARED_VERSION,
    .create = create_request,
    .destroy = destroy_request,
    .did_receive_request = did_receive_request,
    .service_extension_time_will_expire = time_will_expire,
#if TIDINGS_ABI_VERSION >= 3
    .get_interface = get_interface,
#endif
};
#endif /* SERVICE */

/* The descriptor for a host of `version`: its own version at most, NULL when
 * it cannot serve that host. */
static const tidings_extension *serve(uint32_t version, const tidings_host *table) {
    if (version < 1 || table == NULL || !TIDINGS_HAS_FIELD(table, tidings_host, complete_response)) return NULL;
#ifdef SERVICE
    if (version < 2 || !TIDINGS_HAS_FIELD(table, tidings_host, open_attachment)) return NULL;
#endif
    host = table;
    host_version = version;
    descriptor.abi_version = version < DECLARED_VERSION ? version : DECLARED_VERSION;
    return &descriptor;
}

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    return serve(host_abi_version, table);
}

#if TIDINGS_ABI_VERSION >= 3
TIDINGS_EXPORT const tidings_extension *tidings_extension_entry_v3(const tidings_entry_info *info) {
    if (info == NULL || info->struct_size < TIDINGS_ENTRY_INFO_SIZE_V3) return NULL;
    bundle_path = info->bundle_path;
    return serve(info->host_abi_version, info->host);
}
#endif
