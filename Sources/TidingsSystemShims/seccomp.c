/*
 * The worker's seccomp filter: a deny list in front of the system calls an
 * extension library has no business making. Everything else stays allowed,
 * because the worker is a Swift program (threads, dlopen, mmap, futex,
 * epoll, timers, pipes, socketpair, SCM_RIGHTS) and must keep working.
 *
 * Why each group is refused (EPERM unless it says otherwise):
 * - Foreign system call ABIs (i386 through int 0x80, x32 numbers on x86_64;
 *   anything but AArch64 on aarch64) kill the process: their numbers differ,
 *   so they would walk past every rule below.
 * - Other processes (ptrace, process_vm_readv/writev, kcmp, pidfd_open,
 *   pidfd_getfd, pidfd_send_signal, process_madvise): they read, write or
 *   steal from processes of the same user, the host among them.
 * - Signals to anything but the worker itself (kill, tgkill,
 *   rt_sigqueueinfo, rt_tgsigqueueinfo; tkill, which names no process):
 *   pid 0 or -pgid reaches the host's process group, -1 every process of the user.
 * - prlimit64 on another process: it would change that process's limits.
 * - Every other system call that names a process, a process group or a user
 *   as its target (see "Calls that name a process" below) is refused unless
 *   it names the worker itself: 0 or its own pid. Without a PID namespace
 *   any pid the worker can guess is a door to the host (setpriority on the
 *   host's pid succeeded); with one, the rule still holds, at no cost.
 * - Namespaces (unshare, setns, clone with a CLONE_NEW* flag): a user
 *   namespace hands out capabilities and opens kernel code otherwise out of reach.
 * - Processes (fork, vfork, clone without CLONE_THREAD): an extension is a
 *   library and starts threads only; a child would escape the CPU watchdog
 *   (a process's clock) and the data limit (a process's), and could
 *   outlive the worker where there is no PID namespace.
 * - clone3 (ENOSYS): its flags lie behind a pointer the filter cannot read;
 *   glibc falls back to clone, whose flags it can.
 * - Mounts (mount, umount2, pivot_root, chroot, move_mount, open_tree,
 *   fsopen, fsconfig, fsmount, fspick, mount_setattr): they change what paths
 *   mean beneath the Landlock rules.
 * - Large, bug-prone kernel interfaces (bpf, perf_event_open, userfaultfd,
 *   io_uring_setup/enter/register, keyctl, add_key, request_key): the usual
 *   doors of kernel exploits; io_uring's operations also bypass seccomp.
 * - personality: READ_IMPLIES_EXEC and ADDR_NO_RANDOMIZE weaken the memory protections.
 * - Machine administration (init_module, finit_module, delete_module,
 *   kexec_load, kexec_file_load, reboot, swapon, swapoff, acct,
 *   settimeofday, clock_settime, clock_adjtime, adjtimex, syslog, vhangup,
 *   quotactl, quotactl_fd, iopl, ioperm): no worker needs them, even one
 *   started with privileges.
 * - File handles (open_by_handle_at, name_to_handle_at, lookup_dcookie):
 *   they open files by handle, around the path checks of Landlock.
 * - fanotify_init: it watches, and with permission events blocks, the file
 *   accesses of other processes.
 * - Programs (execve, execveat, uselib): an extension is a library and
 *   starts nothing; exec would also drop the worker's signal handlers and
 *   run any program of the machine.
 * - Memory beyond RLIMIT_DATA (memfd_create, memfd_secret, shmget, shmat,
 *   shmctl, mmap with MAP_SHARED and MAP_ANONYMOUS): shared memory is not
 *   counted by the data limit; System V segments also outlive the worker.
 * - POSIX message queues (mq_open, mq_timedsend, mq_timedreceive,
 *   mq_notify, mq_getsetattr, mq_unlink), System V message queues and
 *   semaphores (msg*, sem*): channels to other processes that outlive the
 *   worker, beyond its IPC namespace where it has none.
 * - inotify (inotify_init, inotify_init1, inotify_add_watch): it watches
 *   the names of files in directories Landlock would not let it open.
 * - File metadata (chmod, fchmod, fchmodat, fchmodat2, chown, lchown,
 *   fchown, fchownat, utime, utimes, futimesat, utimensat, setxattr,
 *   lsetxattr, fsetxattr, removexattr, lremovexattr, fremovexattr,
 *   setxattrat, removexattrat): Landlock fences opening files, not their
 *   mode, owner, times or attributes, and an extension of the user's own
 *   uid could make the user's files readable to all, or its own library
 *   look changed.
 * - setsockopt SO_SNDBUF, SO_RCVBUF and their FORCE kinds: socket buffers
 *   are kernel memory that neither the data limit nor (without a cgroup)
 *   anything else counts.
 * - socket, but for AF_INET and AF_INET6 when the network is granted: UNIX
 *   sockets reach the user's session services, netlink and packet sockets
 *   the kernel's; socketpair stays (the worker's own channel is one).
 * - prctl PR_SET_DUMPABLE, PR_SET_PTRACER, PR_SET_MM, PR_SET_SECUREBITS,
 *   PR_CAP_AMBIENT: they let other processes trace the worker, rewrite its
 *   memory map, or change its capabilities.
 * - timer_settime and timer_delete of the guarded timer: the CPU
 *   watchdog's timer stays as the worker armed it (its signal needs no
 *   guard: the watchdog thread alone waits for it, blocked, and a blocked
 *   signal is never ignored).
 * Landlock's system calls stay allowed: an extension may only add restrictions.
 *
 * Calls that name a process (read once from the kernel's table,
 * asm/unistd_64.h and asm-generic/unistd.h, through Linux 6.18). "Itself"
 * is 0 or `own_pid`, the worker's pid as it sees it; a thread id of one of
 * its other threads is not its pid and is refused too: glibc and the Swift
 * runtime name the process (0) in getpriority and the like, and only
 * pthread_setaffinity_np / pthread_setschedparam of another thread of its
 * own are lost (EPERM), which neither the runtime nor the worker calls.
 * - Read of any process: the scheduler's getters, sched_getaffinity,
 *   sched_getparam, sched_getscheduler, sched_getattr and
 *   sched_rr_get_interval. glibc's pthread_getattr_np reads the calling
 *   thread's affinity by its thread id, and pthread_getschedparam its policy
 *   — every thread's stack bounds under ThreadSanitizer and AddressSanitizer,
 *   in Rust's and a JVM's threads —, and a filter cannot tell a thread id of
 *   its own from another process's pid (refused, ThreadSanitizer's CHECK
 *   failed and the worker died of SIGILL). They tell which CPUs and which
 *   policy a process has and change nothing; with a PID namespace no process
 *   but its own can be named at all.
 * - Itself only: setpriority and getpriority with PRIO_PROCESS (PRIO_PGRP
 *   and PRIO_USER refused outright: a group or every process of the user);
 *   ioprio_set and ioprio_get with IOPRIO_WHO_PROCESS (IOPRIO_WHO_PGRP and
 *   IOPRIO_WHO_USER refused outright); sched_setaffinity,
 *   sched_setscheduler, sched_setparam, sched_setattr; prlimit64; migrate_pages, move_pages (another
 *   process's memory placement); get_robust_list (another's futex list
 *   address, which defeats its ASLR); getpgid, getsid; setpgid (both the
 *   process and the group it joins: joining another group puts the worker
 *   under that group's signals and job control); kill, tgkill,
 *   rt_sigqueueinfo, rt_tgsigqueueinfo (above); fcntl F_SETOWN (the
 *   process that gets a descriptor's SIGIO, or with F_SETSIG any signal:
 *   a kill by another name) and F_SETOWN_EX, whose target lies behind a
 *   pointer, refused outright, as are ioctl FIOSETOWN, SIOCSPGRP and
 *   TIOCSPGRP (the same through ioctl).
 * - Refused outright, whoever they name: ptrace, process_vm_readv/writev,
 *   kcmp (it compares two processes' resources; nothing of use on itself
 *   alone), pidfd_open, pidfd_getfd, pidfd_send_signal, process_madvise,
 *   process_mrelease (a pidfd is the only way to name a process to them,
 *   and pidfd_open is refused), tkill (a thread id alone); capget (the pid
 *   lies in a structure behind a pointer, which a filter cannot read; the
 *   worker has no capabilities to ask about).
 * - Allowed, since they reach no other process: capset (the kernel lets a
 *   process change only its own sets since Linux 2.6.24); wait4 and waitid
 *   (children only, and the worker can make none); set_robust_list,
 *   set_tid_address, getpid, getppid, gettid (they name nothing, or only
 *   tell a number); timer_create with SIGEV_THREAD_ID (the kernel takes
 *   only a thread of the caller's own); clock_gettime of another process's
 *   CPU clock (it reads a number, as /proc/PID/stat would; with a PID
 *   namespace only the worker's own processes can be named).
 */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The architectures the filter knows, little-endian both: an argument's low
 * 32 bits come first, where the filter reads them.
 */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef NATIVE_ARCH

/*
 * System calls from 424 on have one number on every architecture; headers
 * older than the kernel may lack them, and a rule left out is a hole.
 */
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register 427
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif
#ifndef __NR_fspick
#define __NR_fspick 433
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif

/* <linux/ioprio.h>'s, which older headers lack. */
#ifndef IOPRIO_WHO_PROCESS
#define IOPRIO_WHO_PROCESS 1
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif

/*
 * In clone's flags CLONE_NEWTIME's bit lies in the exit signal's byte, where
 * it names no valid signal; it is there for clone's sake all the same.
 */
#define NAMESPACE_FLAGS                                                                                      \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
     CLONE_NEWTIME)

#define ALLOW SECCOMP_RET_ALLOW
#define REFUSE(error) (SECCOMP_RET_ERRNO | ((uint32_t)(error) & SECCOMP_RET_DATA))

/* Refused outright with EPERM, whatever their arguments. */
static const int refused[] = {
    /* Other processes. */
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_kcmp, __NR_pidfd_open, __NR_pidfd_getfd,
    __NR_pidfd_send_signal, __NR_process_madvise, __NR_process_mrelease,
    /* Another process's capabilities, named behind a pointer. */
    __NR_capget,
    /* Signals by thread id alone. */
    __NR_tkill,
    /* Namespaces. */
    __NR_unshare, __NR_setns,
    /* Mounts. */
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_move_mount, __NR_open_tree, __NR_fsopen,
    __NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_mount_setattr,
    /* Large kernel interfaces. */
    __NR_bpf, __NR_perf_event_open, __NR_userfaultfd, __NR_io_uring_setup, __NR_io_uring_enter,
    __NR_io_uring_register, __NR_keyctl, __NR_add_key, __NR_request_key,
    /* Weaker memory protections. */
    __NR_personality,
    /* Machine administration. */
    __NR_init_module, __NR_finit_module, __NR_delete_module, __NR_kexec_load, __NR_kexec_file_load, __NR_reboot,
    __NR_swapon, __NR_swapoff, __NR_acct, __NR_settimeofday, __NR_clock_settime, __NR_clock_adjtime, __NR_adjtimex,
    __NR_syslog, __NR_vhangup, __NR_quotactl, __NR_quotactl_fd,
#ifdef __NR_iopl
    __NR_iopl,
#endif
#ifdef __NR_ioperm
    __NR_ioperm,
#endif
    /* File handles. */
    __NR_open_by_handle_at, __NR_name_to_handle_at, __NR_lookup_dcookie,
    /* Watching other processes' file accesses. */
    __NR_fanotify_init,
    /* Programs. */
    __NR_execve, __NR_execveat,
#ifdef __NR_uselib
    __NR_uselib,
#endif
    /* Memory beyond RLIMIT_DATA. */
    __NR_memfd_create, __NR_memfd_secret, __NR_shmget, __NR_shmat, __NR_shmctl,
    /* POSIX message queues, System V message queues and semaphores. */
    __NR_mq_open, __NR_mq_timedsend, __NR_mq_timedreceive, __NR_mq_notify, __NR_mq_getsetattr, __NR_mq_unlink,
    __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl, __NR_semget, __NR_semop, __NR_semtimedop, __NR_semctl,
    /* Processes: an extension is a library; its threads are all it may start. */
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
    /* Watching paths Landlock would not let it open. */
#ifdef __NR_inotify_init
    __NR_inotify_init,
#endif
    __NR_inotify_init1, __NR_inotify_add_watch,
    /* File metadata, which Landlock does not fence. */
#ifdef __NR_chmod
    __NR_chmod,
#endif
    __NR_fchmod, __NR_fchmodat, __NR_fchmodat2,
#ifdef __NR_chown
    __NR_chown,
#endif
#ifdef __NR_lchown
    __NR_lchown,
#endif
    __NR_fchown, __NR_fchownat,
#ifdef __NR_utime
    __NR_utime,
#endif
#ifdef __NR_utimes
    __NR_utimes,
#endif
#ifdef __NR_futimesat
    __NR_futimesat,
#endif
    __NR_utimensat, __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_removexattr, __NR_lremovexattr,
    __NR_fremovexattr, __NR_setxattrat, __NR_removexattrat,
};

/* Where a filter reads the system call's number, architecture and arguments. */
#define NR_OFFSET offsetof(struct seccomp_data, nr)
#define ARCH_OFFSET offsetof(struct seccomp_data, arch)
#define ARG_OFFSET(index) (offsetof(struct seccomp_data, args) + (index) * sizeof(uint64_t))

/* Far more than the filter needs (about 440 instructions); build() checks. */
#define CAPACITY 1024

/* A filter being written. */
struct program {
    struct sock_filter code[CAPACITY];
    size_t count;
    /* Set when the program outgrew `code` or a jump its 8 bits. */
    bool broken;
};

static void emit(struct program *program, uint16_t code, uint8_t jump_true, uint8_t jump_false, uint32_t k) {
    if (program->count == CAPACITY) {
        program->broken = true;
        return;
    }
    program->code[program->count++] = (struct sock_filter){code, jump_true, jump_false, k};
}

static void load(struct program *program, size_t offset) {
    emit(program, BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)offset);
}

/* Loads the low 32 bits of argument `index` (the whole of an int argument). */
static void load_argument(struct program *program, unsigned index) {
    load(program, ARG_OFFSET(index));
}

static void give(struct program *program, uint32_t action) {
    emit(program, BPF_RET | BPF_K, 0, 0, action);
}

/* With the number loaded: system call `nr` gets `action`. */
static void answer(struct program *program, int nr, uint32_t action) {
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)nr);
    give(program, action);
}

/*
 * A block of rules on the arguments of system call `nr`: with the number
 * loaded, it jumps past the block for any other call. Every path through
 * the block returns, so the number is still loaded after it.
 * Returns the block's first instruction, for end_block.
 */
static size_t begin_block(struct program *program, int nr) {
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, (uint32_t)nr);
    return program->count - 1;
}

static void end_block(struct program *program, size_t start) {
    if (program->broken) return;
    size_t length = program->count - start - 1;
    if (length > UINT8_MAX) {
        program->broken = true;
        return;
    }
    program->code[start].jf = (uint8_t)length;
}

/*
 * `matching` when argument `index` is one of `values`, else `otherwise`
 * (the argument compared on its low 32 bits).
 */
static void when_argument_in(struct program *program, unsigned index, const uint32_t *values, size_t count,
                             uint32_t matching, uint32_t otherwise) {
    if (count >= UINT8_MAX) {
        program->broken = true;
        return;
    }
    load_argument(program, index);
    for (size_t value = 0; value < count; value++) {
        /* Jumps to the last instruction, `matching`. */
        emit(program, BPF_JMP | BPF_JEQ | BPF_K, (uint8_t)(count - value), 0, values[value]);
    }
    give(program, otherwise);
    give(program, matching);
}

/* System call `nr` allowed only when argument `index` is one of `values`. */
static void only_when(struct program *program, int nr, unsigned index, const uint32_t *values, size_t count) {
    size_t block = begin_block(program, nr);
    when_argument_in(program, index, values, count, ALLOW, REFUSE(EPERM));
    end_block(program, block);
}

/*
 * System call `nr` allowed only when argument `which_index` is `which` and
 * argument `who_index` one of `who`: setpriority's PRIO_PROCESS of itself,
 * not a group or a user.
 */
static void only_when_both(struct program *program, int nr, unsigned which_index, uint32_t which, unsigned who_index,
                           const uint32_t *who, size_t count) {
    size_t block = begin_block(program, nr);
    load_argument(program, which_index);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, which); /* on to `who` */
    give(program, REFUSE(EPERM));
    when_argument_in(program, who_index, who, count, ALLOW, REFUSE(EPERM));
    end_block(program, block);
}

/*
 * fcntl F_SETOWN but of itself (argument 2), and never F_SETOWN_EX: the
 * process a descriptor's SIGIO (or F_SETSIG's signal) goes to.
 */
static void guard_signal_owner(struct program *program, const uint32_t *self, size_t count) {
    size_t block = begin_block(program, __NR_fcntl);
    load_argument(program, 1);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, F_SETOWN_EX); /* else on */
    give(program, REFUSE(EPERM));
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, F_SETOWN); /* to the owner's check */
    give(program, ALLOW);
    when_argument_in(program, 2, self, count, ALLOW, REFUSE(EPERM));
    end_block(program, block);
}

/*
 * clone but for a thread (argument 0 on x86_64 and aarch64): a new process
 * (no CLONE_THREAD) or a namespace flag is refused.
 */
static void refuse_process_clone(struct program *program) {
    size_t block = begin_block(program, __NR_clone);
    load_argument(program, 0);
    emit(program, BPF_JMP | BPF_JSET | BPF_K, 1, 0, NAMESPACE_FLAGS); /* to REFUSE */
    emit(program, BPF_JMP | BPF_JSET | BPF_K, 1, 0, CLONE_THREAD);    /* to ALLOW */
    give(program, REFUSE(EPERM));
    give(program, ALLOW);
    end_block(program, block);
}

/* setsockopt(fd, SOL_SOCKET, SO_SNDBUF, SO_RCVBUF or their FORCE kinds, …): buffers are kernel memory no limit counts. */
static void refuse_buffer_growth(struct program *program) {
    size_t block = begin_block(program, __NR_setsockopt);
    load_argument(program, 1);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 0, 6, SOL_SOCKET); /* else to ALLOW */
    load_argument(program, 2);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 3, 0, SO_SNDBUF);        /* to REFUSE */
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, SO_RCVBUF);        /* to REFUSE */
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SO_SNDBUFFORCE);   /* to REFUSE */
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, SO_RCVBUFFORCE);   /* else to ALLOW */
    give(program, REFUSE(EPERM));
    give(program, ALLOW);
    end_block(program, block);
}

/* mmap of shared anonymous memory: MAP_ANONYMOUS, and a type of MAP_SHARED or MAP_SHARED_VALIDATE. */
static void refuse_shared_anonymous(struct program *program, int nr) {
    size_t block = begin_block(program, nr);
    load_argument(program, 3);
    emit(program, BPF_JMP | BPF_JSET | BPF_K, 0, 4, MAP_ANONYMOUS);       /* else to ALLOW */
    emit(program, BPF_ALU | BPF_AND | BPF_K, 0, 0, MAP_TYPE);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, MAP_SHARED);          /* to REFUSE */
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, MAP_SHARED_VALIDATE); /* else to ALLOW */
    give(program, REFUSE(EPERM));
    give(program, ALLOW);
    end_block(program, block);
}

/* timer_settime and timer_delete of `timer` (a kernel timer id, argument 0). */
static void guard_timer(struct program *program, int nr, int timer) {
    size_t block = begin_block(program, nr);
    const uint32_t guarded = (uint32_t)timer;
    when_argument_in(program, 0, &guarded, 1, REFUSE(EPERM), ALLOW);
    end_block(program, block);
}

static void build(struct program *program, const struct tidings_seccomp_options *options) {
    load(program, ARCH_OFFSET);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, NATIVE_ARCH);
    give(program, SECCOMP_RET_KILL_PROCESS);
    load(program, NR_OFFSET);
#ifdef __x86_64__
    emit(program, BPF_JMP | BPF_JGE | BPF_K, 0, 1, __X32_SYSCALL_BIT);
    give(program, SECCOMP_RET_KILL_PROCESS);
#endif

    for (size_t index = 0; index < sizeof refused / sizeof refused[0]; index++) {
        answer(program, refused[index], REFUSE(EPERM));
    }
    answer(program, __NR_clone3, REFUSE(ENOSYS));
    refuse_process_clone(program);
    refuse_buffer_growth(program);

    const uint32_t own = (uint32_t)options->own_pid;
    only_when(program, __NR_kill, 0, &own, 1);
    only_when(program, __NR_tgkill, 0, &own, 1);
    only_when(program, __NR_rt_sigqueueinfo, 0, &own, 1);
    only_when(program, __NR_rt_tgsigqueueinfo, 0, &own, 1);
    const uint32_t self_or_own[] = {0, own};
    only_when(program, __NR_prlimit64, 0, self_or_own, 2);
    /* The calls that name a process as their first argument: itself only. */
    static const int naming_a_process[] = {
        __NR_sched_setaffinity, __NR_sched_setscheduler, __NR_sched_setparam, __NR_sched_setattr,
        __NR_migrate_pages, __NR_move_pages, __NR_get_robust_list, __NR_getpgid, __NR_getsid,
    };
    for (size_t index = 0; index < sizeof naming_a_process / sizeof naming_a_process[0]; index++) {
        only_when(program, naming_a_process[index], 0, self_or_own, 2);
    }
    /* setpgid: the process and the group it joins, both itself. */
    size_t group = begin_block(program, __NR_setpgid);
    load_argument(program, 0);
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 0);   /* on to the group */
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, own); /* on to the group */
    give(program, REFUSE(EPERM));
    when_argument_in(program, 1, self_or_own, 2, ALLOW, REFUSE(EPERM));
    end_block(program, group);
    /* A process only, not a group or a user. */
    only_when_both(program, __NR_setpriority, 0, PRIO_PROCESS, 1, self_or_own, 2);
    only_when_both(program, __NR_getpriority, 0, PRIO_PROCESS, 1, self_or_own, 2);
    only_when_both(program, __NR_ioprio_set, 0, IOPRIO_WHO_PROCESS, 1, self_or_own, 2);
    only_when_both(program, __NR_ioprio_get, 0, IOPRIO_WHO_PROCESS, 1, self_or_own, 2);
    /* Who gets a descriptor's SIGIO. */
    guard_signal_owner(program, self_or_own, 2);
    const uint32_t owner_requests[] = {FIOSETOWN, SIOCSPGRP, TIOCSPGRP};
    size_t requests = begin_block(program, __NR_ioctl);
    when_argument_in(program, 1, owner_requests, sizeof owner_requests / sizeof owner_requests[0], REFUSE(EPERM),
                     ALLOW);
    end_block(program, requests);

    if (options->allow_network) {
        const uint32_t internet[] = {AF_INET, AF_INET6};
        only_when(program, __NR_socket, 0, internet, 2);
    } else {
        answer(program, __NR_socket, REFUSE(EPERM));
    }

    refuse_shared_anonymous(program, __NR_mmap);
#ifdef __NR_mmap2
    refuse_shared_anonymous(program, __NR_mmap2);
#endif

    const uint32_t prctl_refused[] = {PR_SET_DUMPABLE, PR_SET_PTRACER, PR_SET_MM, PR_SET_SECUREBITS, PR_CAP_AMBIENT};
    size_t block = begin_block(program, __NR_prctl);
    when_argument_in(program, 0, prctl_refused, sizeof prctl_refused / sizeof prctl_refused[0], REFUSE(EPERM),
                     ALLOW);
    end_block(program, block);

    if (options->guarded_timer >= 0) {
        guard_timer(program, __NR_timer_settime, options->guarded_timer);
        guard_timer(program, __NR_timer_delete, options->guarded_timer);
    }

    give(program, ALLOW);
}

int tidings_seccomp_install(const struct tidings_seccomp_options *options) {
    if (options == NULL || options->struct_size < sizeof *options || options->own_pid <= 0 ||
        options->guarded_timer < -1) {
        return -EINVAL;
    }
    struct program program = {.count = 0, .broken = false};
    build(&program, options);
    if (program.broken) return -E2BIG;

    /* Without no_new_privs only CAP_SYS_ADMIN may install a filter; TSYNC hands it to every thread too. */
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    struct sock_fprog filter = {.len = (unsigned short)program.count, .filter = program.code};
    long installed = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter);
    if (installed < 0) return -errno;
    /* TSYNC answers with the id of a thread it could not synchronise. */
    return installed == 0 ? 0 : -ESRCH;
}

#else

/* An architecture this filter does not know: as if the kernel had no seccomp filters. */
int tidings_seccomp_install(const struct tidings_seccomp_options *options) {
    (void)options;
    return -ENOSYS;
}

#endif
