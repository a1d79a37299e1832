/* Plain system calls glibc's Swift module does not declare or cannot call. */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

_Static_assert(TIDINGS_O_PATH == O_PATH, "TIDINGS_O_PATH is this architecture's O_PATH");

/* The result of a call that returns -1 and sets errno, as this shim returns it. */
static long result(long value) {
    return value < 0 ? -errno : value;
}

int tidings_allowed_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -errno;
    return CPU_COUNT(&set);
}

int tidings_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5) {
    return (int)result(prctl(option, a2, a3, a4, a5));
}

pid_t tidings_gettid(void) {
    return (pid_t)syscall(SYS_gettid);
}

int tidings_close_range(unsigned int first, unsigned int last, unsigned int flags) {
    return (int)result(syscall(SYS_close_range, first, last, flags));
}

int tidings_eventfd(void) {
    return (int)result(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

int tidings_timerfd(void) {
    return (int)result(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
}

int tidings_timerfd_arm(int timer, unsigned long long nanoseconds) {
    struct itimerspec spec = {
        .it_interval = {0, 0},
        .it_value = {(time_t)(nanoseconds / 1000000000ULL), (long)(nanoseconds % 1000000000ULL)},
    };
    return (int)result(timerfd_settime(timer, 0, &spec, NULL));
}

int tidings_timerfd_on(int clock) {
    return (int)result(timerfd_create(clock, TFD_CLOEXEC | TFD_NONBLOCK));
}

int tidings_timerfd_arm_at(int timer, unsigned long long nanoseconds, int cancelOnSet) {
    struct itimerspec spec = {
        .it_interval = {0, 0},
        .it_value = {(time_t)(nanoseconds / 1000000000ULL), (long)(nanoseconds % 1000000000ULL)},
    };
    int flags = nanoseconds == 0 ? 0 : TFD_TIMER_ABSTIME | (cancelOnSet ? TFD_TIMER_CANCEL_ON_SET : 0);
    return (int)result(timerfd_settime(timer, flags, &spec, NULL));
}

int tidings_accept4(int listener, int flags) {
    return accept4(listener, NULL, NULL, flags);
}

int tidings_pipe2(int fds[2], int flags) {
    return (int)result(pipe2(fds, flags));
}

_Static_assert(TIDINGS_EPOLL_IN == EPOLLIN && TIDINGS_EPOLL_OUT == EPOLLOUT && TIDINGS_EPOLL_ERR == EPOLLERR
                   && TIDINGS_EPOLL_HUP == EPOLLHUP,
               "the TIDINGS_EPOLL_ bits are this system's");

int tidings_epoll_create(void) {
    return (int)result(epoll_create1(EPOLL_CLOEXEC));
}

int tidings_epoll_control(int epoll, int operation, int file, uint32_t events, uint64_t token) {
    static const int operations[] = {EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL};
    if (operation < 0 || operation > 2) return -EINVAL;
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    return (int)result(epoll_ctl(epoll, operations[operation], file, &event));
}

int tidings_epoll_wait(int epoll, tidings_epoll_ready *ready, int capacity, int timeout) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int index = 0; index < count; index++) {
        ready[index].token = events[index].data.u64;
        ready[index].events = events[index].events;
    }
    return count;
}

int tidings_pidfd_open(pid_t pid) {
    return (int)result(syscall(SYS_pidfd_open, pid, 0));
}

int tidings_pidfd_send_signal(int pidfd, int signal) {
    return (int)result(syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0));
}

int tidings_thread_stack(uintptr_t *low, size_t *size) {
    pthread_attr_t attributes;
    int status = pthread_getattr_np(pthread_self(), &attributes);
    if (status != 0) return -status;
    void *base = NULL;
    status = pthread_attr_getstack(&attributes, &base, size);
    pthread_attr_destroy(&attributes);
    if (status != 0) return -status;
    *low = (uintptr_t)base;
    return 0;
}

int tidings_cpu_timer_create(int signal, pid_t thread) {
    /* Raw: glibc's timer_t hides the kernel's id, which the seccomp filter must name. */
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_signo = signal;
    event.sigev_notify = SIGEV_THREAD_ID;
    event._sigev_un._tid = thread;
    int timer = -1;
    if (syscall(SYS_timer_create, CLOCK_PROCESS_CPUTIME_ID, &event, &timer) < 0) return -errno;
    return timer;
}

int tidings_cpu_timer_arm(int timer, uint64_t nanoseconds, uint64_t interval) {
    struct itimerspec value;
    memset(&value, 0, sizeof value);
    value.it_value.tv_sec = (time_t)(nanoseconds / 1000000000u);
    value.it_value.tv_nsec = (long)(nanoseconds % 1000000000u);
    value.it_interval.tv_sec = (time_t)(interval / 1000000000u);
    value.it_interval.tv_nsec = (long)(interval % 1000000000u);
    return (int)result(syscall(SYS_timer_settime, timer, 0, &value, NULL));
}

/* struct open_how of <linux/openat2.h>, which older headers lack. */
struct tidings_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

int tidings_openat2(int directory, const char *path, int flags, unsigned int mode, uint64_t resolve) {
    struct tidings_open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned int)(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0;
    how.resolve = resolve;
    return (int)result(syscall(SYS_openat2, directory, path, &how, sizeof how));
}

size_t tidings_rights_space(size_t count) {
    return CMSG_SPACE(count * sizeof(int));
}

size_t tidings_rights_build(void *buffer, size_t capacity, const int *files, size_t count) {
    size_t space = CMSG_SPACE(count * sizeof(int));
    if (count == 0 || space > capacity) return 0;
    memset(buffer, 0, space);
    struct msghdr header;
    memset(&header, 0, sizeof header);
    header.msg_control = buffer;
    header.msg_controllen = space;
    struct cmsghdr *message = CMSG_FIRSTHDR(&header);
    message->cmsg_level = SOL_SOCKET;
    message->cmsg_type = SCM_RIGHTS;
    message->cmsg_len = CMSG_LEN(count * sizeof(int));
    memcpy(CMSG_DATA(message), files, count * sizeof(int));
    return space;
}

size_t tidings_rights_collect(const void *buffer, size_t length, int *files, size_t capacity) {
    struct msghdr header;
    memset(&header, 0, sizeof header);
    header.msg_control = (void *)buffer;
    header.msg_controllen = length;
    size_t found = 0;
    for (struct cmsghdr *message = CMSG_FIRSTHDR(&header); message != NULL; message = CMSG_NXTHDR(&header, message)) {
        if (message->cmsg_level != SOL_SOCKET || message->cmsg_type != SCM_RIGHTS) continue;
        if (message->cmsg_len < CMSG_LEN(0)) break;
        size_t count = (message->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const unsigned char *data = CMSG_DATA(message);
        for (size_t index = 0; index < count; index++) {
            int file;
            memcpy(&file, data + index * sizeof(int), sizeof file);
            if (found < capacity) {
                files[found] = file;
            } else {
                close(file);
            }
            found++;
        }
    }
    return found;
}

int tidings_sealed_copy(int source, const char *name, unsigned long long limit) {
    struct stat status;
    char path[64];
    int copy, readable;
    off_t done = 0;
    if (fstat(source, &status) != 0) return -errno;
    if (!S_ISREG(status.st_mode)) return -EINVAL;
    if ((unsigned long long)status.st_size > limit) return -EFBIG;
    copy = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (copy < 0) return -errno;
    while (done < status.st_size) {
        ssize_t moved;
        off_t from = done;
        do {
            moved = copy_file_range(source, &from, copy, NULL, (size_t)(status.st_size - done), 0);
        } while (moved < 0 && errno == EINTR);
        if (moved < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
            char buffer[65536];
            ssize_t got;
            do {
                got = pread(source, buffer, sizeof buffer, done);
            } while (got < 0 && errno == EINTR);
            moved = got;
            if (got > 0) {
                ssize_t written = 0;
                while (written < got) {
                    ssize_t put = write(copy, buffer + written, (size_t)(got - written));
                    if (put < 0 && errno == EINTR) continue;
                    if (put <= 0) { moved = -1; break; }
                    written += put;
                }
            }
        }
        if (moved < 0) {
            int code = errno;
            close(copy);
            return -code;
        }
        if (moved == 0) break; /* the file shrank meanwhile: what there was */
        done += moved;
    }
    if (fchmod(copy, 0400) != 0
        || fcntl(copy, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        int code = errno;
        close(copy);
        return -code;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", copy);
    do {
        readable = open(path, O_RDONLY | O_CLOEXEC);
    } while (readable < 0 && errno == EINTR);
    if (readable < 0) readable = -errno;
    close(copy);
    return readable;
}

int tidings_reopen_read_only(int file) {
    char path[64];
    int opened;
    snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    do {
        opened = open(path, O_RDONLY | O_CLOEXEC);
    } while (opened < 0 && errno == EINTR);
    return opened < 0 ? -errno : opened;
}
