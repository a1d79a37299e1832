/*
 * TidingsSystemShims: the few things of Linux that Swift cannot call
 * directly — variadic functions (prctl, syscall), system calls glibc's
 * Swift module does not declare (close_range, openat2, pidfd_*, clone3,
 * landlock_*, seccomp), the CMSG_* macros, and the code that must run
 * between clone and execve, where no Swift may run.
 *
 * A private target of the Tidings package: not a product, not an ABI.
 * Every function returns 0 (or a descriptor, a count) on success and a
 * negative errno value on failure, unless it says otherwise; none sets
 * errno for the caller to read, and none retries on EINTR unless it says so.
 */
#ifndef TIDINGS_SYSTEM_SHIMS_H
#define TIDINGS_SYSTEM_SHIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Plain system calls                                                        */
/* ------------------------------------------------------------------------ */

/** prctl(option, a2, a3, a4, a5). */
int tidings_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5);

/** The calling thread's kernel id (gettid). Never fails. */
pid_t tidings_gettid(void);

/** close_range(first, last, flags); -ENOSYS before Linux 5.9. */
int tidings_close_range(unsigned int first, unsigned int last, unsigned int flags);

/**
 * The number of CPUs the calling thread may run on (sched_getaffinity's
 * CPU_COUNT), or -errno. Thread: any.
 */
int tidings_allowed_cpus(void);

/** eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): a descriptor to wake a poll with. */
int tidings_eventfd(void);

/** timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK): a one-shot alarm to poll. */
int tidings_timerfd(void);

/**
 * Arms `timer` to expire once, `nanoseconds` from now (0 disarms it);
 * arming it again before it expires moves the expiry. Thread: any.
 */
int tidings_timerfd_arm(int timer, unsigned long long nanoseconds);

/**
 * timerfd_create(clock, TFD_CLOEXEC | TFD_NONBLOCK): an alarm on `clock`
 * (CLOCK_REALTIME, CLOCK_BOOTTIME, …) to poll.
 */
int tidings_timerfd_on(int clock);

/**
 * Arms `timer` to expire once when its clock reads `nanoseconds` (absolute,
 * TFD_TIMER_ABSTIME; 0 disarms it). With `cancelOnSet`, on a CLOCK_REALTIME
 * timer, a change of the wall clock (settimeofday, a jump) makes the next
 * read fail with ECANCELED (TFD_TIMER_CANCEL_ON_SET). Thread: any.
 */
int tidings_timerfd_arm_at(int timer, unsigned long long nanoseconds, int cancelOnSet);

/**
 * accept4(listener, NULL, NULL, flags): the next connection, its flags
 * (SOCK_CLOEXEC, SOCK_NONBLOCK) set as it is made. Unlike the others, it
 * returns -1 and sets errno, as accept4 does, so that the caller's
 * SystemCall.retrying owns its EINTR.
 */
int tidings_accept4(int listener, int flags);

/** pipe2(fds, flags). */
int tidings_pipe2(int fds[2], int flags);

/* ------------------------------------------------------------------------ */
/* epoll, which glibc's Swift module does not declare                        */
/* ------------------------------------------------------------------------ */

/* The event bits of epoll (checked against <sys/epoll.h> in calls.c). */
#define TIDINGS_EPOLL_IN 0x001u
#define TIDINGS_EPOLL_OUT 0x004u
#define TIDINGS_EPOLL_ERR 0x008u
#define TIDINGS_EPOLL_HUP 0x010u

/** What epoll reports of one descriptor: the token it was added with, and its events. */
typedef struct {
    uint64_t token;
    uint32_t events;
} tidings_epoll_ready;

/** epoll_create1(EPOLL_CLOEXEC): a descriptor. */
int tidings_epoll_create(void);

/**
 * epoll_ctl(epoll, operation, file, {events, token}): operation 0 adds
 * `file`, 1 changes its events, 2 removes it. -EPERM for a file epoll
 * cannot watch (a regular file, /dev/null).
 */
int tidings_epoll_control(int epoll, int operation, int file, uint32_t events, uint64_t token);

/**
 * epoll_wait(epoll, …, capacity, timeout in ms, -1 for none): the number of
 * descriptors ready, written to `ready` (at most `capacity`, at most 256).
 * Like accept4, it returns -1 and sets errno, so that the caller's
 * SystemCall.retrying owns its EINTR.
 */
int tidings_epoll_wait(int epoll, tidings_epoll_ready *ready, int capacity, int timeout);

/**
 * A sealed, read-only copy of the regular file `source` that names nothing:
 * a memfd called `name`, filled from `source` (copy_file_range, else
 * read/write; EINTR retried here), its mode 0400, sealed against writing,
 * shrinking, growing and further seals, and opened again read-only
 * through /proc/self/fd. Returns that read-only descriptor (O_CLOEXEC),
 * or a negative errno; -EFBIG when `source` is larger than `limit` bytes.
 */
int tidings_sealed_copy(int source, const char *name, unsigned long long limit);

/**
 * `file` opened again, read-only (O_CLOEXEC), through /proc/self/fd: a
 * description of its own (its own offset); a negative errno on failure.
 */
int tidings_reopen_read_only(int file);

/** pidfd_open(pid, 0): a descriptor; -ENOSYS before Linux 5.3. */
int tidings_pidfd_open(pid_t pid);

/** pidfd_send_signal(pidfd, signal, NULL, 0); -ENOSYS before Linux 5.1. */
int tidings_pidfd_send_signal(int pidfd, int signal);

/** The calling thread's stack: its lowest usable address and size (pthread_getattr_np). */
int tidings_thread_stack(uintptr_t *low, size_t *size);

/**
 * A timer on this process's CPU clock (every thread's time) that sends
 * `signal` to the thread `thread` when it expires: the kernel's timer id
 * (what seccomp sees), or a negative errno.
 */
int tidings_cpu_timer_create(int signal, pid_t thread);

/**
 * Arms `timer` to expire after `nanoseconds` of CPU time from now and then
 * every `interval` nanoseconds (0: once); 0 disarms it.
 */
int tidings_cpu_timer_arm(int timer, uint64_t nanoseconds, uint64_t interval);

/**
 * O_PATH, as <fcntl.h> has it only under _GNU_SOURCE (which Swift's Glibc
 * module lacks): a descriptor that locates a file without opening it for
 * reading or writing, for use as the directory of the *at calls.
 */
#define TIDINGS_O_PATH 010000000

/** The `resolve` flags of openat2, as <linux/openat2.h> has them. */
#define TIDINGS_RESOLVE_NO_XDEV       0x01
#define TIDINGS_RESOLVE_NO_MAGICLINKS 0x02
#define TIDINGS_RESOLVE_NO_SYMLINKS   0x04
#define TIDINGS_RESOLVE_BENEATH       0x08

/**
 * openat2(directory, path, {flags, mode, resolve}): a descriptor;
 * -ENOSYS before Linux 5.6. O_CLOEXEC is always added.
 */
int tidings_openat2(int directory, const char *path, int flags, unsigned int mode, uint64_t resolve);

/* ------------------------------------------------------------------------ */
/* The allocator (glibc's malloc.h, which glibc's Swift module leaves out)   */
/* ------------------------------------------------------------------------ */

/**
 * Fixes malloc's settings for a long-running process: at most `arenas`
 * arenas (M_ARENA_MAX), blocks of `mmap_threshold` bytes or more mapped on
 * their own and unmapped when freed (M_MMAP_THRESHOLD), and free memory
 * above `trim_threshold` bytes at the top of an arena given back
 * (M_TRIM_THRESHOLD). Fixed thresholds stop glibc raising them after large
 * blocks are freed (up to 32 and 64 MB), which keeps freed memory in the
 * process. 0, or -EINVAL when malloc refused a setting.
 */
int tidings_malloc_settings(int arenas, int mmap_threshold, int trim_threshold);

/** malloc_trim(0): gives free memory of every arena back to the system; 1 when some went back, 0 when none could. */
int tidings_malloc_trim(void);

/* ------------------------------------------------------------------------ */
/* Descriptors beside a message (SCM_RIGHTS)                                 */
/* ------------------------------------------------------------------------ */

/** CMSG_SPACE for `count` descriptors. */
size_t tidings_rights_space(size_t count);

/**
 * Writes one SCM_RIGHTS control message carrying `files` into `buffer`;
 * returns its length (CMSG_SPACE), or 0 when `capacity` is too small or
 * `count` is 0.
 */
size_t tidings_rights_build(void *buffer, size_t capacity, const int *files, size_t count);

/**
 * Reads the descriptors of every SCM_RIGHTS control message in the first
 * `length` bytes of `buffer` into `files` (at most `capacity`); returns how
 * many there were in all. Those beyond `capacity` are closed.
 */
size_t tidings_rights_collect(const void *buffer, size_t length, int *files, size_t capacity);

/* ------------------------------------------------------------------------ */
/* seccomp                                                                   */
/* ------------------------------------------------------------------------ */

/** What the worker's seccomp filter allows beyond its base set. */
struct tidings_seccomp_options {
    /** Sizes first: sizeof(struct tidings_seccomp_options). */
    uint32_t struct_size;
    /** AF_INET and AF_INET6 sockets (the bundle's policy grants the network). */
    bool allow_network;
    /**
     * The process id signals may go to (kill, tgkill, rt_sigqueueinfo,
     * rt_tgsigqueueinfo); signals to any other process are refused.
     */
    pid_t own_pid;
    /**
     * A timer (kernel id) that may no longer be changed or deleted
     * (timer_settime and timer_delete refused for it): the worker's CPU
     * watchdog. -1 for none.
     */
    int guarded_timer;
};

/**
 * Installs the worker's seccomp filter on every thread of the process
 * (SECCOMP_FILTER_FLAG_TSYNC). Needs no_new_privs, and sets it when it is
 * not set yet. Returns 0, or a negative errno (-ENOSYS when the kernel has
 * no seccomp filters or the filter does not know the architecture, -ESRCH
 * when a thread could not be synchronised, -EINVAL when `own_pid` is not
 * positive or `guarded_timer` below -1).
 */
int tidings_seccomp_install(const struct tidings_seccomp_options *options);

/* ------------------------------------------------------------------------ */
/* Landlock                                                                  */
/* ------------------------------------------------------------------------ */

/** The highest Landlock ABI the kernel has; 0 (or negative errno) when none. */
int tidings_landlock_abi(void);

/** What a Landlock rule grants beneath its path. */
enum tidings_landlock_access {
    /** Read files and list directories. */
    TIDINGS_LANDLOCK_READ = 1,
    /** Read, and execute files (execve). */
    TIDINGS_LANDLOCK_READ_EXECUTE = 2,
    /** Read, write, create, remove, truncate: a private scratch directory. */
    TIDINGS_LANDLOCK_READ_WRITE = 3,
    /** Read and write existing files, create nothing (device nodes such as /dev/null). */
    TIDINGS_LANDLOCK_READ_WRITE_FILES = 4,
};

/** One Landlock rule: a path and what it grants beneath it. */
struct tidings_landlock_rule {
    const char *path;
    enum tidings_landlock_access access;
};

/** What tidings_landlock_restrict did. */
struct tidings_landlock_result {
    /** The ABI version used (the kernel's, capped at what this code knows). */
    int abi;
    /** Rules whose path was missing, and so skipped. */
    int skipped;
    /** True when TCP bind and connect are refused (ABI 4 and later). */
    bool network_restricted;
    /** True when abstract UNIX sockets and signals are scoped (ABI 6 and later). */
    bool scoped;
};

/**
 * Restricts the calling thread (and the threads it creates later) to
 * `rules`: every file system access right the kernel's ABI knows is
 * handled; TCP bind/connect are refused unless `allow_network`; abstract
 * UNIX sockets and signals are scoped to the domain. Call it before any
 * other thread exists. Needs no_new_privs, and sets it when it is not set
 * yet. A rule whose path does not exist (ENOENT, ENOTDIR) is skipped and
 * counted; on a path that is not a directory only the rights of a file are
 * granted. Returns 0 or a negative errno (-EOPNOTSUPP when Landlock is off,
 * -ENOSYS when the kernel lacks it, -EINVAL for an unknown access); `result`
 * (which may be NULL) is filled only on success.
 */
int tidings_landlock_restrict(const struct tidings_landlock_rule *rules, size_t count, bool allow_network,
                              struct tidings_landlock_result *result);

/* ------------------------------------------------------------------------ */
/* The sandboxed spawn                                                       */
/* ------------------------------------------------------------------------ */

/** Namespaces a sandbox is made in (tidings_spawn_request.namespaces). */
#define TIDINGS_NAMESPACE_USER    0x01u
#define TIDINGS_NAMESPACE_PID     0x02u
#define TIDINGS_NAMESPACE_MOUNT   0x04u
#define TIDINGS_NAMESPACE_IPC     0x08u
#define TIDINGS_NAMESPACE_NETWORK 0x10u
#define TIDINGS_NAMESPACE_UTS     0x20u

/** One entry of the worker's file system view (with TIDINGS_NAMESPACE_MOUNT). */
enum tidings_mount_kind {
    /** `source` bound at `target` read-only, nosuid, nodev (a directory or a file). */
    TIDINGS_MOUNT_BIND = 1,
    /** The device node `source` bound at `target` (read-write, nosuid, noexec). */
    TIDINGS_MOUNT_DEVICE = 2,
    /** A symbolic link at `target` whose text is `source`. */
    TIDINGS_MOUNT_SYMLINK = 3,
    /** A new tmpfs at `target` of at most `size` bytes, mode 1777, nosuid, nodev. */
    TIDINGS_MOUNT_TMPFS = 4,
    /** The new PID namespace's proc at `target` (nosuid, nodev, noexec). */
    TIDINGS_MOUNT_PROC = 5,
    /** An empty directory at `target`. */
    TIDINGS_MOUNT_DIRECTORY = 6,
};

/** One entry of the view. Parents come before what they hold. */
struct tidings_mount {
    const char *source;
    /** An absolute path inside the view. */
    const char *target;
    enum tidings_mount_kind kind;
    uint64_t size;
    /** When true, a missing source skips the entry instead of failing. */
    bool optional;
};

/** How to start a worker in a sandbox. */
struct tidings_spawn_request {
    /** Sizes first: sizeof(struct tidings_spawn_request). */
    uint32_t struct_size;
    /** The program (an absolute path, the same inside the view). */
    const char *executable;
    /** argv and envp, each ending in NULL. */
    char *const *arguments;
    char *const *environment;
    /** Becomes the worker's descriptor 3. */
    int channel;
    /** Becomes the worker's descriptors 1 and 2; -1 for /dev/null. */
    int output;
    /**
     * Becomes the worker's descriptor 4, or -1: the bundle's directory, for
     * a worker that cannot reach it by path (a root host's worker runs as
     * nobody; without a view of its own, the bundle's parents may be closed
     * to it), which then names it /proc/self/fd/4.
     */
    int bundle_directory;
    /** TIDINGS_NAMESPACE_* bits. PID without USER needs privilege, as does any namespace. */
    uint32_t namespaces;
    /** The view, with TIDINGS_NAMESPACE_MOUNT; ignored without it. */
    const struct tidings_mount *mounts;
    size_t mount_count;
    /** An existing directory the view's root is assembled on (hidden from the host: a new mount namespace). */
    const char *scratch;
    /**
     * A cgroup v2 directory the sandbox starts in (CLONE_INTO_CGROUP), or -1
     * (it then starts in the calling thread's cgroups).
     */
    int cgroup_directory;
    /**
     * With TIDINGS_NAMESPACE_USER: the user and group the worker runs as,
     * mapped to themselves. When the caller is privileged (CAP_SETUID and
     * CAP_SETGID), any ids, and supplementary groups are dropped; otherwise
     * they must be the caller's effective ids.
     */
    uid_t user;
    gid_t group;
    /** The host name inside a new UTS namespace. */
    const char *host_name;
    /**
     * A directory init removes, with all in it, once the worker and all it
     * left have ended (a private scratch directory made for a worker without
     * a view of its own), or NULL.
     */
    const char *remove_when_done;
    /**
     * RLIMIT_NPROC of the worker (soft and hard, capped at the caller's hard
     * limit), set by init once it has the worker's identity; 0 for none. The
     * kernel counts it per user namespace and user (Linux 5.14 and later):
     * in a user namespace of its own, every task of the sandbox, init and
     * the worker's threads included; without one, every task of the
     * worker's user on the machine.
     */
    uint32_t task_limit;
};

/** Where a spawn failed (tidings_spawn_result.step). */
enum tidings_spawn_step {
    TIDINGS_SPAWN_STEP_NONE = 0,
    /** The control socket, or the descriptors the child keeps. */
    TIDINGS_SPAWN_STEP_SETUP = 1,
    /** clone3 (or clone) itself: namespaces the kernel or the caller cannot make. */
    TIDINGS_SPAWN_STEP_CLONE = 2,
    /** Writing the user namespace's id maps. */
    TIDINGS_SPAWN_STEP_ID_MAP = 3,
    /** Making the mounts private, or opening a source of the view. */
    TIDINGS_SPAWN_STEP_MOUNT_SOURCE = 5,
    /** Assembling the view (entry `mount_index`). */
    TIDINGS_SPAWN_STEP_MOUNT = 6,
    /** pivot_root into the view. */
    TIDINGS_SPAWN_STEP_PIVOT = 7,
    /** Dropping to the worker's user and group. */
    TIDINGS_SPAWN_STEP_IDENTITY = 8,
    /** no_new_privs and the signal setup. */
    TIDINGS_SPAWN_STEP_PRIVILEGES = 9,
    /** Starting the worker under the sandbox's init. */
    TIDINGS_SPAWN_STEP_FORK = 10,
    /** execve of the worker. */
    TIDINGS_SPAWN_STEP_EXEC = 11,
    /** The child ended before it said how far it came. */
    TIDINGS_SPAWN_STEP_LOST = 12,
};

/** What tidings_spawn_sandboxed made, or where it failed. */
struct tidings_spawn_result {
    /** The sandbox's init (PID 1 of its namespace when there is one), in the caller's namespace. */
    pid_t pid;
    /** A pidfd of init, or -1 (kernels before 5.3). Close-on-exec. */
    int pidfd;
    /**
     * The caller's end of the control socket (SOCK_SEQPACKET, close-on-exec).
     * Init reports the worker's end on it (struct tidings_sandbox_report);
     * a byte sent on it asks init to kill everything in the sandbox; closing
     * it (or the caller's death) does the same.
     */
    int control;
    /** On failure: the step, the negative errno, and the view entry. */
    enum tidings_spawn_step step;
    int error;
    int mount_index;
};

/**
 * Starts `request->executable` in a sandbox of its own and waits until it
 * has been executed (or failed to be).
 *
 * The sandbox's first process ("init", made with clone3, in the new
 * namespaces) sets up the view, drops to the worker's identity, sets
 * no_new_privs, resets every signal's action and mask, closes every
 * descriptor of the caller, and starts the worker (vfork + execve). It then
 * waits: when the worker ends it reports how (struct tidings_sandbox_report)
 * and exits, and every process left in the sandbox is killed — by the
 * kernel, as init of a PID namespace, or by init itself, as subreaper,
 * without one. When the caller goes away (or asks), init kills them all.
 *
 * Safe to call from any thread of a multi-threaded process: the child runs
 * no code but system calls until execve. Returns 0, or a negative errno
 * with `result->step` set (nothing is left running then).
 */
int tidings_spawn_sandboxed(const struct tidings_spawn_request *request, struct tidings_spawn_result *result);

/** What init sends on the control socket. */
enum tidings_sandbox_report_kind {
    /** The worker is running (execve succeeded). */
    TIDINGS_SANDBOX_STARTED = 1,
    /** Setting up failed at `step` with `error`. */
    TIDINGS_SANDBOX_FAILED = 2,
    /** The worker ended: `wait_status` and its usage. */
    TIDINGS_SANDBOX_ENDED = 3,
    /** Init may have its id maps written now (sent first, by an unprivileged caller's init only). */
    TIDINGS_SANDBOX_MAPPABLE = 4,
};

/** One report of init's, one datagram. */
struct tidings_sandbox_report {
    uint32_t kind;
    int32_t step;
    int32_t error;
    int32_t mount_index;
    /** The worker's pid in the caller's namespace is not known to init; this is init's view of it. */
    int32_t worker_pid;
    int32_t wait_status;
    int64_t max_resident_kilobytes;
    int64_t user_microseconds;
    int64_t system_microseconds;
};

/** The sanitizer this build was compiled with (`--sanitize=address` or `thread`). */
enum tidings_sanitizer_kind {
    TIDINGS_SANITIZER_NONE = 0,
    TIDINGS_SANITIZER_ADDRESS = 1,
    TIDINGS_SANITIZER_THREAD = 2,
};

/** Which sanitizer's runtime is in this process: one of `enum tidings_sanitizer_kind`. */
int tidings_sanitizer(void);

#ifdef __cplusplus
}
#endif

#endif /* TIDINGS_SYSTEM_SHIMS_H */
