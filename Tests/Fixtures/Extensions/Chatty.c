/*
 * A content extension that writes to standard output and standard error,
 * as careless extensions do: the host must keep both out of its own output
 * (the JSON-RPC stream of `tidings serve --stdio`).
 */
#include <stdio.h>

#include "tidings.h"

static void *create(tidings_context context) {
    return (void *)context;
}

static void destroy(void *instance) {
    (void)instance;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    (void)instance;
    printf("chatty: got %s\n", notification->identifier);
    fflush(stdout);
    fprintf(stderr, "chatty: on standard error too\n");
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    (void)table;
    return host_abi_version >= 1 ? &descriptor : NULL;
}
