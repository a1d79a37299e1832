/*
 * What the files of the sandboxed spawn share: spawn.c (the caller's side:
 * clone3 and the id maps), init.c (the sandbox's init, which starts the
 * worker and reaps) and view.c (the worker's view of the file system, which
 * init builds). Internal to TidingsSystemShims; not a public header.
 */
#ifndef TIDINGS_SPAWN_INTERNAL_H
#define TIDINGS_SPAWN_INTERNAL_H

#include "TidingsSystemShims.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/*
 * Under ThreadSanitizer (a build with --sanitize=thread, never otherwise) the
 * copies spawn.c and init.c make must be made as the sanitizer's runtime
 * expects.
 * Its clone() interceptor holds every lock of the runtime across the call,
 * as for fork, and the copy then passes its calls straight to glibc. A raw
 * clone3 is never seen: a lock another thread of the caller held at that
 * moment stays held in the copy, whose first intercepted call (close, send,
 * _exit, …) may wait for it forever. So init is made with glibc's clone()
 * (see clone_init in spawn.c). The worker (init.c), which shares init's
 * memory until it execs, is made with glibc's __clone, the same function
 * without the interceptor, whose bookkeeping in a copy that shares the
 * memory would undo init's.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TIDINGS_THREAD_SANITIZER 1
extern int __clone(int (*function)(void *), void *stack, int flags, void *argument, ...);
#endif
#endif

/* Where init keeps what it was given, after it moved the descriptors. */
enum {
    SLOT_CONTROL = 3,
    SLOT_CHANNEL = 4,
    SLOT_OUTPUT = 5,
    SLOT_BUNDLE = 6,
    SLOT_COUNT = 4,
    /* A view has at most this many entries. */
    MAX_MOUNTS = 128,
};

/* Reports a failed step with the current errno on `control` and ends init (init.c). */
__attribute__((visibility("hidden"), noreturn)) void spawn_fail(int control, int step, int index);

/* Appends the decimal digits of `value` to `buffer` at `*length` (bounded by `capacity`) (init.c). */
__attribute__((visibility("hidden"))) void spawn_append_number(char *buffer, size_t *length, size_t capacity, uint64_t value);

/* Appends `text` to `buffer` at `*length` (bounded by `capacity`) (init.c). */
__attribute__((visibility("hidden"))) void spawn_append_text(char *buffer, size_t *length, size_t capacity, const char *text);

/* Builds the worker's view on `request->scratch` and makes it the root; on failure reports on `control` and ends init (view.c). */
__attribute__((visibility("hidden"))) void spawn_build_view(int control, const struct tidings_spawn_request *request);

/* Init: sets up the sandbox, starts the worker, reaps and reports how it ended; never returns (init.c). */
__attribute__((visibility("hidden"), noreturn)) void spawn_run_init(const struct tidings_spawn_request *request, int control_end,
                                                                   bool privileged);

#endif
