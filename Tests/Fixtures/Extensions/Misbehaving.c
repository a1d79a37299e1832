/*
 * An extension that misuses the ABI on purpose, to prove the host copes.
 *
 * did_receive_notification counts the notifications its instance received
 * and writes the count to label "count"; it also writes to an element the
 * interface lacks and sets a title without permission.
 *
 * did_receive_response answers according to the action identifier:
 *   dismiss-now  complete with DISMISS, at once
 *   stay         complete with DO_NOT_DISMISS
 *   forward      complete with DISMISS_AND_FORWARD_ACTION
 *   never        never complete
 *   twice        complete twice at once (the second call must be refused)
 *   async        complete from another thread after 20 ms
 *   late         complete from another thread after 400 ms
 *   late-report  complete from another thread after 400 ms, and write
 *                "late completion answered STATUS" to label "count" (its
 *                instance may be gone by then: the next instance made in the
 *                process writes it to "count" instead of its received count)
 *   invalid      complete with option 7
 *   again-later  complete at once, and once more from another thread after 100 ms
 *   dismiss-me   call host->dismiss, then complete with DO_NOT_DISMISS
 *   open-app     call host->perform_default_action, then complete with DO_NOT_DISMISS
 *   hold         keep the completion, uncompleted, until a "release" (one is held
 *                at a time), and write "holding" to label "count"
 *   release      complete the held completion with DISMISS, write "released STATUS"
 *                (or "nothing held") to label "count", then complete with DO_NOT_DISMISS
 *   park         keep the completion, uncompleted, among up to 4096 parked at once
 *                (what a thousand responses waiting at once look like)
 *   unpark       complete every parked completion with DISMISS, write "unparked N"
 *                to label "count", then complete with DO_NOT_DISMISS
 *   abuse-token  misuse the completion every way, then complete it properly: through
 *                complete_request, naming another live instance (complete_response_for),
 *                with option 7 (taken as DISMISS_AND_FORWARD_ACTION), then again with
 *                DISMISS; writes the four statuses to label "count"
 *
 * It asks for a media button; media_play and media_pause write "play" and
 * "pause" to label "count".
 *
 * A notification whose userInfo "storm" is a number N makes did_receive_notification
 * call set_hidden N times on one thread; with userInfo "threads" T, it does so on T
 * threads at once (N calls each). It writes "storm OK/LIMITED/OTHER" counts to label
 * "instances" (counting the statuses it got) when the context still takes calls.
 *
 * A notification whose userInfo has "resident" writes "resident KB of N" to label "count":
 * the resident memory (VmRSS) of the process it runs in, a worker's own when isolated,
 * and the number of instances created in that process so far.
 *
 * misbehaving_stale_call() calls set_text with the context of the last
 * destroyed instance and returns the status.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tidings.h"

static const tidings_host *host;
static tidings_context last_destroyed;
/* The completions "park" keeps until "unpark", under held_lock. */
static tidings_completion parked[4096];
static int parked_count;
/* The contexts of the two instances created last, for abuse-token to name another. */
static tidings_context created_last[2];
/* The completion "hold" keeps until "release"; 0 when none. */
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static tidings_completion held;
static int created;
static int destroyed;

typedef struct misbehaving {
    tidings_context context;
    int received;
} misbehaving;

/* The status of the last late-report completion not yet shown, or -1. */
static int late_status = -1;

typedef struct delayed {
    tidings_completion completion;
    tidings_response_option option;
    long milliseconds;
    /* With a context: the status the completion got is written to its label "count". */
    tidings_context report_to;
} delayed;

static void *complete_later(void *argument) {
    delayed *work = argument;
    struct timespec pause;
    char text[64];
    tidings_status status;
    pause.tv_sec = work->milliseconds / 1000;
    pause.tv_nsec = (work->milliseconds % 1000) * 1000000L;
    nanosleep(&pause, NULL);
    status = host->complete_response(work->completion, work->option);
    if (work->report_to != NULL) {
        __atomic_store_n(&late_status, (int)status, __ATOMIC_SEQ_CST);
        snprintf(text, sizeof text, "late completion answered %d", (int)status);
        host->set_text(work->report_to, "count", text);
    }
    free(work);
    return NULL;
}

static void later_reporting(tidings_completion completion, tidings_response_option option, long milliseconds,
                            tidings_context report_to) {
    pthread_t thread;
    delayed *work = malloc(sizeof *work);
    work->completion = completion;
    work->option = option;
    work->milliseconds = milliseconds;
    work->report_to = report_to;
    pthread_create(&thread, NULL, complete_later, work);
    pthread_detach(thread);
}

static void later(tidings_completion completion, tidings_response_option option, long milliseconds) {
    later_reporting(completion, option, milliseconds, NULL);
}

typedef struct storm {
    tidings_context context;
    long calls;
    long ok, limited, other;
} storm;

static void *rain(void *argument) {
    storm *work = argument;
    long call;
    for (call = 0; call < work->calls; call++) {
        tidings_status status = host->set_hidden(work->context, "count", (call & 1) != 0);
        if (status == TIDINGS_STATUS_OK) {
            work->ok++;
        } else if (status == TIDINGS_STATUS_RATE_LIMITED) {
            work->limited++;
        } else {
            work->other++;
        }
    }
    return NULL;
}

/* The userInfo string of `key`, or NULL. */
static const char *user_info(const tidings_notification *notification, const char *key) {
    size_t i;
    for (i = 0; i < notification->content->user_info_count; i++) {
        if (strcmp(notification->content->user_info[i]->key, key) == 0) {
            return notification->content->user_info[i]->string_value;
        }
    }
    return NULL;
}

/* N set_hidden calls on each of T threads (T = 1: this one); the statuses counted into label "instances". */
static void storm_calls(misbehaving *self, long calls, long threads) {
    storm work[64];
    pthread_t thread[64];
    long index, ok = 0, limited = 0, other = 0;
    char text[96];
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (index = 0; index < threads; index++) {
        work[index] = (storm){self->context, calls, 0, 0, 0};
        if (threads > 1) pthread_create(&thread[index], NULL, rain, &work[index]);
    }
    if (threads == 1) rain(&work[0]);
    for (index = 0; index < threads; index++) {
        if (threads > 1) pthread_join(thread[index], NULL);
        ok += work[index].ok;
        limited += work[index].limited;
        other += work[index].other;
    }
    snprintf(text, sizeof text, "storm %ld/%ld/%ld", ok, limited, other);
    host->set_text(self->context, "instances", text);
}

/* This process's VmRSS in kB, from /proc/self/status; -1 when it cannot be read. */
static long resident_kilobytes(void) {
    char line[256];
    long kilobytes = -1;
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL) return -1;
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kilobytes = atol(line + 6);
            break;
        }
    }
    fclose(status);
    return kilobytes;
}

static void *create(tidings_context context) {
    misbehaving *self = calloc(1, sizeof *self);
    self->context = context;
    __atomic_fetch_add(&created, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&held_lock);
    created_last[1] = created_last[0];
    created_last[0] = context;
    pthread_mutex_unlock(&held_lock);
    return self;
}

static void destroy(void *instance) {
    misbehaving *self = instance;
    last_destroyed = self->context;
    __atomic_fetch_add(&destroyed, 1, __ATOMIC_SEQ_CST);
    free(self);
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    misbehaving *self = instance;
    char text[64];
    const char *calls = user_info(notification, "storm");
    if (calls != NULL) {
        const char *threads = user_info(notification, "threads");
        storm_calls(self, atol(calls), threads != NULL ? atol(threads) : 1);
        return;
    }
    if (user_info(notification, "resident") != NULL) {
        snprintf(text, sizeof text, "resident %ld of %d", resident_kilobytes(), __atomic_load_n(&created, __ATOMIC_SEQ_CST));
        host->set_text(self->context, "count", text);
        return;
    }
    self->received++;
    snprintf(text, sizeof text, "%d", self->received);
    {
        int late = __atomic_exchange_n(&late_status, -1, __ATOMIC_SEQ_CST);
        if (late >= 0) snprintf(text, sizeof text, "late completion answered %d", late);
    }
    host->set_text(self->context, "count", text);
    snprintf(text, sizeof text, "%d created, %d destroyed", __atomic_load_n(&created, __ATOMIC_SEQ_CST),
             __atomic_load_n(&destroyed, __ATOMIC_SEQ_CST));
    host->set_text(self->context, "instances", text);
    host->set_text(self->context, "no-such-element", "x");
    host->set_title(self->context, "A title nobody allowed");
    host->log(self->context, TIDINGS_LOG_INFO, "received");
    {
        tidings_media_button button = {sizeof(tidings_media_button), TIDINGS_MEDIA_BUTTON_OVERLAY, {8, 8, 44, 44},
                                       TIDINGS_RGBA(0xFF, 0xFF, 0xFF, 0xFF)};
        host->set_media_button(self->context, &button);
    }
}

static void media_play(void *instance) {
    misbehaving *self = instance;
    host->set_text(self->context, "count", "play");
}

static void media_pause(void *instance) {
    misbehaving *self = instance;
    host->set_text(self->context, "count", "pause");
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    misbehaving *self = instance;
    const char *action = response->action_identifier;
    char text[64];
    if (strcmp(action, "stay") == 0) {
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
    } else if (strcmp(action, "forward") == 0) {
        host->complete_response(completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
    } else if (strcmp(action, "never") == 0) {
        /* nothing */
    } else if (strcmp(action, "twice") == 0) {
        tidings_status first = host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
        tidings_status second = host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
        snprintf(text, sizeof text, "%d %d", (int)first, (int)second);
        host->set_text(self->context, "count", text);
    } else if (strcmp(action, "async") == 0) {
        later(completion, TIDINGS_RESPONSE_DISMISS, 20);
    } else if (strcmp(action, "late") == 0) {
        later(completion, TIDINGS_RESPONSE_DISMISS, 400);
    } else if (strcmp(action, "late-report") == 0) {
        later_reporting(completion, TIDINGS_RESPONSE_DISMISS, 400, self->context);
    } else if (strcmp(action, "invalid") == 0) {
        host->complete_response(completion, 7);
    } else if (strcmp(action, "again-later") == 0) {
        host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
        later(completion, TIDINGS_RESPONSE_DISMISS, 100);
    } else if (strcmp(action, "dismiss-me") == 0) {
        host->dismiss(self->context);
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
    } else if (strcmp(action, "open-app") == 0) {
        host->perform_default_action(self->context);
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
    } else if (strcmp(action, "hold") == 0) {
        pthread_mutex_lock(&held_lock);
        held = completion;
        pthread_mutex_unlock(&held_lock);
        host->set_text(self->context, "count", "holding");
    } else if (strcmp(action, "release") == 0) {
        tidings_completion kept;
        pthread_mutex_lock(&held_lock);
        kept = held;
        held = 0;
        pthread_mutex_unlock(&held_lock);
        if (kept != 0) {
            snprintf(text, sizeof text, "released %d", (int)host->complete_response(kept, TIDINGS_RESPONSE_DISMISS));
        } else {
            snprintf(text, sizeof text, "nothing held");
        }
        host->set_text(self->context, "count", text);
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
    } else if (strcmp(action, "park") == 0) {
        pthread_mutex_lock(&held_lock);
        if (parked_count < (int)(sizeof parked / sizeof parked[0])) parked[parked_count++] = completion;
        pthread_mutex_unlock(&held_lock);
    } else if (strcmp(action, "unpark") == 0) {
        int count, i;
        pthread_mutex_lock(&held_lock);
        count = parked_count;
        for (i = 0; i < count; i++) host->complete_response(parked[i], TIDINGS_RESPONSE_DISMISS);
        parked_count = 0;
        pthread_mutex_unlock(&held_lock);
        snprintf(text, sizeof text, "unparked %d", count);
        host->set_text(self->context, "count", text);
        host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
    } else if (strcmp(action, "abuse-token") == 0) {
        tidings_context other;
        int statuses[4];
        pthread_mutex_lock(&held_lock);
        other = created_last[0] != self->context ? created_last[0] : created_last[1];
        pthread_mutex_unlock(&held_lock);
        statuses[0] = host->complete_request(completion, NULL);
        statuses[1] = host->complete_response_for(other, completion, TIDINGS_RESPONSE_DISMISS);
        statuses[2] = host->complete_response(completion, 7);
        statuses[3] = host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
        snprintf(text, sizeof text, "%d %d %d %d", statuses[0], statuses[1], statuses[2], statuses[3]);
        host->set_text(self->context, "count", text);
    } else {
        host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
    }
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .did_receive_response = did_receive_response,
    .media_play = media_play,
    .media_pause = media_pause,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t version, const tidings_host *table) {
    (void)version;
    host = table;
    return &descriptor;
}

TIDINGS_EXPORT int misbehaving_stale_call(void);
TIDINGS_EXPORT int misbehaving_stale_call(void) {
    return host->set_text(last_destroyed, "count", "stale");
}
