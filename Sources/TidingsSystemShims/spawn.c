/*
 * The sandboxed spawn, the caller's side: clone3 into new namespaces (or
 * clone() under ThreadSanitizer, see spawn_internal.h), the child's id maps,
 * and the start signal. What the child runs is init (init.c).
 *
 * Everything after clone3 runs in a copy of a multi-threaded Swift process:
 * only system calls (through syscall() or thin glibc wrappers that take no
 * lock and allocate nothing) may run there — no malloc, no stdio, no
 * glibc function that believes other threads exist (setresuid, raise, …).
 * Strings and tables are prepared by the caller before the clone.
 */
#define _GNU_SOURCE
#include "spawn_internal.h"

/* struct clone_args of <linux/sched.h> (v2: with cgroup), which older headers lack. */
struct spawn_clone_args {
    uint64_t flags;
    uint64_t pidfd;
    uint64_t child_tid;
    uint64_t parent_tid;
    uint64_t exit_signal;
    uint64_t stack;
    uint64_t stack_size;
    uint64_t tls;
    uint64_t set_tid;
    uint64_t set_tid_size;
    uint64_t cgroup;
};

static long sys_result(long value) {
    return value < 0 ? -errno : value;
}


/* ---- The caller's side --------------------------------------------------- */

/* Writes `text` to the file `name` of /proc/PID. */
static int write_proc(pid_t pid, const char *name, const char *text) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int file = open(path, O_WRONLY | O_CLOEXEC);
    if (file < 0) return -errno;
    ssize_t length = (ssize_t)strlen(text);
    ssize_t written = write(file, text, (size_t)length);
    int error = written == length ? 0 : (written < 0 ? -errno : -EIO);
    close(file);
    return error;
}

/*
 * The user namespace's maps: the worker's ids to themselves. A privileged
 * caller's child is root until it drops to the worker's ids, and files it
 * makes for the view need an owner the namespace maps: root is mapped too
 * (it gains nothing outside the namespace, and the worker cannot return to it).
 */
static int write_id_maps(pid_t pid, const struct tidings_spawn_request *request, bool privileged) {
    char map[64];
    int error = 0;
    if (!privileged) error = write_proc(pid, "setgroups", "deny");
    if (privileged && request->user != 0) {
        snprintf(map, sizeof map, "0 0 1\n%u %u 1\n", (unsigned)request->user, (unsigned)request->user);
    } else {
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)request->user, (unsigned)request->user);
    }
    if (error == 0) error = write_proc(pid, "uid_map", map);
    if (privileged && request->group != 0) {
        snprintf(map, sizeof map, "0 0 1\n%u %u 1\n", (unsigned)request->group, (unsigned)request->group);
    } else {
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)request->group, (unsigned)request->group);
    }
    if (error == 0) error = write_proc(pid, "gid_map", map);
    return error;
}

static void end_child(pid_t pid) {
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR) {
    }
}

#ifdef TIDINGS_THREAD_SANITIZER
/* What init is started with when it is made by clone(). */
struct init_start {
    const struct tidings_spawn_request *request;
    int control_end;
    bool privileged;
};

static int start_init(void *argument) {
    const struct init_start *start = argument;
    spawn_run_init(start->request, start->control_end, start->privileged);
}

/*
 * Init made as ThreadSanitizer must see it (see spawn_internal.h): by
 * glibc's clone(), on a stack of its own, which the copy keeps. clone() has
 * no CLONE_INTO_CGROUP: init joins its cgroup here, before it is told to go,
 * so that the worker it starts is in it from the start. Returns the pid, or
 * -1 with errno set.
 */
static long clone_init(uint64_t flags, int *pidfd, const struct tidings_spawn_request *request, int control_end,
                       bool privileged) {
    size_t stack_size = 256 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    struct init_start start = {request, control_end, privileged};
    long pid = clone(start_init, (char *)stack + stack_size, (int)(flags | CLONE_PIDFD) | SIGCHLD, &start, pidfd);
    int error = errno;
    munmap(stack, stack_size);
    if (pid > 0 && request->cgroup_directory >= 0) {
        char text[24];
        int length = snprintf(text, sizeof text, "%ld\n", pid);
        int procs = openat(request->cgroup_directory, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        bool joined = procs >= 0 && write(procs, text, (size_t)length) == length;
        if (!joined) error = errno != 0 ? errno : EIO;
        if (procs >= 0) close(procs);
        if (!joined) {
            end_child((pid_t)pid);
            if (*pidfd >= 0) close(*pidfd);
            *pidfd = -1;
            pid = -1;
        }
    }
    errno = error;
    return pid;
}
#endif

int tidings_spawn_sandboxed(const struct tidings_spawn_request *request, struct tidings_spawn_result *result) {
    memset(result, 0, sizeof *result);
    result->pid = -1;
    result->pidfd = -1;
    result->control = -1;
    result->mount_index = -1;
    if (request == NULL || request->struct_size < sizeof *request || request->mount_count > MAX_MOUNTS) {
        result->step = TIDINGS_SPAWN_STEP_SETUP;
        result->error = -EINVAL;
        return -EINVAL;
    }
    bool privileged = geteuid() == 0;
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) < 0) {
        result->step = TIDINGS_SPAWN_STEP_SETUP;
        result->error = -errno;
        return result->error;
    }

    uint64_t flags = 0;
    if (request->namespaces & TIDINGS_NAMESPACE_USER) flags |= CLONE_NEWUSER;
    if (request->namespaces & TIDINGS_NAMESPACE_PID) flags |= CLONE_NEWPID;
    if (request->namespaces & TIDINGS_NAMESPACE_MOUNT) flags |= CLONE_NEWNS;
    if (request->namespaces & TIDINGS_NAMESPACE_IPC) flags |= CLONE_NEWIPC;
    if (request->namespaces & TIDINGS_NAMESPACE_NETWORK) flags |= CLONE_NEWNET;
    if (request->namespaces & TIDINGS_NAMESPACE_UTS) flags |= CLONE_NEWUTS;
    int pidfd = -1;
#ifndef TIDINGS_THREAD_SANITIZER
    struct spawn_clone_args arguments;
    memset(&arguments, 0, sizeof arguments);
    arguments.flags = flags | CLONE_PIDFD;
    arguments.pidfd = (uint64_t)(uintptr_t)&pidfd;
    arguments.exit_signal = SIGCHLD;
    if (request->cgroup_directory >= 0) {
        arguments.flags |= CLONE_INTO_CGROUP;
        arguments.cgroup = (uint64_t)request->cgroup_directory;
    }
#endif

    /* Nothing is delivered to the child before it has reset every action (as posix_spawn does). */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
#ifdef TIDINGS_THREAD_SANITIZER
    long pid = clone_init(flags, &pidfd, request, ends[1], privileged);
#else
    long pid = syscall(SYS_clone3, &arguments, sizeof arguments);
    if (pid < 0 && errno == ENOSYS && request->cgroup_directory < 0) {
        /* Before Linux 5.3: clone, with its pidfd made afterwards when the kernel can. */
        pid = syscall(SYS_clone, (unsigned long)flags | SIGCHLD, 0, NULL, NULL, 0);
        pidfd = -1;
    }
    if (pid == 0) spawn_run_init(request, ends[1], privileged);
#endif
    int clone_error = pid < 0 ? -errno : 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(ends[1]);
    if (pid < 0) {
        close(ends[0]);
        result->step = TIDINGS_SPAWN_STEP_CLONE;
        result->error = clone_error;
        return clone_error;
    }
    if (pidfd < 0) pidfd = (int)sys_result(syscall(SYS_pidfd_open, (pid_t)pid, 0));
    if (pidfd >= 0) fcntl(pidfd, F_SETFD, FD_CLOEXEC);

    int error = 0;
    struct tidings_sandbox_report first;
    memset(&first, 0, sizeof first);
    ssize_t got = -1;
    if ((request->namespaces & TIDINGS_NAMESPACE_USER) != 0 && !privileged) {
        /* Init says when its maps may be written (it must be dumpable first). */
        do {
            got = recv(ends[0], &first, sizeof first, 0);
        } while (got < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof first || first.kind != TIDINGS_SANDBOX_MAPPABLE) error = -ECHILD;
    }
    if (error == 0 && (request->namespaces & TIDINGS_NAMESPACE_USER)) {
        error = write_id_maps((pid_t)pid, request, privileged);
    }
    if (error != 0) {
        end_child((pid_t)pid);
        close(ends[0]);
        if (pidfd >= 0) close(pidfd);
        if (error == -ECHILD && got == (ssize_t)sizeof first && first.kind == TIDINGS_SANDBOX_FAILED) {
            result->step = (enum tidings_spawn_step)first.step;
            result->error = first.error != 0 ? first.error : -EIO;
        } else {
            result->step = TIDINGS_SPAWN_STEP_ID_MAP;
            result->error = error;
        }
        return result->error;
    }
    char go = 'g';
    if (send(ends[0], &go, 1, MSG_NOSIGNAL) != 1) error = -errno;
    got = -1;
    if (error == 0) {
        do {
            got = recv(ends[0], &first, sizeof first, 0);
        } while (got < 0 && errno == EINTR);
    }
    if (error != 0 || got != (ssize_t)sizeof first || first.kind != TIDINGS_SANDBOX_STARTED) {
        end_child((pid_t)pid);
        close(ends[0]);
        if (pidfd >= 0) close(pidfd);
        if (error == 0 && got == (ssize_t)sizeof first && first.kind == TIDINGS_SANDBOX_FAILED) {
            result->step = (enum tidings_spawn_step)first.step;
            result->error = first.error != 0 ? first.error : -EIO;
            result->mount_index = first.mount_index;
        } else {
            result->step = TIDINGS_SPAWN_STEP_LOST;
            result->error = error != 0 ? error : -ECHILD;
        }
        return result->error;
    }
    result->pid = (pid_t)pid;
    result->pidfd = pidfd;
    result->control = ends[0];
    return 0;
}
