/*
 * The sandboxed spawn: clone3 into new namespaces, an init that builds the
 * worker's view of the file system, drops privileges and starts the worker,
 * then stays as the sandbox's reaper and reports how the worker ended.
 *
 * Everything after clone3 runs in a copy of a multi-threaded Swift process:
 * only system calls (through syscall() or thin glibc wrappers that take no
 * lock and allocate nothing) may run there — no malloc, no stdio, no
 * glibc function that believes other threads exist (setresuid, raise, …).
 * Strings and tables are prepared by the caller before the clone.
 */
#define _GNU_SOURCE
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
 * copies this file makes must be made as the sanitizer's runtime expects.
 * Its clone() interceptor holds every lock of the runtime across the call,
 * as for fork, and the copy then passes its calls straight to glibc. A raw
 * clone3 is never seen: a lock another thread of the caller held at that
 * moment stays held in the copy, whose first intercepted call (close, send,
 * _exit, …) may wait for it forever. So init is made with glibc's clone()
 * (see clone_init). The worker, which shares init's memory until it execs,
 * is made with glibc's __clone, the same function without the interceptor,
 * whose bookkeeping in a copy that shares the memory would undo init's.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TIDINGS_THREAD_SANITIZER 1
extern int __clone(int (*function)(void *), void *stack, int flags, void *argument, ...);
#endif
#endif

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

/* struct mount_attr of <linux/mount.h>. */
struct spawn_mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

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

/* The descriptor the worker's view gets for /dev/null when it has no output. */
static const char dev_null[] = "/dev/null";

/* ---- Helpers that are safe after clone ---------------------------------- */

static long sys_result(long value) {
    return value < 0 ? -errno : value;
}

static void report(int control, uint32_t kind, int step, int error, int index, int worker, int status,
                   const struct rusage *usage) {
    struct tidings_sandbox_report message;
    memset(&message, 0, sizeof message);
    message.kind = kind;
    message.step = step;
    message.error = error;
    message.mount_index = index;
    message.worker_pid = worker;
    message.wait_status = status;
    if (usage != NULL) {
        message.max_resident_kilobytes = usage->ru_maxrss;
        message.user_microseconds = (int64_t)usage->ru_utime.tv_sec * 1000000 + usage->ru_utime.tv_usec;
        message.system_microseconds = (int64_t)usage->ru_stime.tv_sec * 1000000 + usage->ru_stime.tv_usec;
    }
    while (send(control, &message, sizeof message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

/* Reports a failed step with the current errno and ends init. */
static __attribute__((noreturn)) void fail(int control, int step, int index) {
    report(control, TIDINGS_SANDBOX_FAILED, step, -errno, index, 0, 0, NULL);
    _exit(127);
}

/* Closes every descriptor from `first` on. */
static void close_from(int first) {
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
    struct rlimit limit;
    long highest = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? (long)limit.rlim_cur : 65536;
    for (long file = first; file < highest; file++) close((int)file);
}

/* Moves `files[i]` to descriptor `first + i` (skipping -1 entries, which stay -1), then closes every other from 3 on. */
static int arrange(int *files, int count, int first) {
    int moved[SLOT_COUNT];
    for (int index = 0; index < count; index++) {
        moved[index] = -1;
        if (files[index] < 0) continue;
        moved[index] = fcntl(files[index], F_DUPFD, first + count);
        if (moved[index] < 0) return -1;
    }
    for (int index = 0; index < count; index++) {
        if (moved[index] < 0) continue;
        if (dup2(moved[index], first + index) < 0) return -1;
        files[index] = first + index;
    }
    close_from(first + count);
    return 0;
}

/* Every catchable signal back to its default action; the mask is left alone. */
static void reset_signal_actions(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; signal++) {
        if (signal == SIGKILL || signal == SIGSTOP) continue;
        syscall(SYS_rt_sigaction, signal, &action, NULL, sizeof(uint64_t));
    }
}

/* Appends the decimal digits of `value` to `buffer` at `*length` (bounded by `capacity`). */
static void append_number(char *buffer, size_t *length, size_t capacity, uint64_t value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    while (count > 0 && *length + 1 < capacity) buffer[(*length)++] = digits[--count];
    buffer[*length] = 0;
}

static void append_text(char *buffer, size_t *length, size_t capacity, const char *text) {
    while (*text != 0 && *length + 1 < capacity) buffer[(*length)++] = *text++;
    buffer[*length] = 0;
}

/* `root` followed by `path`, into `buffer`; false when it does not fit. */
static bool join(char *buffer, size_t capacity, const char *root, const char *path) {
    size_t length = 0;
    buffer[0] = 0;
    append_text(buffer, &length, capacity, root);
    append_text(buffer, &length, capacity, path);
    return length + 1 < capacity;
}

/* mkdir -p of `path` (its parent only when `parent_only`). */
static int make_directories(const char *path, bool parent_only) {
    char buffer[PATH_MAX];
    size_t length = strlen(path);
    if (length >= sizeof buffer) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buffer, path, length + 1);
    if (parent_only) {
        char *slash = strrchr(buffer, '/');
        if (slash == NULL || slash == buffer) return 0;
        *slash = 0;
    }
    for (char *cursor = buffer + 1;; cursor++) {
        if (*cursor == '/' || *cursor == 0) {
            char saved = *cursor;
            *cursor = 0;
            if (mkdir(buffer, 0755) < 0 && errno != EEXIST) return -1;
            *cursor = saved;
            if (saved == 0) break;
        }
    }
    return 0;
}

/* ---- The view ----------------------------------------------------------- */

static int set_attributes(int tree, uint64_t attributes) {
    struct spawn_mount_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.attr_set = attributes;
    return (int)syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr);
}

/*
 * Builds the view on `request->scratch` and makes it the root. Sources are
 * cloned (open_tree) before anything is mounted, so that a source below the
 * scratch directory is still reachable.
 */
static void build_view(int control, const struct tidings_spawn_request *request) {
    int trees[MAX_MOUNTS];
    size_t count = request->mount_count < MAX_MOUNTS ? request->mount_count : MAX_MOUNTS;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) fail(control, TIDINGS_SPAWN_STEP_MOUNT_SOURCE, -1);
    for (size_t index = 0; index < count; index++) {
        const struct tidings_mount *entry = &request->mounts[index];
        trees[index] = -1;
        if (entry->kind != TIDINGS_MOUNT_BIND && entry->kind != TIDINGS_MOUNT_DEVICE) continue;
        trees[index] = (int)syscall(SYS_open_tree, AT_FDCWD, entry->source,
                                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        if (trees[index] < 0) {
            if (entry->optional && (errno == ENOENT || errno == ENOTDIR)) continue;
            fail(control, TIDINGS_SPAWN_STEP_MOUNT_SOURCE, (int)index);
        }
        uint64_t attributes = entry->kind == TIDINGS_MOUNT_DEVICE
            ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC
            : MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        if (set_attributes(trees[index], attributes) < 0) fail(control, TIDINGS_SPAWN_STEP_MOUNT_SOURCE, (int)index);
    }
    const char *root = request->scratch;
    if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1048576") < 0) {
        fail(control, TIDINGS_SPAWN_STEP_MOUNT, -1);
    }
    char path[PATH_MAX];
    for (size_t index = 0; index < count; index++) {
        const struct tidings_mount *entry = &request->mounts[index];
        int step = TIDINGS_SPAWN_STEP_MOUNT;
        if (!join(path, sizeof path, root, entry->target)) {
            errno = ENAMETOOLONG;
            fail(control, step, (int)index);
        }
        switch (entry->kind) {
        case TIDINGS_MOUNT_BIND:
        case TIDINGS_MOUNT_DEVICE: {
            if (trees[index] < 0) break; /* optional and missing */
            struct stat status;
            if (fstat(trees[index], &status) < 0) fail(control, step, (int)index);
            if (S_ISDIR(status.st_mode)) {
                if (make_directories(path, false) < 0) fail(control, step, (int)index);
            } else {
                if (make_directories(path, true) < 0) fail(control, step, (int)index);
                int placeholder = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (placeholder < 0) fail(control, step, (int)index);
                close(placeholder);
            }
            if (syscall(SYS_move_mount, trees[index], "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
                fail(control, step, (int)index);
            }
            close(trees[index]);
            break;
        }
        case TIDINGS_MOUNT_SYMLINK:
            if (make_directories(path, true) < 0 || symlink(entry->source, path) < 0) fail(control, step, (int)index);
            break;
        case TIDINGS_MOUNT_TMPFS: {
            char options[64];
            size_t length = 0;
            options[0] = 0;
            append_text(options, &length, sizeof options, "mode=1777,size=");
            append_number(options, &length, sizeof options, entry->size);
            if (make_directories(path, false) < 0
                || mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) {
                fail(control, step, (int)index);
            }
            break;
        }
        case TIDINGS_MOUNT_PROC:
            if (make_directories(path, false) < 0
                || mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
                fail(control, step, (int)index);
            }
            break;
        case TIDINGS_MOUNT_DIRECTORY:
            if (make_directories(path, false) < 0) fail(control, step, (int)index);
            break;
        }
    }
    /* The view becomes the root; the old root is detached, so nothing of it stays reachable. */
    if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
        fail(control, TIDINGS_SPAWN_STEP_PIVOT, -1);
    }
    struct spawn_mount_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.attr_set = MOUNT_ATTR_RDONLY;
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/", 0, &attr, sizeof attr) < 0) fail(control, TIDINGS_SPAWN_STEP_PIVOT, -1);
}

/* ---- Killing what is left ------------------------------------------------ */

/* The pids of this process's children, as /proc lists them (without a PID namespace). */
static int list_children(pid_t self, pid_t *children, int capacity) {
    int directory = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) return 0;
    int found = 0;
    char entries[4096];
    for (;;) {
        long listed = syscall(SYS_getdents64, directory, entries, sizeof entries);
        if (listed <= 0) break;
        for (long offset = 0; offset < listed;) {
            struct dirent64 *entry = (struct dirent64 *)(entries + offset);
            offset += entry->d_reclen;
            pid_t pid = 0;
            const char *name = entry->d_name;
            for (; *name >= '0' && *name <= '9'; name++) pid = pid * 10 + (*name - '0');
            if (*name != 0 || pid <= 0) continue;
            char path[64];
            size_t length = 0;
            path[0] = 0;
            append_text(path, &length, sizeof path, "/proc/");
            append_number(path, &length, sizeof path, (uint64_t)pid);
            append_text(path, &length, sizeof path, "/stat");
            int stat = open(path, O_RDONLY | O_CLOEXEC);
            if (stat < 0) continue;
            char text[512];
            ssize_t size;
            do {
                size = read(stat, text, sizeof text - 1);
            } while (size < 0 && errno == EINTR);
            close(stat);
            if (size <= 0) continue;
            text[size] = 0;
            /* "pid (comm) state ppid …": the comm may hold anything, so look after the last ')'. */
            char *close_paren = strrchr(text, ')');
            if (close_paren == NULL || close_paren[1] == 0 || close_paren[2] == 0) continue;
            const char *field = close_paren + 4;
            pid_t parent = 0;
            for (; *field >= '0' && *field <= '9'; field++) parent = parent * 10 + (*field - '0');
            if (parent == self && found < capacity) children[found++] = pid;
        }
    }
    close(directory);
    return found;
}

/* Reaps every child that has ended; records the worker's end if it is among them. */
static void reap(pid_t worker, bool *ended, int *status, struct rusage *usage) {
    for (;;) {
        int child_status;
        struct rusage child_usage;
        pid_t reaped = wait4(-1, &child_status, WNOHANG | __WALL, &child_usage);
        if (reaped < 0 && errno == EINTR) continue;
        if (reaped <= 0) return;
        if (reaped == worker && !*ended) {
            *ended = true;
            *status = child_status;
            *usage = child_usage;
        }
    }
}

/*
 * Kills every process left in the sandbox. As init of a PID namespace one
 * kill(-1) reaches them all; without one, init is their subreaper: it kills
 * its children until none is left, as orphans of the killed come to it.
 */
static void kill_everything(bool own_namespace, int signals, pid_t worker, bool *ended, int *status,
                            struct rusage *usage) {
    if (own_namespace) {
        kill(-1, SIGKILL);
        return;
    }
    pid_t self = (pid_t)syscall(SYS_getpid);
    for (int round = 0; round < 1000; round++) {
        pid_t children[256];
        int count = list_children(self, children, 256);
        for (int index = 0; index < count; index++) kill(children[index], SIGKILL);
        reap(worker, ended, status, usage);
        if (count == 0) {
            /* Nothing listed: done once nothing is left to reap either. */
            if (wait4(-1, NULL, WNOHANG | __WALL, NULL) < 0 && errno == ECHILD) return;
        }
        struct pollfd wait_for_child = {signals, POLLIN, 0};
        poll(&wait_for_child, 1, 10);
        struct signalfd_siginfo information;
        while (read(signals, &information, sizeof information) > 0) {
        }
    }
}

/* ---- Removing the scratch directory -------------------------------------- */

/* Removes everything beneath `directory` (a descriptor), never following a link, at most `depth` levels down. */
static void remove_beneath(int directory, int depth) {
    char entries[4096];
    for (;;) {
        long listed = syscall(SYS_getdents64, directory, entries, sizeof entries);
        if (listed <= 0) return;
        for (long offset = 0; offset < listed;) {
            struct dirent64 *entry = (struct dirent64 *)(entries + offset);
            offset += entry->d_reclen;
            const char *name = entry->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
            if (unlinkat(directory, name, 0) == 0 || errno != EISDIR) continue;
            if (depth > 0) {
                int child = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (child >= 0) {
                    remove_beneath(child, depth - 1);
                    close(child);
                }
            }
            unlinkat(directory, name, AT_REMOVEDIR);
        }
    }
}

static void remove_tree(const char *path) {
    int directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (directory < 0) return;
    remove_beneath(directory, 64);
    close(directory);
    rmdir(path);
}

/* ---- The worker (after vfork) ------------------------------------------- */

struct worker_start {
    const struct tidings_spawn_request *request;
    bool has_output;
    /* Written by the worker when execve fails (it shares init's memory until then). */
    volatile int exec_error;
};

static int start_worker(void *argument) {
    struct worker_start *start = argument;
    sigset_t none;
    sigemptyset(&none);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(uint64_t));
    int null = open(dev_null, O_RDWR | O_CLOEXEC);
    bool has_bundle = start->request->bundle_directory >= 0;
    if (null < 0 || dup2(null, 0) < 0 || dup2(start->has_output ? SLOT_OUTPUT : null, 1) < 0
        || dup2(start->has_output ? SLOT_OUTPUT : null, 2) < 0 || dup2(SLOT_CHANNEL, 3) < 0
        || (has_bundle && dup2(SLOT_BUNDLE, 4) < 0)) {
        start->exec_error = -errno;
        _exit(127);
    }
    close_from(has_bundle ? 5 : 4);
    execve(start->request->executable, start->request->arguments, start->request->environment);
    start->exec_error = -errno;
    _exit(127);
}

/* ---- Init --------------------------------------------------------------- */

static __attribute__((noreturn)) void run_init(const struct tidings_spawn_request *request, int control_end,
                                               bool privileged) {
    int files[SLOT_COUNT];
    int count = 0;
    files[count++] = control_end;
    files[count++] = request->channel;
    files[count++] = request->output;
    files[count++] = request->bundle_directory;
    if (arrange(files, count, SLOT_CONTROL) < 0) fail(control_end, TIDINGS_SPAWN_STEP_SETUP, -1);
    int control = SLOT_CONTROL;
    /* Nothing of the caller's standard streams stays open here: a reader of its output sees the end when it ends. */
    int null = open(dev_null, O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) fail(control, TIDINGS_SPAWN_STEP_SETUP, -1);
    if (null > 2) close(null);
    reset_signal_actions();

    /*
     * The caller writes the id maps, then says go. A caller without privilege
     * may write them only while init is dumpable, and init, a copy of the
     * caller, inherited the caller's non-dumpable state (which keeps other
     * processes of the user out of the copy of its memory): init is dumpable
     * for that moment only.
     */
    bool mappable = (request->namespaces & TIDINGS_NAMESPACE_USER) != 0 && !privileged;
    if (mappable) {
        if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) fail(control, TIDINGS_SPAWN_STEP_ID_MAP, -1);
        report(control, TIDINGS_SANDBOX_MAPPABLE, 0, 0, -1, 0, 0, NULL);
    }
    char go = 0;
    ssize_t got;
    do {
        got = read(control, &go, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) _exit(127);
    if (mappable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) fail(control, TIDINGS_SPAWN_STEP_ID_MAP, -1);

    bool own_pid_namespace = (request->namespaces & TIDINGS_NAMESPACE_PID) != 0;
    if (!own_pid_namespace) {
        /* Without a PID namespace, orphans of the worker come to init, which kills them at the end. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);
        setpgid(0, 0);
    }
    if ((request->namespaces & TIDINGS_NAMESPACE_MOUNT) != 0 && request->mount_count > 0) build_view(control, request);
    if ((request->namespaces & TIDINGS_NAMESPACE_UTS) != 0 && request->host_name != NULL) {
        syscall(SYS_sethostname, request->host_name, strlen(request->host_name));
    }
    if (privileged) {
        /* Raw calls: glibc's would try to change the ids of threads only the caller has. */
        if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, request->group, request->group, request->group) < 0
            || syscall(SYS_setresuid, request->user, request->user, request->user) < 0) {
            fail(control, TIDINGS_SPAWN_STEP_IDENTITY, -1);
        }
    }
    if (request->task_limit > 0) {
        /*
         * After the identity: the count is of the worker's user (in its user
         * namespace when it has one), and setresuid above a limit would mark
         * init as over it. Soft and hard alike, so nothing raises it again.
         */
        struct rlimit limit;
        if (getrlimit(RLIMIT_NPROC, &limit) < 0) fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);
        rlim_t tasks = request->task_limit;
        if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < tasks) tasks = limit.rlim_max;
        limit.rlim_cur = tasks;
        limit.rlim_max = tasks;
        if (setrlimit(RLIMIT_NPROC, &limit) < 0) fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);

    /* SIGCHLD stays blocked and arrives through a signalfd; every other signal is unblocked. */
    sigset_t child_signal;
    sigemptyset(&child_signal);
    sigaddset(&child_signal, SIGCHLD);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &child_signal, NULL, sizeof(uint64_t));
    /* Above the slots, which may be free now and are closed once the worker runs. */
    int made = signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
    int signals = made < 0 ? -1 : fcntl(made, F_DUPFD_CLOEXEC, SLOT_CONTROL + SLOT_COUNT);
    if (made >= 0) close(made);
    if (signals < 0) fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);

    size_t stack_size = 64 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) fail(control, TIDINGS_SPAWN_STEP_FORK, -1);
    struct worker_start start = {request, request->output >= 0, 0};
#ifdef TIDINGS_THREAD_SANITIZER
    pid_t worker = __clone(start_worker, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
#else
    pid_t worker = clone(start_worker, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
#endif
    if (worker < 0) fail(control, TIDINGS_SPAWN_STEP_FORK, -1);
    munmap(stack, stack_size);
    bool ended = false;
    int status = 0;
    struct rusage usage;
    memset(&usage, 0, sizeof usage);
    if (start.exec_error != 0) {
        reap(worker, &ended, &status, &usage);
        report(control, TIDINGS_SANDBOX_FAILED, TIDINGS_SPAWN_STEP_EXEC, start.exec_error, -1, 0, 0, NULL);
        _exit(127);
    }
    report(control, TIDINGS_SANDBOX_STARTED, 0, 0, -1, worker, 0, NULL);
    for (int index = 1; index < count; index++) {
        if (files[index] >= 0) close(files[index]);
    }

    struct pollfd watched[2] = {{control, POLLIN, 0}, {signals, POLLIN, 0}};
    while (!ended) {
        if (poll(watched, 2, -1) < 0) continue;
        if (watched[1].revents != 0) {
            struct signalfd_siginfo information;
            while (read(signals, &information, sizeof information) > 0) {
            }
            reap(worker, &ended, &status, &usage);
        }
        if (watched[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            /* The caller asks for the end, or is gone: everything goes; the worker's end is reported as it comes. */
            kill_everything(own_pid_namespace, signals, worker, &ended, &status, &usage);
            watched[0].fd = -1;
        }
    }
    kill_everything(own_pid_namespace, signals, worker, &ended, &status, &usage);
    if (request->remove_when_done != NULL) remove_tree(request->remove_when_done);
    report(control, TIDINGS_SANDBOX_ENDED, 0, 0, -1, worker, status, &usage);
    _exit(0);
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
    run_init(start->request, start->control_end, start->privileged);
}

/*
 * Init made as ThreadSanitizer must see it (see the top of this file): by
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
    if (pid == 0) run_init(request, ends[1], privileged);
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
