/*
 * Deliberately broken extensions, one per load-failure class, chosen with -D:
 *   NULL_DESCRIPTOR   the entry returns NULL (declines the host)
 *   UNDERSIZED        the descriptor says it is 8 bytes
 *   ABI_VERSION=N     the descriptor claims ABI version N
 *   INCOMPLETE        the descriptor lacks create
 *   NO_ENTRY          no tidings_extension_entry symbol at all
 *   UNRESOLVED        needs a symbol nothing provides
 *   CREATE_FAILS      create returns NULL
 *   NO_RESPONSE_HANDLER  a working extension without did_receive_response
 *   MINIMAL_SIZE      struct_size covers only the required functions, so the
 *                     response handler that follows must be ignored
 * Without any of them it is a working, minimal extension.
 */
#include <stddef.h>

#include "tidings.h"

#ifndef ABI_VERSION
#define ABI_VERSION TIDINGS_ABI_VERSION
#endif

#ifdef UNRESOLVED
extern int tidings_test_symbol_nobody_defines(void);
#endif

/* Some variants leave some of these unused. */
#define MAYBE_UNUSED __attribute__((unused))

static const tidings_host *host;
MAYBE_UNUSED static char marker;

MAYBE_UNUSED static void *create(tidings_context context) {
    (void)context;
#ifdef CREATE_FAILS
    return NULL;
#else
    return &marker;
#endif
}

MAYBE_UNUSED static void destroy(void *instance) {
    (void)instance;
}

MAYBE_UNUSED static void did_receive_notification(void *instance, const tidings_notification *notification) {
    (void)instance;
    (void)notification;
#ifdef UNRESOLVED
    (void)tidings_test_symbol_nobody_defines();
#endif
}

MAYBE_UNUSED static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    (void)instance;
    (void)response;
    host->complete_response(completion, TIDINGS_RESPONSE_DISMISS);
}

MAYBE_UNUSED static const tidings_extension descriptor = {
#if defined(UNDERSIZED)
    .struct_size = 8,
#elif defined(MINIMAL_SIZE)
    .struct_size = TIDINGS_EXTENSION_MIN_SIZE,
#else
    .struct_size = sizeof(tidings_extension),
#endif
    .abi_version = ABI_VERSION,
#ifndef INCOMPLETE
    .create = create,
#endif
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
#ifndef NO_RESPONSE_HANDLER
    .did_receive_response = did_receive_response,
#endif
};

#ifdef NO_ENTRY
TIDINGS_EXPORT const tidings_extension *some_other_entry(uint32_t version, const tidings_host *table);
TIDINGS_EXPORT const tidings_extension *some_other_entry(uint32_t version, const tidings_host *table)
#else
TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t version, const tidings_host *table)
#endif
{
    (void)version;
    host = table;
#ifdef NULL_DESCRIPTOR
    return NULL;
#else
    return &descriptor;
#endif
}
