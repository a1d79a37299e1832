/* The allocator's settings and trimming: malloc.h, which glibc's Swift module does not include. */
#include "TidingsSystemShims.h"

#include <errno.h>
#include <malloc.h>

int tidings_malloc_settings(int arenas, int mmap_threshold, int trim_threshold) {
    if (mallopt(M_ARENA_MAX, arenas) != 1) return -EINVAL;
    if (mallopt(M_MMAP_THRESHOLD, mmap_threshold) != 1) return -EINVAL;
    if (mallopt(M_TRIM_THRESHOLD, trim_threshold) != 1) return -EINVAL;
    return 0;
}

int tidings_malloc_trim(void) {
    return malloc_trim(0);
}
