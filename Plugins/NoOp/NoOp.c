/*
 * NoOp: the smallest content extension there is. It does nothing and answers
 * every response at once with doNotDismiss, so the benchmark measures the
 * host and the ABI, not an extension.
 */
#include <stddef.h>

#include "tidings.h"

static const tidings_host *host;
static char instance_marker;

static void *create(tidings_context context) {
    (void)context;
    return &instance_marker;
}

static void destroy(void *instance) {
    (void)instance;
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    (void)instance;
    (void)notification;
}

static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    (void)instance;
    (void)response;
    host->complete_response(completion, TIDINGS_RESPONSE_DO_NOT_DISMISS);
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
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

/* The baseline the benchmark compares against: the same work as
 * did_receive_notification, called directly. */
TIDINGS_EXPORT void tidings_noop_direct(void *instance, const tidings_notification *notification) {
    did_receive_notification(instance, notification);
}
