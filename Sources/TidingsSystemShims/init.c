/*
 * The sandbox's init: it builds the worker's view of the file system
 * (view.c), drops privileges and starts the worker, then stays as the
 * sandbox's reaper and reports how the worker ended.
 *
 * Everything after clone3 runs in a copy of a multi-threaded Swift process:
 * only system calls (through syscall() or thin glibc wrappers that take no
 * lock and allocate nothing) may run there — no malloc, no stdio, no
 * glibc function that believes other threads exist (setresuid, raise, …).
 * Strings and tables are prepared by the caller before the clone.
 */
#define _GNU_SOURCE
#include "spawn_internal.h"

/* The descriptor the worker's view gets for /dev/null when it has no output. */
static const char dev_null[] = "/dev/null";

/* ---- Helpers that are safe after clone ---------------------------------- */

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
void spawn_fail(int control, int step, int index) {
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
void spawn_append_number(char *buffer, size_t *length, size_t capacity, uint64_t value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    while (count > 0 && *length + 1 < capacity) buffer[(*length)++] = digits[--count];
    buffer[*length] = 0;
}

void spawn_append_text(char *buffer, size_t *length, size_t capacity, const char *text) {
    while (*text != 0 && *length + 1 < capacity) buffer[(*length)++] = *text++;
    buffer[*length] = 0;
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
            spawn_append_text(path, &length, sizeof path, "/proc/");
            spawn_append_number(path, &length, sizeof path, (uint64_t)pid);
            spawn_append_text(path, &length, sizeof path, "/stat");
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

void spawn_run_init(const struct tidings_spawn_request *request, int control_end,
                                               bool privileged) {
    int files[SLOT_COUNT];
    int count = 0;
    files[count++] = control_end;
    files[count++] = request->channel;
    files[count++] = request->output;
    files[count++] = request->bundle_directory;
    if (arrange(files, count, SLOT_CONTROL) < 0) spawn_fail(control_end, TIDINGS_SPAWN_STEP_SETUP, -1);
    int control = SLOT_CONTROL;
    /* Nothing of the caller's standard streams stays open here: a reader of its output sees the end when it ends. */
    int null = open(dev_null, O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_SETUP, -1);
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
        if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_ID_MAP, -1);
        report(control, TIDINGS_SANDBOX_MAPPABLE, 0, 0, -1, 0, 0, NULL);
    }
    char go = 0;
    ssize_t got;
    do {
        got = read(control, &go, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) _exit(127);
    if (mappable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_ID_MAP, -1);

    bool own_pid_namespace = (request->namespaces & TIDINGS_NAMESPACE_PID) != 0;
    if (!own_pid_namespace) {
        /* Without a PID namespace, orphans of the worker come to init, which kills them at the end. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);
        setpgid(0, 0);
    }
    if ((request->namespaces & TIDINGS_NAMESPACE_MOUNT) != 0 && request->mount_count > 0) spawn_build_view(control, request);
    if ((request->namespaces & TIDINGS_NAMESPACE_UTS) != 0 && request->host_name != NULL) {
        syscall(SYS_sethostname, request->host_name, strlen(request->host_name));
    }
    if (privileged) {
        /* Raw calls: glibc's would try to change the ids of threads only the caller has. */
        if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, request->group, request->group, request->group) < 0
            || syscall(SYS_setresuid, request->user, request->user, request->user) < 0) {
            spawn_fail(control, TIDINGS_SPAWN_STEP_IDENTITY, -1);
        }
    }
    if (request->task_limit > 0) {
        /*
         * After the identity: the count is of the worker's user (in its user
         * namespace when it has one), and setresuid above a limit would mark
         * init as over it. Soft and hard alike, so nothing raises it again.
         */
        struct rlimit limit;
        if (getrlimit(RLIMIT_NPROC, &limit) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);
        rlim_t tasks = request->task_limit;
        if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < tasks) tasks = limit.rlim_max;
        limit.rlim_cur = tasks;
        limit.rlim_max = tasks;
        if (setrlimit(RLIMIT_NPROC, &limit) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);

    /* SIGCHLD stays blocked and arrives through a signalfd; every other signal is unblocked. */
    sigset_t child_signal;
    sigemptyset(&child_signal);
    sigaddset(&child_signal, SIGCHLD);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &child_signal, NULL, sizeof(uint64_t));
    /* Above the slots, which may be free now and are closed once the worker runs. */
    int made = signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
    int signals = made < 0 ? -1 : fcntl(made, F_DUPFD_CLOEXEC, SLOT_CONTROL + SLOT_COUNT);
    if (made >= 0) close(made);
    if (signals < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_PRIVILEGES, -1);

    size_t stack_size = 64 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) spawn_fail(control, TIDINGS_SPAWN_STEP_FORK, -1);
    struct worker_start start = {request, request->output >= 0, 0};
#ifdef TIDINGS_THREAD_SANITIZER
    pid_t worker = __clone(start_worker, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
#else
    pid_t worker = clone(start_worker, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
#endif
    if (worker < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_FORK, -1);
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
