/* The worker's Landlock domain. */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <errno.h>

int tidings_landlock_abi(void) {
    return -ENOSYS;
}

int tidings_landlock_restrict(const struct tidings_landlock_rule *rules, size_t count, bool allow_network,
                              struct tidings_landlock_result *result) {
    (void)rules;
    (void)count;
    (void)allow_network;
    (void)result;
    return -ENOSYS;
}
