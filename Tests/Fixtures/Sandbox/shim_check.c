/*
 * shim_check: checks the worker's seccomp filter and Landlock domain of
 * TidingsSystemShims on the running kernel. Each check forks a child that
 * installs the filter (or the Landlock rules), tries one thing and reports
 * to the parent, which prints "ok NAME" (with "# skip: why" when the kernel
 * lacks what it needs) or "FAIL NAME: detail", and exits 1 when a check failed.
 *
 * Build from the repository's root, and run as root and as an unprivileged
 * user (both must pass; the binary must be readable by that user):
 *
 *   cc -std=c11 -Wall -Wextra -Werror -I Sources/TidingsSystemShims/include \
 *      Sources/TidingsSystemShims/calls.c Sources/TidingsSystemShims/landlock.c \
 *      Sources/TidingsSystemShims/seccomp.c Tests/Fixtures/Sandbox/shim_check.c \
 *      -o /tmp/shim_check -lpthread -ldl
 *   /tmp/shim_check
 *   setpriv --reuid=65534 --regid=65534 --clear-groups /tmp/shim_check
 *
 * Temporary files go to $TMPDIR (else /tmp).
 */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/xattr.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The harness                                                               */
/* ------------------------------------------------------------------------ */

/* A check's body: runs in a child; NULL when it passed, else what went wrong. */
typedef const char *(*probe)(void);

static int failures;

/* In the child: what went wrong, or why the check was skipped (then `skipping`). */
static char detail[1024];
static bool skipping;

static const char *failf(const char *format, ...) __attribute__((format(printf, 1, 2)));
static const char *failf(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(detail, sizeof detail, format, arguments);
    va_end(arguments);
    return detail;
}

static const char *skip(const char *format, ...) __attribute__((format(printf, 1, 2)));
static const char *skip(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(detail, sizeof detail, format, arguments);
    va_end(arguments);
    skipping = true;
    return detail;
}

/*
 * Runs `body` in a child. With `signal` 0 the child must report that it
 * passed: "+", or "-" and a skip's reason, or "!" and what went wrong (a
 * child that ran another program reports nothing). With a `signal`, it must
 * die by that signal (or report a skip).
 */
static void run(const char *name, probe body, int signal) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        perror("pipe2");
        exit(2);
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        exit(2);
    }
    if (child == 0) {
        close(report[0]);
        alarm(20); /* a check that hangs fails instead */
        const char *problem = body();
        char message[sizeof detail + 1];
        int length = snprintf(message, sizeof message, "%s%s", problem == NULL ? "+" : skipping ? "-" : "!",
                              problem == NULL ? "" : problem);
        _exit(write(report[1], message, (size_t)length) == length ? 0 : 3);
    }
    close(report[1]);
    char message[sizeof detail + 2];
    size_t length = 0;
    ssize_t got;
    while (length < sizeof message - 1 &&
           ((got = read(report[0], message + length, sizeof message - 1 - length)) > 0 || (got < 0 && errno == EINTR))) {
        if (got > 0) length += (size_t)got;
    }
    message[length] = '\0';
    close(report[0]);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}

    if (message[0] == '-') {
        printf("ok %s # skip: %s\n", name, message + 1);
    } else if (signal != 0 && WIFSIGNALED(status) && WTERMSIG(status) == signal) {
        printf("ok %s\n", name);
    } else if (signal == 0 && message[0] == '+' && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        printf("ok %s\n", name);
    } else {
        failures++;
        if (message[0] == '!') {
            printf("FAIL %s: %s\n", name, message + 1);
        } else if (WIFSIGNALED(status)) {
            printf("FAIL %s: killed by signal %d%s\n", name, WTERMSIG(status), signal != 0 ? "" : " (no signal expected)");
        } else if (signal != 0) {
            printf("FAIL %s: exited %d, expected signal %d\n", name, WEXITSTATUS(status), signal);
        } else {
            printf("FAIL %s: exited %d without a report\n", name, WEXITSTATUS(status));
        }
    }
}

/* `what` must have failed (returned -1) with `expected`; `error` is the errno it left. */
static const char *refusal(const char *what, long result, int error, int expected) {
    if (result != -1) return failf("%s returned %ld, expected %s", what, result, strerror(expected));
    if (error != expected) return failf("%s: %s, expected %s", what, strerror(error), strerror(expected));
    return NULL;
}

/* The call must fail with errno `expected`. */
#define REFUSED(call, expected)                                                   \
    do {                                                                          \
        errno = 0;                                                                \
        long result_ = (long)(call);                                              \
        const char *problem_ = refusal(#call, result_, errno, expected);          \
        if (problem_ != NULL) return problem_;                                    \
    } while (0)

/* The call must not fail (return -1; MAP_FAILED for mmap). */
#define ALLOWED(call)                                                             \
    do {                                                                          \
        errno = 0;                                                                \
        if ((long)(call) == -1) return failf("%s: %s", #call, strerror(errno));   \
    } while (0)

/* A condition that must hold. */
#define EXPECT(condition, ...)                                                    \
    do {                                                                          \
        if (!(condition)) return failf(__VA_ARGS__);                              \
    } while (0)

/* ------------------------------------------------------------------------ */
/* seccomp                                                                   */
/* ------------------------------------------------------------------------ */

static const char *filter(bool network) {
    struct tidings_seccomp_options options = {
        .struct_size = sizeof options, .allow_network = network, .own_pid = getpid(),
        .guarded_timer = -1};
    int result = tidings_seccomp_install(&options);
    return result == 0 ? NULL : failf("tidings_seccomp_install: %s", strerror(-result));
}

#define FILTERED(network)                                        \
    do {                                                         \
        const char *problem_ = filter(network);                  \
        if (problem_ != NULL) return problem_;                   \
    } while (0)

/*
 * The system calls refused whatever their arguments. Called with every
 * argument -1 (a bad descriptor, pointer, flag or pid), so that none of them
 * does anything should the filter let it through. Not vhangup, which takes
 * no argument: it would hang up the terminal.
 */
#define ENTRY(name) {#name, __NR_##name}
static const struct {
    const char *name;
    long nr;
} refused_outright[] = {
    ENTRY(ptrace), ENTRY(process_vm_readv), ENTRY(process_vm_writev), ENTRY(kcmp), ENTRY(pidfd_open),
    ENTRY(pidfd_getfd), ENTRY(pidfd_send_signal), ENTRY(process_madvise), ENTRY(process_mrelease), ENTRY(capget), ENTRY(tkill), ENTRY(unshare),
    ENTRY(setns), ENTRY(mount), ENTRY(umount2), ENTRY(pivot_root), ENTRY(chroot), ENTRY(move_mount),
    ENTRY(open_tree), ENTRY(fsopen), ENTRY(fsconfig), ENTRY(fsmount), ENTRY(fspick), ENTRY(mount_setattr),
    ENTRY(bpf), ENTRY(perf_event_open), ENTRY(userfaultfd), ENTRY(io_uring_setup), ENTRY(io_uring_enter),
    ENTRY(io_uring_register), ENTRY(keyctl), ENTRY(add_key), ENTRY(request_key), ENTRY(personality),
    ENTRY(init_module), ENTRY(finit_module), ENTRY(delete_module), ENTRY(kexec_load), ENTRY(kexec_file_load),
    ENTRY(reboot), ENTRY(swapon), ENTRY(swapoff), ENTRY(acct), ENTRY(settimeofday), ENTRY(clock_settime),
    ENTRY(clock_adjtime), ENTRY(adjtimex), ENTRY(syslog), ENTRY(quotactl), ENTRY(quotactl_fd),
#ifdef __NR_iopl
    ENTRY(iopl),
#endif
#ifdef __NR_ioperm
    ENTRY(ioperm),
#endif
    ENTRY(open_by_handle_at), ENTRY(name_to_handle_at), ENTRY(lookup_dcookie), ENTRY(fanotify_init),
    ENTRY(execve), ENTRY(execveat),
#ifdef __NR_uselib
    ENTRY(uselib),
#endif
    ENTRY(memfd_create), ENTRY(memfd_secret), ENTRY(shmget), ENTRY(shmat), ENTRY(shmctl), ENTRY(mq_open),
    ENTRY(mq_timedsend), ENTRY(mq_timedreceive), ENTRY(mq_notify), ENTRY(mq_getsetattr), ENTRY(mq_unlink),
};

static const char *probe_refused_outright(void) {
    FILTERED(false);
    size_t length = 0;
    for (size_t index = 0; index < sizeof refused_outright / sizeof refused_outright[0]; index++) {
        errno = 0;
        long result = syscall(refused_outright[index].nr, -1L, -1L, -1L, -1L, -1L, -1L);
        if (result != -1 || errno != EPERM) {
            length += (size_t)snprintf(detail + length, sizeof detail - length, "%s%s: %s",
                                       length > 0 ? ", " : "", refused_outright[index].name,
                                       result == -1 ? strerror(errno) : "succeeded");
            if (length >= sizeof detail) break;
        }
    }
    return length > 0 ? detail : NULL;
}

static const char *probe_ptrace(void) {
    FILTERED(false);
    REFUSED(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM);
    /* SEIZE, not ATTACH: should the filter let it through, the parent is not stopped. */
    REFUSED(ptrace(PTRACE_SEIZE, getppid(), NULL, NULL), EPERM);
    return NULL;
}

static const char *probe_process_vm_readv(void) {
    FILTERED(false);
    char source[8] = "source", target[8];
    struct iovec local = {target, sizeof target}, remote = {source, sizeof source};
    /* Its own memory, which it could read without the filter. */
    REFUSED(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), EPERM);
    return NULL;
}

static const char *probe_kill(void) {
    FILTERED(false);
    ALLOWED(kill(getpid(), 0));
    REFUSED(kill(getppid(), 0), EPERM);
    REFUSED(kill(0, 0), EPERM);
    REFUSED(kill(-1, 0), EPERM);
    REFUSED(kill(-getpgrp(), 0), EPERM);
    return NULL;
}

static const char *probe_tgkill(void) {
    FILTERED(false);
    ALLOWED(syscall(SYS_tgkill, getpid(), gettid(), 0));
    REFUSED(syscall(SYS_tgkill, getppid(), getppid(), 0), EPERM);
    REFUSED(syscall(SYS_tkill, gettid(), 0), EPERM);
    return NULL;
}

static volatile sig_atomic_t caught;

static void catch_signal(int signal) {
    caught = signal;
}

static const char *probe_raise(void) {
    FILTERED(false);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = catch_signal;
    sigemptyset(&action.sa_mask);
    ALLOWED(sigaction(SIGUSR1, &action, NULL));
    ALLOWED(raise(SIGUSR1));
    EXPECT(caught == SIGUSR1, "raise(SIGUSR1) did not reach the handler");
    caught = 0;
    ALLOWED(sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 1}));
    EXPECT(caught == SIGUSR1, "sigqueue(getpid(), SIGUSR1) did not reach the handler");
    REFUSED(sigqueue(getppid(), 0, (union sigval){.sival_int = 1}), EPERM);
    return NULL;
}

static const char *probe_execve(void) {
    FILTERED(false);
    char *const arguments[] = {"true", NULL};
    REFUSED(execve("/bin/true", arguments, environ), EPERM);
    return NULL;
}

static const char *probe_sockets(void) {
    FILTERED(false);
    REFUSED(socket(AF_UNIX, SOCK_STREAM, 0), EPERM);
    REFUSED(socket(AF_INET, SOCK_STREAM, 0), EPERM);
    REFUSED(socket(AF_INET6, SOCK_DGRAM, 0), EPERM);
    REFUSED(socket(AF_NETLINK, SOCK_RAW, 0), EPERM);
    return NULL;
}

static const char *probe_sockets_with_network(void) {
    FILTERED(true);
    ALLOWED(socket(AF_INET, SOCK_STREAM, 0));
    /* IPv6 may be off: anything but the filter's EPERM will do. */
    errno = 0;
    EXPECT(socket(AF_INET6, SOCK_STREAM, 0) >= 0 || errno != EPERM, "socket(AF_INET6) refused with the network");
    REFUSED(socket(AF_UNIX, SOCK_STREAM, 0), EPERM);
    REFUSED(socket(AF_NETLINK, SOCK_RAW, 0), EPERM);
    return NULL;
}

/* A socket pair still carries messages and descriptors (SCM_RIGHTS). */
static const char *check_socketpair(void) {
    int pair[2], pipe_ends[2];
    ALLOWED(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair));
    ALLOWED(pipe2(pipe_ends, O_CLOEXEC));
    char control[64];
    size_t space = tidings_rights_build(control, sizeof control, &pipe_ends[0], 1);
    EXPECT(space > 0, "tidings_rights_build failed");
    char byte = 'x';
    struct iovec data = {&byte, 1};
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control, .msg_controllen = space};
    ALLOWED(sendmsg(pair[0], &message, 0));
    memset(control, 0, sizeof control);
    message.msg_controllen = sizeof control;
    byte = 0;
    ALLOWED(recvmsg(pair[1], &message, MSG_CMSG_CLOEXEC));
    int received = -1;
    EXPECT(byte == 'x' && tidings_rights_collect(control, message.msg_controllen, &received, 1) == 1,
           "no descriptor received");
    ALLOWED(write(pipe_ends[1], "y", 1));
    ALLOWED(read(received, &byte, 1));
    EXPECT(byte == 'y', "the received descriptor is not the pipe");
    return NULL;
}

static const char *probe_socketpair(void) {
    FILTERED(false);
    return check_socketpair();
}

static const char *probe_shared_memory(void) {
    FILTERED(false);
    REFUSED(memfd_create("shared", MFD_CLOEXEC), EPERM);
    REFUSED(syscall(SYS_shmget, IPC_PRIVATE, 4096, 0600), EPERM);
    return NULL;
}

static const char *probe_mmap(void) {
    /* The file first: a temporary file, mapped shared, is allowed. */
    const char *directory = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/shim_check-map-XXXXXX", directory);
    int file = mkstemp(path);
    EXPECT(file >= 0, "mkstemp: %s", strerror(errno));
    unlink(path);
    ALLOWED(ftruncate(file, 4096));
    FILTERED(false);
    REFUSED(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), EPERM);
    REFUSED(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0), EPERM);
    char *private = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(private != MAP_FAILED, "private anonymous mmap: %s", strerror(errno));
    private[0] = 1;
    char *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
    EXPECT(shared != MAP_FAILED, "shared file mmap: %s", strerror(errno));
    shared[0] = 'z';
    char byte = 0;
    ALLOWED(pread(file, &byte, 1, 0));
    EXPECT(byte == 'z', "the shared file mapping did not reach the file");
    return NULL;
}

/* A raw clone that returns 0 in the child (as fork does), which leaves at once. */
static long raw_clone(unsigned long flags) {
    long result = syscall(SYS_clone, flags, 0L, NULL, NULL, 0L);
    if (result == 0) _exit(0);
    if (result > 0) waitpid((pid_t)result, NULL, 0);
    return result;
}

static const char *probe_clone(void) {
    FILTERED(false);
    REFUSED(raw_clone(CLONE_NEWUSER | SIGCHLD), EPERM);
    REFUSED(raw_clone(CLONE_NEWNET | SIGCHLD), EPERM);
    /* clone3's flags lie behind a pointer: ENOSYS, so that glibc falls back to clone. */
    uint64_t arguments[8] = {0};
    arguments[4] = SIGCHLD; /* exit_signal */
    long result = syscall(SYS_clone3, arguments, sizeof arguments);
    if (result == 0) _exit(0);
    EXPECT(result == -1 && errno == ENOSYS, "clone3 answered %ld (%s), expected ENOSYS", result, strerror(errno));
    /* No new process at all: fork is a clone without CLONE_THREAD. */
    REFUSED(fork(), EPERM);
    REFUSED(raw_clone(SIGCHLD), EPERM);
#ifdef SYS_fork
    REFUSED(syscall(SYS_fork), EPERM);
#endif
#ifdef SYS_vfork
    REFUSED(syscall(SYS_vfork), EPERM);
#endif
    return NULL;
}

/* What else the worker never needs: System V queues and semaphores, inotify, file metadata, socket buffers. */
static const char *probe_metadata_and_more(void) {
    char path[] = "/tmp/shim_check_metadata_XXXXXX";
    int file = mkstemp(path);
    EXPECT(file >= 0, "mkstemp: %s", strerror(errno));
    int pair[2];
    ALLOWED(socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
    FILTERED(false);
    REFUSED(msgget(IPC_PRIVATE, IPC_CREAT | 0600), EPERM);
    REFUSED(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600), EPERM);
    REFUSED(inotify_init1(IN_CLOEXEC), EPERM);
    REFUSED(chmod(path, 0644), EPERM);
    REFUSED(fchmod(file, 0644), EPERM);
    REFUSED(fchown(file, getuid(), getgid()), EPERM);
    REFUSED(utimensat(AT_FDCWD, path, NULL, 0), EPERM);
    REFUSED(futimens(file, NULL), EPERM);
    REFUSED(fsetxattr(file, "user.tidings", "x", 1, 0), EPERM);
    int size = 1 << 20;
    REFUSED(setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size), EPERM);
    REFUSED(setsockopt(pair[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof size), EPERM);
    int on = 1;
    ALLOWED(setsockopt(pair[0], SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on));
    /* Reading stays allowed. */
    struct stat status;
    ALLOWED(fstat(file, &status));
    ALLOWED(unlink(path));
    return NULL;
}

static const char *probe_namespaces_and_mounts(void) {
    FILTERED(false);
    REFUSED(unshare(CLONE_NEWUSER), EPERM);
    REFUSED(unshare(0), EPERM);
    /* A mount point that does not exist: without the filter, ENOENT and no harm. */
    REFUSED(mount("none", "/proc/self/shim-check-nowhere", "tmpfs", 0, NULL), EPERM);
    REFUSED(umount2("/proc/self/shim-check-nowhere", 0), EPERM);
    return NULL;
}

static void *add_one(void *value) {
    *(int *)value += 1;
    return value;
}

static const char *check_thread(void) {
    pthread_t thread;
    int value = 41;
    int error = pthread_create(&thread, NULL, add_one, &value);
    EXPECT(error == 0, "pthread_create: %s", strerror(error));
    error = pthread_join(thread, NULL);
    EXPECT(error == 0 && value == 42, "pthread_join: %s", strerror(error));
    return NULL;
}

static const char *probe_thread_after(void) {
    FILTERED(false);
    return check_thread();
}

/* A thread made before the filter waits on `go`, then tries personality. */
struct early_thread {
    int go[2];
    long result;
    int error;
};

static void *try_personality(void *argument) {
    struct early_thread *early = argument;
    char byte;
    if (read(early->go[0], &byte, 1) != 1) return NULL;
    errno = 0;
    early->result = syscall(SYS_personality, 0xffffffffL); /* a query, harmless */
    early->error = errno;
    return NULL;
}

static const char *probe_thread_before(void) {
    struct early_thread early = {.result = 0, .error = 0};
    ALLOWED(pipe2(early.go, O_CLOEXEC));
    pthread_t thread;
    int error = pthread_create(&thread, NULL, try_personality, &early);
    EXPECT(error == 0, "pthread_create: %s", strerror(error));
    FILTERED(false);
    ALLOWED(write(early.go[1], "g", 1));
    pthread_join(thread, NULL);
    return refusal("personality in a thread made before the filter", early.result, early.error, EPERM);
}

/* A thread with a filter of its own (no TSYNC), which the process's filter cannot replace. */
struct lone_thread {
    int ready[2]; /* the thread writes a byte once it tried its filter */
    int go[2];    /* then waits for a byte here */
    int error;    /* errno of its seccomp call; 0 when it succeeded */
};

static void *filter_alone(void *argument) {
    struct lone_thread *lone = argument;
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog program = {.len = 1, .filter = &allow};
    lone->error = 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
        lone->error = errno;
    }
    char byte = 'r';
    if (write(lone->ready[1], &byte, 1) == 1 && lone->error == 0) {
        while (read(lone->go[0], &byte, 1) < 0 && errno == EINTR) {}
    }
    return NULL;
}

static const char *probe_thread_unsynchronised(void) {
    struct lone_thread lone;
    ALLOWED(pipe2(lone.ready, O_CLOEXEC));
    ALLOWED(pipe2(lone.go, O_CLOEXEC));
    pthread_t thread;
    int error = pthread_create(&thread, NULL, filter_alone, &lone);
    EXPECT(error == 0, "pthread_create: %s", strerror(error));
    char byte;
    EXPECT(read(lone.ready[0], &byte, 1) == 1 && lone.error == 0, "the thread's own filter: %s", strerror(lone.error));
    struct tidings_seccomp_options options = {
        .struct_size = sizeof options, .allow_network = false, .own_pid = getpid(),
        .guarded_timer = -1};
    int result = tidings_seccomp_install(&options);
    ALLOWED(write(lone.go[1], "g", 1));
    pthread_join(thread, NULL);
    EXPECT(result == -ESRCH, "tidings_seccomp_install answered %d, expected -ESRCH", result);
    return NULL;
}

static const char *probe_guarded_timer(void) {
    int guarded = tidings_cpu_timer_create(SIGXCPU, tidings_gettid());
    int other = tidings_cpu_timer_create(SIGXCPU, tidings_gettid());
    EXPECT(guarded >= 0 && other >= 0, "tidings_cpu_timer_create: %s", strerror(-(guarded < 0 ? guarded : other)));
    struct tidings_seccomp_options options = {
        .struct_size = sizeof options, .allow_network = false, .own_pid = getpid(),
        .guarded_timer = guarded};
    int result = tidings_seccomp_install(&options);
    EXPECT(result == 0, "tidings_seccomp_install: %s", strerror(-result));
    struct itimerspec value;
    memset(&value, 0, sizeof value);
    REFUSED(syscall(__NR_timer_settime, guarded, 0, &value, NULL), EPERM);
    REFUSED(syscall(__NR_timer_delete, guarded), EPERM);
    ALLOWED(syscall(__NR_timer_settime, other, 0, &value, NULL));
    ALLOWED(syscall(__NR_timer_delete, other));
    return NULL;
}

static const char *probe_prctl(void) {
    FILTERED(false);
    REFUSED(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), EPERM);
    REFUSED(prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0), EPERM);
    REFUSED(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0), EPERM);
    REFUSED(prctl(PR_SET_SECUREBITS, 0, 0, 0, 0), EPERM);
    REFUSED(prctl(PR_SET_MM, PR_SET_MM_START_BRK, 0, 0, 0), EPERM);
    ALLOWED(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
    ALLOWED(prctl(PR_SET_NAME, "shim-check", 0, 0, 0));
    return NULL;
}

static const char *probe_prlimit(void) {
    FILTERED(false);
    struct rlimit limit;
    ALLOWED(getrlimit(RLIMIT_NOFILE, &limit));
    ALLOWED(prlimit(getpid(), RLIMIT_NOFILE, NULL, &limit));
    ALLOWED(setrlimit(RLIMIT_NOFILE, &limit));
    REFUSED(prlimit(getppid(), RLIMIT_NOFILE, NULL, &limit), EPERM);
    return NULL;
}

/* The call must not be the filter's refusal (it may fail otherwise: no NUMA, no such process). */
#define NOT_REFUSED(call)                                                                      \
    do {                                                                                       \
        errno = 0;                                                                             \
        if ((long)(call) == -1 && errno == EPERM) return failf("%s: refused (EPERM)", #call);  \
    } while (0)

/* The calls that name a process: refused for another (the parent), allowed for itself, 0 or its pid. */
static const char *probe_priority_and_io_priority(void) {
    FILTERED(false);
    pid_t other = getppid(), self = getpid();
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    EXPECT(errno == 0, "getpriority(PRIO_PROCESS, 0): %s", strerror(errno));
    ALLOWED(getpriority(PRIO_PROCESS, self));
    ALLOWED(setpriority(PRIO_PROCESS, 0, nice));
    ALLOWED(setpriority(PRIO_PROCESS, self, nice));
    REFUSED(setpriority(PRIO_PROCESS, other, 19), EPERM);
    REFUSED(getpriority(PRIO_PROCESS, other), EPERM);
    REFUSED(setpriority(PRIO_PGRP, 0, 19), EPERM);
    REFUSED(getpriority(PRIO_PGRP, 0), EPERM);
    REFUSED(setpriority(PRIO_USER, getuid(), 19), EPERM);
    REFUSED(getpriority(PRIO_USER, 0), EPERM);
    enum { WHO_PROCESS = 1, WHO_PGRP = 2, WHO_USER = 3 };
    long priority = syscall(SYS_ioprio_get, WHO_PROCESS, 0);
    EXPECT(priority >= 0, "ioprio_get(IOPRIO_WHO_PROCESS, 0): %s", strerror(errno));
    ALLOWED(syscall(SYS_ioprio_get, WHO_PROCESS, self));
    ALLOWED(syscall(SYS_ioprio_set, WHO_PROCESS, 0, priority));
    REFUSED(syscall(SYS_ioprio_set, WHO_PROCESS, other, priority), EPERM);
    REFUSED(syscall(SYS_ioprio_get, WHO_PROCESS, other), EPERM);
    REFUSED(syscall(SYS_ioprio_set, WHO_PGRP, 0, priority), EPERM);
    REFUSED(syscall(SYS_ioprio_get, WHO_USER, getuid()), EPERM);
    return NULL;
}

static const char *probe_scheduler(void) {
    FILTERED(false);
    pid_t other = getppid(), self = getpid();
    cpu_set_t cpus;
    ALLOWED(sched_getaffinity(0, sizeof cpus, &cpus));
    ALLOWED(sched_getaffinity(self, sizeof cpus, &cpus));
    ALLOWED(sched_setaffinity(0, sizeof cpus, &cpus));
    ALLOWED(sched_getaffinity(other, sizeof cpus, &cpus)); /* a read: see seccomp.c */
    REFUSED(sched_setaffinity(other, sizeof cpus, &cpus), EPERM);
    struct sched_param parameter = {0};
    ALLOWED(sched_getparam(0, &parameter));
    ALLOWED(sched_setparam(self, &parameter));
    ALLOWED(sched_getscheduler(0));
    ALLOWED(sched_setscheduler(0, SCHED_OTHER, &parameter));
    ALLOWED(sched_getparam(other, &parameter));
    REFUSED(sched_setparam(other, &parameter), EPERM);
    ALLOWED(sched_getscheduler(other));
    REFUSED(sched_setscheduler(other, SCHED_BATCH, &parameter), EPERM);
    uint32_t attributes[14] = {sizeof attributes}; /* struct sched_attr, version 1 */
    ALLOWED(syscall(SYS_sched_getattr, 0, attributes, sizeof attributes, 0));
    ALLOWED(syscall(SYS_sched_getattr, other, attributes, sizeof attributes, 0));
    REFUSED(syscall(SYS_sched_setattr, other, attributes, 0), EPERM);
    struct timespec interval;
    ALLOWED(sched_rr_get_interval(0, &interval));
    ALLOWED(sched_rr_get_interval(other, &interval));
    return NULL;
}

static void *park(void *argument) {
    int *ends = argument;
    pid_t tid = gettid();
    char ignored;
    if (write(ends[1], &tid, sizeof tid) != sizeof tid) return NULL;
    while (read(ends[0], &ignored, 1) < 0 && errno == EINTR) {}
    return NULL;
}

/* A thread id of its own is not its pid: refused too for a setter (see seccomp.c). */
static const char *probe_scheduler_of_a_thread(void) {
    int to_thread[2], from_thread[2];
    ALLOWED(pipe(to_thread));
    ALLOWED(pipe(from_thread));
    int ends[2] = {to_thread[0], from_thread[1]};
    pthread_t thread;
    EXPECT(pthread_create(&thread, NULL, park, ends) == 0, "pthread_create");
    pid_t tid = 0;
    EXPECT(read(from_thread[0], &tid, sizeof tid) == sizeof tid, "no thread id");
    FILTERED(false);
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    REFUSED(sched_setaffinity(tid, sizeof cpus, &cpus), EPERM);
    ALLOWED(sched_setaffinity(gettid(), sizeof cpus, &cpus)); /* the first thread's id is the pid */
    /* glibc reads another thread's affinity by its id here: stack bounds, as sanitizers ask for them. */
    pthread_attr_t attributes;
    EXPECT(pthread_getattr_np(thread, &attributes) == 0, "pthread_getattr_np of another thread");
    pthread_attr_destroy(&attributes);
    ALLOWED(write(to_thread[1], "x", 1));
    pthread_join(thread, NULL);
    return NULL;
}

static const char *probe_process_memory_and_groups(void) {
    FILTERED(false);
    pid_t other = getppid(), self = getpid();
    unsigned long nodes = 1;
    REFUSED(syscall(SYS_migrate_pages, other, 8 * sizeof nodes, &nodes, &nodes), EPERM);
    NOT_REFUSED(syscall(SYS_migrate_pages, 0, 8 * sizeof nodes, &nodes, &nodes));
    REFUSED(syscall(SYS_move_pages, other, 0, NULL, NULL, NULL, 0), EPERM);
    NOT_REFUSED(syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0));
    void *head;
    size_t length;
    ALLOWED(syscall(SYS_get_robust_list, 0, &head, &length));
    ALLOWED(syscall(SYS_get_robust_list, self, &head, &length));
    REFUSED(syscall(SYS_get_robust_list, other, &head, &length), EPERM);
    ALLOWED(getpgid(0));
    ALLOWED(getsid(self));
    ALLOWED(getpgrp());
    REFUSED(getpgid(other), EPERM);
    REFUSED(getsid(other), EPERM);
    pid_t parents_group = getpgrp();
    REFUSED(setpgid(other, other), EPERM);
    ALLOWED(setpgid(0, 0));
    REFUSED(setpgid(0, parents_group), EPERM);
    siginfo_t information;
    NOT_REFUSED(waitid(P_ALL, 0, &information, WEXITED | WNOHANG));
    struct { uint32_t version; int pid; } header = {0x20080522, 0};
    uint32_t sets[6];
    REFUSED(syscall(SYS_capget, &header, sets), EPERM);
    return NULL;
}

/* F_SETOWN with F_SETSIG would be a kill by another name. */
static const char *probe_signal_owner(void) {
    FILTERED(false);
    int pair[2];
    ALLOWED(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair));
    ALLOWED(fcntl(pair[0], F_SETOWN, getpid()));
    ALLOWED(fcntl(pair[0], F_SETOWN, 0));
    ALLOWED(fcntl(pair[0], F_GETOWN));
    REFUSED(fcntl(pair[0], F_SETOWN, getppid()), EPERM);
    REFUSED(fcntl(pair[0], F_SETOWN, -getpgrp()), EPERM);
    struct f_owner_ex owner = {F_OWNER_PID, getppid()};
    REFUSED(fcntl(pair[0], F_SETOWN_EX, &owner), EPERM);
    int target = getppid();
    REFUSED(ioctl(pair[0], FIOSETOWN, &target), EPERM);
    REFUSED(ioctl(pair[0], SIOCSPGRP, &target), EPERM);
    REFUSED(ioctl(pair[0], TIOCSPGRP, &target), EPERM);
    int bytes = 0;
    ALLOWED(ioctl(pair[0], FIONREAD, &bytes));
    return NULL;
}

static const char *check_dlopen(void) {
    void *library = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    EXPECT(library != NULL, "dlopen(libm.so.6): %s", dlerror());
    double (*cosine)(double);
    *(void **)&cosine = dlsym(library, "cos"); /* POSIX's way from an object pointer to a function's */
    EXPECT(cosine != NULL && cosine(0.0) == 1.0, "cos from libm.so.6 did not work");
    return NULL;
}

static const char *probe_dlopen(void) {
    FILTERED(false);
    return check_dlopen();
}

static const char *probe_io_uring(void) {
    FILTERED(false);
    char parameters[120] = {0}; /* struct io_uring_params */
    REFUSED(syscall(SYS_io_uring_setup, 4, parameters), EPERM);
    return NULL;
}

#ifdef __x86_64__
/* getpid through the i386 system call gate (its number is 20 there). */
static long i386_getpid(void) {
    long result = 20;
    __asm__ volatile("int $0x80" : "+a"(result) : : "memory");
    return result;
}

static const char *probe_i386(void) {
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* no core file for the SIGSYS */
    FILTERED(false);
    i386_getpid();
    return failf("the i386 system call returned");
}

/* Whether the kernel runs i386 system calls (without a filter): a child tries one. */
static bool i386_available(void) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) _exit(i386_getpid() == getpid() ? 0 : 1);
    int status;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static const char *probe_x32(void) {
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    FILTERED(false);
    syscall(__X32_SYSCALL_BIT | SYS_getpid);
    return failf("the x32 system call returned");
}
#endif

/* ------------------------------------------------------------------------ */
/* Landlock                                                                  */
/* ------------------------------------------------------------------------ */

static int kernel_abi;
static char base[1024];
static char abstract_name[108];

static void path_in(char *buffer, const char *relative) {
    snprintf(buffer, 4096, "%s/%s", base, relative);
}

/* The standard rules: A read, B read-write, /dev/null files, L a symlink to D, F a file; two missing paths. */
static const char *restrict_standard(bool network, struct tidings_landlock_result *result) {
    char a[4096], b[4096], link[4096], file[4096], missing[4096], not_directory[4096];
    path_in(a, "A");
    path_in(b, "B");
    path_in(link, "L");
    path_in(file, "C/f.txt");
    path_in(missing, "missing");
    path_in(not_directory, "C/c.txt/below");
    const struct tidings_landlock_rule rules[] = {
        {a, TIDINGS_LANDLOCK_READ},
        {b, TIDINGS_LANDLOCK_READ_WRITE},
        {"/dev/null", TIDINGS_LANDLOCK_READ_WRITE_FILES},
        {link, TIDINGS_LANDLOCK_READ},
        {file, TIDINGS_LANDLOCK_READ_WRITE},
        {missing, TIDINGS_LANDLOCK_READ},
        {not_directory, TIDINGS_LANDLOCK_READ},
    };
    int error = tidings_landlock_restrict(rules, sizeof rules / sizeof rules[0], network, result);
    return error == 0 ? NULL : failf("tidings_landlock_restrict: %s", strerror(-error));
}

#define RESTRICTED(network)                                                   \
    struct tidings_landlock_result restricted_;                               \
    do {                                                                      \
        if (kernel_abi <= 0) return skip("no Landlock");                      \
        const char *problem_ = restrict_standard(network, &restricted_);      \
        if (problem_ != NULL) return problem_;                                \
    } while (0)

static const char *probe_landlock_result(void) {
    RESTRICTED(false);
    int abi = kernel_abi < 7 ? kernel_abi : 7;
    EXPECT(restricted_.abi == abi, "abi %d, expected %d", restricted_.abi, abi);
    EXPECT(restricted_.skipped == 2, "skipped %d, expected 2", restricted_.skipped);
    EXPECT(restricted_.network_restricted == (abi >= 4), "network_restricted %d", restricted_.network_restricted);
    EXPECT(restricted_.scoped == (abi >= 6), "scoped %d", restricted_.scoped);
    EXPECT(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1, "no_new_privs not set");
    return NULL;
}

static const char *probe_landlock_read(void) {
    RESTRICTED(false);
    char path[4096], text[16] = {0};
    path_in(path, "A/a.txt");
    int file = open(path, O_RDONLY | O_CLOEXEC);
    EXPECT(file >= 0, "open %s: %s", path, strerror(errno));
    ALLOWED(read(file, text, sizeof text - 1));
    EXPECT(strcmp(text, "alpha") == 0, "read %s: \"%s\"", path, text);
    path_in(path, "A");
    DIR *directory = opendir(path);
    EXPECT(directory != NULL, "opendir %s: %s", path, strerror(errno));
    closedir(directory);
    return NULL;
}

static const char *probe_landlock_read_only(void) {
    RESTRICTED(false);
    char path[4096];
    path_in(path, "A/a.txt");
    REFUSED(open(path, O_WRONLY | O_CLOEXEC), EACCES);
    path_in(path, "A/new.txt");
    REFUSED(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600), EACCES);
    return NULL;
}

static const char *probe_landlock_read_write(void) {
    RESTRICTED(false);
    char path[4096], directory[4096];
    path_in(path, "B/new.txt");
    int file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    EXPECT(file >= 0, "create %s: %s", path, strerror(errno));
    ALLOWED(write(file, "new", 3));
    ALLOWED(ftruncate(file, 1));
    close(file);
    ALLOWED(unlink(path));
    path_in(directory, "B/sub");
    ALLOWED(mkdir(directory, 0700));
    ALLOWED(rmdir(directory));
    return NULL;
}

static const char *probe_landlock_outside(void) {
    RESTRICTED(false);
    char path[4096];
    path_in(path, "C/c.txt");
    REFUSED(open(path, O_RDONLY | O_CLOEXEC), EACCES);
    path_in(path, "C");
    REFUSED(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), EACCES);
    REFUSED(open("/etc/passwd", O_RDONLY | O_CLOEXEC), EACCES);
    return NULL;
}

/* A file's rule: READ_WRITE kept to the rights of a file. */
static const char *probe_landlock_file_rule(void) {
    RESTRICTED(false);
    char path[4096];
    path_in(path, "C/f.txt");
    int file = open(path, O_RDWR | O_TRUNC | O_CLOEXEC);
    EXPECT(file >= 0, "open %s: %s", path, strerror(errno));
    ALLOWED(write(file, "f", 1));
    return NULL;
}

static const char *probe_landlock_dev_null(void) {
    RESTRICTED(false);
    int file = open("/dev/null", O_WRONLY | O_CLOEXEC);
    EXPECT(file >= 0, "open /dev/null: %s", strerror(errno));
    ALLOWED(write(file, "gone", 4));
    REFUSED(open("/dev/zero", O_RDONLY | O_CLOEXEC), EACCES);
    return NULL;
}

static const char *probe_landlock_symlink(void) {
    RESTRICTED(false);
    char path[4096];
    path_in(path, "D/d.txt");
    ALLOWED(open(path, O_RDONLY | O_CLOEXEC));
    path_in(path, "L/d.txt");
    ALLOWED(open(path, O_RDONLY | O_CLOEXEC));
    return NULL;
}

static const char *probe_landlock_tcp(void) {
    if (kernel_abi > 0 && kernel_abi < 4) return skip("Landlock ABI %d has no network rights", kernel_abi);
    RESTRICTED(false);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(1)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT(tcp >= 0, "socket: %s", strerror(errno));
    REFUSED(connect(tcp, (struct sockaddr *)&address, sizeof address), EACCES);
    address.sin_port = 0;
    REFUSED(bind(tcp, (struct sockaddr *)&address, sizeof address), EACCES);
    return NULL;
}

static const char *probe_landlock_tcp_allowed(void) {
    RESTRICTED(true);
    EXPECT(!restricted_.network_restricted, "network_restricted with allow_network");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(1)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT(tcp >= 0, "socket: %s", strerror(errno));
    errno = 0;
    EXPECT(connect(tcp, (struct sockaddr *)&address, sizeof address) == 0 || errno != EACCES,
           "connect refused (EACCES) with allow_network");
    return NULL;
}

static const char *probe_landlock_signals(void) {
    if (kernel_abi > 0 && kernel_abi < 6) return skip("Landlock ABI %d has no scopes", kernel_abi);
    RESTRICTED(false);
    ALLOWED(kill(getpid(), 0));
    REFUSED(kill(getppid(), 0), EPERM);
    return NULL;
}

static const char *probe_landlock_abstract_unix(void) {
    if (kernel_abi > 0 && kernel_abi < 6) return skip("Landlock ABI %d has no scopes", kernel_abi);
    RESTRICTED(false);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = 1 + strlen(abstract_name + 1);
    memcpy(address.sun_path, abstract_name, length);
    int client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT(client >= 0, "socket: %s", strerror(errno));
    REFUSED(connect(client, (struct sockaddr *)&address, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length)),
            EPERM);
    return NULL;
}

static const char *probe_landlock_unknown_access(void) {
    if (kernel_abi <= 0) return skip("no Landlock");
    const struct tidings_landlock_rule rules[] = {{"/", (enum tidings_landlock_access)99}};
    int error = tidings_landlock_restrict(rules, 1, false, NULL);
    EXPECT(error == -EINVAL, "an unknown access answered %d, expected -EINVAL", error);
    return NULL;
}

/* /bin/true (and its loader and libraries) run beneath READ_EXECUTE only. */
static const char *run_true(enum tidings_landlock_access access, int *status) {
    const struct tidings_landlock_rule rules[] = {
        {"/usr", access}, {"/bin", access}, {"/lib", access}, {"/lib64", access}, {"/etc", TIDINGS_LANDLOCK_READ},
    };
    int error = tidings_landlock_restrict(rules, sizeof rules / sizeof rules[0], false, NULL);
    if (error != 0) return failf("tidings_landlock_restrict: %s", strerror(-error));
    pid_t child = fork();
    if (child == 0) {
        char *const arguments[] = {"true", NULL};
        execve("/bin/true", arguments, environ);
        _exit(errno == EACCES ? 126 : 127);
    }
    EXPECT(child > 0, "fork: %s", strerror(errno));
    ALLOWED(waitpid(child, status, 0));
    return NULL;
}

static const char *probe_landlock_execute(void) {
    if (kernel_abi <= 0) return skip("no Landlock");
    int status;
    const char *problem = run_true(TIDINGS_LANDLOCK_READ_EXECUTE, &status);
    if (problem != NULL) return problem;
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "/bin/true beneath READ_EXECUTE: status %#x", status);
    return NULL;
}

static const char *probe_landlock_no_execute(void) {
    if (kernel_abi <= 0) return skip("no Landlock");
    int status;
    const char *problem = run_true(TIDINGS_LANDLOCK_READ, &status);
    if (problem != NULL) return problem;
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 126, "/bin/true beneath READ: status %#x, expected EACCES",
           status);
    return NULL;
}

/* What a worker does: Landlock, then the filter, then a library, a thread and its channel. */
static const char *probe_worker(void) {
    if (kernel_abi <= 0) return skip("no Landlock");
    char b[4096];
    path_in(b, "B");
    const struct tidings_landlock_rule rules[] = {
        {"/usr", TIDINGS_LANDLOCK_READ_EXECUTE}, {"/lib", TIDINGS_LANDLOCK_READ_EXECUTE},
        {"/lib64", TIDINGS_LANDLOCK_READ_EXECUTE}, {"/etc", TIDINGS_LANDLOCK_READ},
        {"/dev/null", TIDINGS_LANDLOCK_READ_WRITE_FILES}, {b, TIDINGS_LANDLOCK_READ_WRITE},
    };
    int error = tidings_landlock_restrict(rules, sizeof rules / sizeof rules[0], false, NULL);
    EXPECT(error == 0, "tidings_landlock_restrict: %s", strerror(-error));
    FILTERED(false);
    const char *problem = check_dlopen();
    if (problem == NULL) problem = check_thread();
    if (problem == NULL) problem = check_socketpair();
    return problem;
}

/* ------------------------------------------------------------------------ */
/* Setting up, running, cleaning up                                          */
/* ------------------------------------------------------------------------ */

static void fail_setup(const char *what) {
    perror(what);
    exit(2);
}

static void make_file(const char *relative, const char *text) {
    char path[4096];
    path_in(path, relative);
    int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (file < 0 || write(file, text, strlen(text)) < 0) fail_setup(path);
    close(file);
}

static void make_directory(const char *relative) {
    char path[4096];
    path_in(path, relative);
    if (mkdir(path, 0700) != 0) fail_setup(path);
}

static int remove_entry(const char *path, const struct stat *status, int type, struct FTW *where) {
    (void)status;
    (void)type;
    (void)where;
    return remove(path);
}

/* A listening abstract UNIX socket outside every Landlock domain. */
static int listen_abstract(void) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(abstract_name + 1, sizeof abstract_name - 1, "tidings-shim-check-%d", (int)getpid());
    size_t length = 1 + strlen(abstract_name + 1);
    memcpy(address.sun_path, abstract_name, length);
    int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (server < 0 ||
        bind(server, (struct sockaddr *)&address, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length)) != 0 ||
        listen(server, 1) != 0) {
        fail_setup("abstract socket");
    }
    return server;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    /*
     * What a launcher left blocked or ignored is inherited (a test runner may
     * block SIGUSR1): start from no blocked signal.
     */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    const char *temporary = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(base, sizeof base, "%s/shim_check-XXXXXX", temporary);
    if (mkdtemp(base) == NULL) fail_setup(base);
    make_directory("A");
    make_file("A/a.txt", "alpha");
    make_directory("B");
    make_directory("C");
    make_file("C/c.txt", "outside");
    make_file("C/f.txt", "file rule");
    make_directory("D");
    make_file("D/d.txt", "through the link");
    char link[4096], target[4096];
    path_in(link, "L");
    path_in(target, "D");
    if (symlink(target, link) != 0) fail_setup(link);
    int server = listen_abstract();

    run("seccomp: refused outright (EPERM)", probe_refused_outright, 0);
    run("seccomp: ptrace", probe_ptrace, 0);
    run("seccomp: the guarded timer cannot be changed or deleted", probe_guarded_timer, 0);
    run("seccomp: process_vm_readv", probe_process_vm_readv, 0);
    run("seccomp: kill only itself", probe_kill, 0);
    run("seccomp: tgkill only itself, tkill never", probe_tgkill, 0);
    run("seccomp: raise and sigqueue with a handler", probe_raise, 0);
    run("seccomp: execve", probe_execve, 0);
    run("seccomp: no sockets", probe_sockets, 0);
    run("seccomp: AF_INET and AF_INET6 with the network", probe_sockets_with_network, 0);
    run("seccomp: socketpair with SCM_RIGHTS", probe_socketpair, 0);
    run("seccomp: memfd_create and shmget", probe_shared_memory, 0);
    run("seccomp: mmap shared anonymous refused, private and file allowed", probe_mmap, 0);
    run("seccomp: clone with namespaces, clone3 ENOSYS, no new process", probe_clone, 0);
    run("seccomp: no SysV queues or semaphores, inotify, metadata changes, socket buffers", probe_metadata_and_more, 0);
    run("seccomp: unshare, mount, umount2", probe_namespaces_and_mounts, 0);
    run("seccomp: pthread_create after the filter", probe_thread_after, 0);
    run("seccomp: a thread made before the filter (TSYNC)", probe_thread_before, 0);
    run("seccomp: -ESRCH when a thread cannot be synchronised", probe_thread_unsynchronised, 0);
    run("seccomp: prctl", probe_prctl, 0);
    run("seccomp: prlimit64 only on itself", probe_prlimit, 0);
    run("seccomp: setpriority, getpriority, ioprio_set, ioprio_get only of itself", probe_priority_and_io_priority, 0);
    run("seccomp: sched_* only of itself", probe_scheduler, 0);
    run("seccomp: sched_* of another thread of its own refused", probe_scheduler_of_a_thread, 0);
    run("seccomp: migrate_pages, move_pages, get_robust_list, getpgid, getsid, setpgid only of itself; capget",
        probe_process_memory_and_groups, 0);
    run("seccomp: F_SETOWN only itself, F_SETOWN_EX, FIOSETOWN, SIOCSPGRP, TIOCSPGRP never", probe_signal_owner, 0);
    run("seccomp: dlopen(libm.so.6)", probe_dlopen, 0);
    run("seccomp: io_uring_setup", probe_io_uring, 0);
#ifdef __x86_64__
    run("seccomp: x32 system call kills", probe_x32, SIGSYS);
    if (i386_available()) {
        run("seccomp: i386 system call kills", probe_i386, SIGSYS);
    } else {
        printf("ok seccomp: i386 system call kills # skip: no i386 emulation\n");
    }
#endif

    kernel_abi = tidings_landlock_abi();
    if (kernel_abi <= 0) printf("# Landlock: %s\n", strerror(-kernel_abi));
    run("landlock: result (abi, skipped, network, scoped)", probe_landlock_result, 0);
    run("landlock: read in a READ directory", probe_landlock_read, 0);
    run("landlock: no writing in a READ directory", probe_landlock_read_only, 0);
    run("landlock: create, truncate, remove in a READ_WRITE directory", probe_landlock_read_write, 0);
    run("landlock: nothing outside the rules", probe_landlock_outside, 0);
    run("landlock: a file's READ_WRITE rule", probe_landlock_file_rule, 0);
    run("landlock: /dev/null READ_WRITE_FILES", probe_landlock_dev_null, 0);
    run("landlock: a rule through a symlink", probe_landlock_symlink, 0);
    run("landlock: TCP connect and bind refused", probe_landlock_tcp, 0);
    run("landlock: TCP connect with allow_network", probe_landlock_tcp_allowed, 0);
    run("landlock: signals scoped", probe_landlock_signals, 0);
    run("landlock: abstract UNIX sockets scoped", probe_landlock_abstract_unix, 0);
    run("landlock: an unknown access is EINVAL", probe_landlock_unknown_access, 0);
    run("landlock: execve beneath READ_EXECUTE", probe_landlock_execute, 0);
    run("landlock: no execve beneath READ", probe_landlock_no_execute, 0);
    run("landlock and seccomp: a worker loads a library, runs a thread, passes descriptors", probe_worker, 0);

    close(server);
    nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    printf("%s (uid %d)\n", failures == 0 ? "# all passed" : "# some checks failed", (int)getuid());
    return failures == 0 ? 0 : 1;
}
