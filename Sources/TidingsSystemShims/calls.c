/* Plain system calls glibc's Swift module does not declare or cannot call. */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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

int tidings_pipe2(int fds[2], int flags) {
    return (int)result(pipe2(fds, flags));
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
