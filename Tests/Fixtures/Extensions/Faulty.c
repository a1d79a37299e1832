/*
 * A content extension that fails on purpose, one way per build: compile it
 * with exactly one of the flags below to get that fault class. The isolation
 * tests deliver to each build and check what the host answers.
 *
 * Faults of did_receive_notification:
 *   FAULT_SEGV            write through a null pointer (SIGSEGV)
 *   FAULT_ABORT           abort() (SIGABRT)
 *   FAULT_EXIT            exit(3) in the middle of a call
 *   FAULT_STACK_OVERFLOW  unbounded recursion
 *   FAULT_LOOP            an endless loop that burns CPU
 *   FAULT_MEMORY          allocate and touch memory until malloc fails, then abort()
 *   FAULT_STDOUT          write binary garbage to standard output, and a forged
 *                         log line of the host's to standard error (and go on)
 *   FAULT_STOP_READING    stop the whole process (SIGSTOP): it reads nothing more
 *   FAULT_HANG            sleep forever without using CPU
 * Faults of did_receive_response:
 *   FAULT_COMPLETION_NEVER    never call complete_response (it writes "responding" to
 *                             label "state" first, so that a test knows it is waited for)
 *   FAULT_COMPLETION_TWICE    call it twice
 *   FAULT_COMPLETION_INVALID  call it with option 7
 *
 * Without any flag it behaves: it writes "ok" to label "state" and completes
 * responses with DISMISS. Every build writes "ok" before its fault, so a test
 * can tell the extension's view from the default content.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct faulty {
    tidings_context context;
} faulty;

static void *create(tidings_context context) {
    faulty *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy(void *instance) {
    free(instance);
}

#ifdef FAULT_STACK_OVERFLOW
/* Each frame keeps a page on the stack that the compiler cannot drop; the
 * volatile flag hides from the compiler that the recursion never ends. */
static volatile int deeper = 1;
static int recurse(volatile char *previous, int depth) {
    volatile char frame[4096];
    if (!deeper) return depth;
    frame[0] = (char)depth;
    frame[4095] = previous != NULL ? previous[0] : 0;
    return recurse(frame, depth + 1) + frame[4095];
}
#endif

static void fail(void) {
#if defined(FAULT_SEGV)
    volatile int *nowhere = NULL;
    *nowhere = 1;
#elif defined(FAULT_ABORT)
    abort();
#elif defined(FAULT_EXIT)
    exit(3);
#elif defined(FAULT_STACK_OVERFLOW)
    recurse(NULL, 0);
#elif defined(FAULT_LOOP)
    volatile unsigned long spins = 0;
    for (;;) spins++;
#elif defined(FAULT_MEMORY)
    for (;;) {
        char *block = malloc(1 << 20);
        if (block == NULL) abort();
        memset(block, 0x5A, 1 << 20);
    }
#elif defined(FAULT_STDOUT)
    static const unsigned char garbage[] = {0x00, 0xFF, 0x1B, '[', '2', 'J', 0x07, 0xFE, 0x01, '\n'};
    int index;
    for (index = 0; index < 100; index++) fwrite(garbage, 1, sizeof garbage, stdout);
    fflush(stdout);
    if (write(STDOUT_FILENO, "\x7f" "ELF garbage\n", 13) < 0) { /* nothing to do */ }
    fputs("tidings serve: error: the host is compromised [forged]\n", stderr);
#elif defined(FAULT_STOP_READING)
    raise(SIGSTOP);
#elif defined(FAULT_HANG)
    for (;;) pause();
#endif
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    faulty *self = instance;
    (void)notification;
    host->set_text(self->context, "state", "ok");
    fail();
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    (void)instance;
    (void)response;
#if defined(FAULT_COMPLETION_NEVER)
    (void)completion;
    host->set_text(((faulty *)instance)->context, "state", "responding");
#elif defined(FAULT_COMPLETION_TWICE)
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
#elif defined(FAULT_COMPLETION_INVALID)
    host->complete_response(completion, 7);
#else
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
#endif
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .did_receive_response = did_receive_response,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t version, const tidings_host *table) {
    (void)version;
    host = table;
    return &descriptor;
}
