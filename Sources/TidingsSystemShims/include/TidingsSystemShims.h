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

/** pipe2(fds, flags). */
int tidings_pipe2(int fds[2], int flags);

/** pidfd_open(pid, 0): a descriptor; -ENOSYS before Linux 5.3. */
int tidings_pidfd_open(pid_t pid);

/** pidfd_send_signal(pidfd, signal, NULL, 0); -ENOSYS before Linux 5.1. */
int tidings_pidfd_send_signal(int pidfd, int signal);

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
     * A signal whose action may no longer be changed (rt_sigaction refused
     * for it once the filter is on): the worker's CPU watchdog. 0 for none.
     */
    int guarded_signal;
};

/**
 * Installs the worker's seccomp filter on every thread of the process
 * (SECCOMP_FILTER_FLAG_TSYNC). Needs no_new_privs, and sets it when it is
 * not set yet. Returns 0, or a negative errno (-ENOSYS when the kernel has
 * no seccomp filters or the filter does not know the architecture, -ESRCH
 * when a thread could not be synchronised, -EINVAL when `own_pid` is not
 * positive or `guarded_signal` not a signal number).
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

#ifdef __cplusplus
}
#endif

#endif /* TIDINGS_SYSTEM_SHIMS_H */
