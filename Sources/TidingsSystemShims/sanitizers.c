/*
 * What a build with `--sanitize=thread` or `--sanitize=address` needs of
 * this package: which sanitizer it is (tidings_sanitizer, which SwiftPM
 * compiles with the same flag as the Swift code), and the runtimes'
 * defaults below, which without a sanitizer compile to nothing. See the
 * "Sanitizers and fuzzing" in Docs/contributing/testing.md.
 *
 * Defaults of the sanitizer runtimes. A worker gets none of its host's
 * environment (SandboxBuilder.environment), so TSAN_OPTIONS and ASAN_OPTIONS
 * never reach it: what every Tidings process needs is compiled in. The
 * environment still overrides these. In each:
 * - handle_*=0: a fatal signal kills the process as it does without the
 *   sanitizer, so that a worker's crash reaches its host as the signal it
 *   was (the fault tests tell a SEGV from an abort); the sanitizer would
 *   report it and exit with its own status instead.
 * - allow_user_segv_handler=1: the worker's handler of fatal signals
 *   (FatalSignalReporter) is installed, not refused.
 * - allocator_may_return_null=1: malloc returns NULL at a memory limit, as
 *   it does without the sanitizer, instead of the sanitizer ending the
 *   process with a report.
 *
 * ThreadSanitizer and Synchronization.Mutex. On Linux a contended Mutex is
 * taken and handed over by the kernel (FUTEX_LOCK_PI, FUTEX_UNLOCK_PI) in
 * _MutexHandle._lockSlow and _unlockSlow, compiled without the sanitizer
 * into libswiftSynchronization.so: ThreadSanitizer sees the uncontended
 * path (atomics inlined into our code) but not that hand-over, and reports
 * every access made under a Mutex that was contended as a race. The three
 * slow paths are defined again here, under their Swift names, so that calls
 * from this process's code bind to them (the testing guide's command links the
 * executables with --export-dynamic, so extensions' calls do too): each
 * calls the library's own and tells ThreadSanitizer that the lock was
 * acquired or released at the Mutex's address, as the inlined atomics do.
 */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int tidings_sanitizer(void) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return TIDINGS_SANITIZER_ADDRESS;
#elif __has_feature(thread_sanitizer)
    return TIDINGS_SANITIZER_THREAD;
#endif
#endif
    return TIDINGS_SANITIZER_NONE;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)

const char *__asan_default_options(void) {
    /* detect_leaks=0: LeakSanitizer cannot see every reference Swift keeps
     * (a weakly referenced object's side table is in its reference count
     * word, shifted; enum payloads carry tags in a pointer's spare bits), so
     * it reports objects alive at exit as leaked, in every process. */
    return "handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0:"
           "allow_user_segv_handler=1:allocator_may_return_null=1:detect_leaks=0";
}

#endif
#if __has_feature(thread_sanitizer)

void __tsan_acquire(void *address);
void __tsan_release(void *address);
void __tsan_external_write(void *address, void *caller, void *tag);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

/*
 * Extensions built with the same sanitizer (the samples, in a sanitized
 * build of this package) call a few functions of the runtime that nothing
 * in the executables calls. The runtime is linked into each executable
 * statically, member by member as they are referred to: these references
 * link those functions, and -Xlinker --export-dynamic (in the testing guide's
 * command) exports them, without which such an extension does not load
 * ("needs the symbol __tsan_external_write, which nothing loaded provides").
 */
__attribute__((used)) static void *const functions_extensions_call[] = {
    (void *)__tsan_external_write,
    (void *)__tsan_ignore_thread_begin,
    (void *)__tsan_ignore_thread_end,
};

const char *__tsan_default_options(void) {
    /* atexit_sleep_ms=0: no second's wait at every exit (for threads to
     * report races), which a worker's host counts against its deadline. */
    return "handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0:"
           "allow_user_segv_handler=1:allocator_may_return_null=1:atexit_sleep_ms=0";
}

#define SWIFT_CALL __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

typedef SWIFT_CALL void (*lock_slow_function)(uint32_t thread, SWIFT_SELF void *handle);
typedef SWIFT_CALL bool (*try_lock_slow_function)(SWIFT_SELF void *handle);
typedef SWIFT_CALL void (*unlock_slow_function)(SWIFT_SELF void *handle);

static lock_slow_function library_lock_slow;
static try_lock_slow_function library_try_lock_slow;
static unlock_slow_function library_unlock_slow;

/* The library's own definition of `name`; the process cannot go on without it. */
static void *library_function(const char *name) {
    void *function = dlsym(RTLD_NEXT, name);
    if (function == NULL) {
        fprintf(stderr, "tidings (ThreadSanitizer build): %s is not in libswiftSynchronization.so\n", name);
        abort();
    }
    return function;
}

/* Before main, while the process has one thread. */
__attribute__((constructor)) static void find_library_functions(void) {
    library_lock_slow = (lock_slow_function)library_function(LOCK_SLOW);
    library_try_lock_slow = (try_lock_slow_function)library_function(TRY_LOCK_SLOW);
    library_unlock_slow = (unlock_slow_function)library_function(UNLOCK_SLOW);
}

SWIFT_CALL void mutex_lock_slow(uint32_t thread, SWIFT_SELF void *handle) __asm__(LOCK_SLOW);
SWIFT_CALL void mutex_lock_slow(uint32_t thread, SWIFT_SELF void *handle) {
    library_lock_slow(thread, handle);
    __tsan_acquire(handle);
}

SWIFT_CALL bool mutex_try_lock_slow(SWIFT_SELF void *handle) __asm__(TRY_LOCK_SLOW);
SWIFT_CALL bool mutex_try_lock_slow(SWIFT_SELF void *handle) {
    bool locked = library_try_lock_slow(handle);
    if (locked) __tsan_acquire(handle);
    return locked;
}

SWIFT_CALL void mutex_unlock_slow(SWIFT_SELF void *handle) __asm__(UNLOCK_SLOW);
SWIFT_CALL void mutex_unlock_slow(SWIFT_SELF void *handle) {
    __tsan_release(handle);
    library_unlock_slow(handle);
}

#endif
#endif
