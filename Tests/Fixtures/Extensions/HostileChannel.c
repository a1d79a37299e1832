/*
 * A hostile extension that speaks the host–worker protocol itself: it
 * writes hand-made WorkerMessage datagrams to its worker's descriptor 3
 * (the channel to the host), bypassing the host functions and their
 * limits. ChannelAttackTests (Tests/TidingsIsolationTests) delivers it.
 *
 * The attack is the notification's userInfo "attack". When the call
 * returns, label "result" of its interface (the service extension: the
 * title it hands back) says what happened: "contained: …", or "LEAKED: …"
 * when it learnt what it must not. An attack that ends the worker leaves no
 * label: the host's fault says what happened.
 *
 * Attacks of the content extension (did_receive_notification):
 *   report-flood    "count" report messages (2,000), each a forged host log
 *                   line after an embedded newline, with ESC sequences, a
 *                   carriage return and a line separator
 *   forge-messages  done for calls not in flight, host calls (set_text
 *                   "FORGED") for instances it was not given, completions of
 *                   tokens it was not given, open_attachment for instances
 *                   not its own; 100 of each
 *
 * Built with -DHOSTILE_SERVICE, a service extension (did_receive_request):
 *   attachment-flood    2,000 open_attachment messages, then create_attachment
 *                       messages until the host ends it (at most 1,000,000),
 *                       all with one reply socket it never reads
 *   readlink-attachment a PNG attached and opened through the host functions;
 *                       readlink of the descriptor, its size, a read and a seek
 *
 * The wire format (Sources/TidingsIsolation/Protocol/WorkerMessageEncoding.swift):
 * a tag byte per message, then its fields in order; integers as LEB128
 * varints, strings as a varint length and UTF-8 bytes, optionals as a byte
 * 0 (absent) or 1 followed by the value, int64 as 8 bytes little-endian.
 * Descriptors travel beside it as SCM_RIGHTS; a reply socket comes last.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tidings.h"
#include "HostileShared.h"

#define CHANNEL 3

static const tidings_host *host;

typedef struct hostile {
    tidings_context context;
} hostile;

static void *create_instance(tidings_context context) {
    hostile *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy_instance(void *instance) {
    free(instance);
}

/* ---- Messages, by hand ---------------------------------------------------- */

typedef struct message {
    unsigned char bytes[4096];
    size_t length;
} message;

static void put_byte(message *m, unsigned char byte) {
    if (m->length < sizeof m->bytes) m->bytes[m->length++] = byte;
}

static void put_varint(message *m, uint64_t value) {
    while (value >= 0x80) {
        put_byte(m, (unsigned char)(value | 0x80));
        value >>= 7;
    }
    put_byte(m, (unsigned char)value);
}

static void put_string(message *m, const char *text) {
    size_t length = strlen(text), i;
    put_varint(m, length);
    for (i = 0; i < length; i++) put_byte(m, (unsigned char)text[i]);
}

/* Sends `m` on the channel with `count` descriptors beside it, waiting while the
 * host has not taken earlier ones (a full buffer, too many descriptors in flight).
 * 0, or -1 once the channel is gone. */
static int send_message(const message *m, const int *files, int count) {
    struct iovec part = {(void *)m->bytes, m->length};
    union {
        char buffer[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr header;
    memset(&header, 0, sizeof header);
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    if (count > 0) {
        struct cmsghdr *rights;
        memset(&control, 0, sizeof control);
        header.msg_control = control.buffer;
        header.msg_controllen = CMSG_SPACE((size_t)count * sizeof(int));
        rights = CMSG_FIRSTHDR(&header);
        rights->cmsg_level = SOL_SOCKET;
        rights->cmsg_type = SCM_RIGHTS;
        rights->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
        memcpy(CMSG_DATA(rights), files, (size_t)count * sizeof(int));
    }
    for (;;) {
        if (sendmsg(CHANNEL, &header, MSG_NOSIGNAL) >= 0) return 0;
        if (errno == EINTR || errno == EAGAIN || errno == ETOOMANYREFS || errno == ENOBUFS) {
            sched_yield();
            continue;
        }
        return -1;
    }
}

/* open_attachment (28): instance, identifier; the reply socket beside it. */
static int send_open(uint64_t instance, const char *identifier, int reply) {
    message m = {{0}, 0};
    put_byte(&m, 28);
    put_varint(&m, instance);
    put_string(&m, identifier);
    return send_message(&m, &reply, 1);
}

#ifndef HOSTILE_SERVICE

static void put_int64(message *m, int64_t value) {
    int i;
    for (i = 0; i < 8; i++) put_byte(m, (unsigned char)((uint64_t)value >> (8 * i)));
}

/* report (27): severity, code, message, file?, path?, line?, column?. */
static int send_report(const char *text) {
    message m = {{0}, 0};
    put_byte(&m, 27);
    put_byte(&m, 0); /* error */
    put_string(&m, "worker.quarantined");
    put_string(&m, text);
    put_byte(&m, 1);
    put_string(&m, "/etc/passwd\ntidings serve: error: FORGED location");
    put_byte(&m, 0);
    put_byte(&m, 0);
    put_byte(&m, 0);
    return send_message(&m, NULL, 0);
}



static void report_flood(char *label, size_t capacity, long count) {
    long sent = 0;
    while (sent < count
           && send_report("fine\ntidings serve: error: FORGED by the extension \x1b[31mred\x1b[0m\r\xe2\x80\xa8 end") == 0) {
        sent++;
    }
    snprintf(label, capacity, "contained: %ld reports sent", sent);
}

static void forge_messages(char *label, size_t capacity) {
    int pair[2], files[1];
    uint64_t n;
    long sent = 0;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(label, capacity, "contained: no socket pair: %s", strerror(errno));
        return;
    }
    files[0] = pair[1];
    for (n = 0; n < 100; n++) {
        message m = {{0}, 0};
        /* done (22): a call not in flight, no failure. */
        put_byte(&m, 22);
        put_varint(&m, 1000 + n);
        put_byte(&m, 0);
        sent += send_message(&m, NULL, 0) == 0;
        /* hostCall (23): set_text (1) on an instance it was not given. */
        m.length = 0;
        put_byte(&m, 23);
        put_varint(&m, 2 + n);
        put_byte(&m, 1);
        put_string(&m, "result");
        put_string(&m, "FORGED");
        sent += send_message(&m, NULL, 0) == 0;
        /* completeResponse (24): a token it was not given, no instance, dismiss (1). */
        m.length = 0;
        put_byte(&m, 24);
        put_varint(&m, 1 + n);
        put_byte(&m, 0);
        put_int64(&m, 1);
        sent += send_message(&m, NULL, 0) == 0;
        /* completeRequest (25): a token it was not given, no instance, no content. */
        m.length = 0;
        put_byte(&m, 25);
        put_varint(&m, 1 + n);
        put_byte(&m, 0);
        put_byte(&m, 0);
        sent += send_message(&m, NULL, 0) == 0;
        /* openAttachment (28) of an instance not its own. */
        sent += send_open(2 + n, "anything", files[0]) == 0;
    }
    close(pair[0]);
    close(pair[1]);
    snprintf(label, capacity, "contained: %ld forged messages sent", sent);
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    hostile *self = instance;
    const char *attack = user_info(notification->content, "attack");
    const char *count = user_info(notification->content, "count");
    static char label[512];
    if (attack != NULL && strcmp(attack, "report-flood") == 0) {
        report_flood(label, sizeof label, count != NULL ? strtol(count, NULL, 10) : 2000);
    } else if (attack != NULL && strcmp(attack, "forge-messages") == 0) {
        forge_messages(label, sizeof label);
    } else {
        snprintf(label, sizeof label, "idle: no attack");
    }
    host->set_text(self->context, "result", label);
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 1,
    .create = create_instance,
    .destroy = destroy_instance,
    .did_receive_notification = did_receive_notification,
};

#else /* HOSTILE_SERVICE */


/* A PNG written to $TMPDIR, opened read-only; -1 on failure. */
static int make_png(char *path, size_t capacity) {
    const char *directory = getenv("TMPDIR");
    int file;
    snprintf(path, capacity, "%s/channel.png", directory != NULL ? directory : "/tmp");
    file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (file < 0) return -1;
    if (write(file, png, sizeof png) != (ssize_t)sizeof png) {
        close(file);
        return -1;
    }
    return file;
}

static void attachment_flood(char *title, size_t capacity) {
    char path[4096];
    int pair[2], files[2];
    long n, sent = 0;
    files[0] = make_png(path, sizeof path);
    if (files[0] < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(title, capacity, "contained: nothing to flood with: %s", strerror(errno));
        return;
    }
    files[1] = pair[1];
    for (n = 0; n < 2000; n++) sent += send_open(1, "anything", pair[1]) == 0;
    for (n = 0; n < 1000000; n++) {
        /* createAttachment (26): instance, identifier, url, type hint?, thumbnail (hidden, clipping?, time?). */
        message m = {{0}, 0};
        put_byte(&m, 26);
        put_varint(&m, 1);
        put_string(&m, "");
        put_string(&m, path);
        put_byte(&m, 1);
        put_string(&m, "public.png");
        put_byte(&m, 0);
        put_byte(&m, 0);
        put_byte(&m, 0);
        if (send_message(&m, files, 2) != 0) break;
        sent++;
    }
    snprintf(title, capacity, "contained: the host took %ld flooding messages and let the worker live", sent);
}

static void readlink_attachment(hostile *self, char *title, size_t capacity) {
    char path[4096], link[4096], made[64] = "", head[8];
    struct stat status;
    tidings_attachment_result result;
    ssize_t length;
    int file = make_png(path, sizeof path), opened;
    if (file < 0) {
        snprintf(title, capacity, "contained: no PNG could be made: %s", strerror(errno));
        return;
    }
    close(file);
    if (attach_png(host, self->context, "linked", path, made, sizeof made, &result) != TIDINGS_STATUS_OK) {
        snprintf(title, capacity, "BROKEN: create_attachment failed (%d)", (int)result.error);
        return;
    }
    opened = host->open_attachment(self->context, made);
    if (opened < 0) {
        snprintf(title, capacity, "BROKEN: open_attachment failed");
        return;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", opened);
    length = readlink(path, link, sizeof link - 1);
    link[length < 0 ? 0 : length] = 0;
    if (fstat(opened, &status) != 0 || status.st_size != (off_t)sizeof png || read(opened, head, 8) != 8
        || memcmp(head, png, 8) != 0 || lseek(opened, 1, SEEK_SET) != 1 || read(opened, head, 3) != 3
        || memcmp(head, "PNG", 3) != 0) {
        snprintf(title, capacity, "BROKEN: the descriptor does not read as the PNG (link %s)", link);
    } else if (strstr(link, "memfd:") == NULL) {
        snprintf(title, capacity, "LEAKED: %s", link);
    } else {
        snprintf(title, capacity, "contained: link %s, %lld bytes", link, (long long)status.st_size);
    }
    close(opened);
}

static void did_receive_request(void *instance, const tidings_notification *request, tidings_completion completion) {
    hostile *self = instance;
    static char title[TIDINGS_MAX_TITLE_BYTES];
    const char *attack = user_info(request->content, "attack");
    tidings_content changed = *request->content;
    if (attack != NULL && strcmp(attack, "attachment-flood") == 0) {
        attachment_flood(title, sizeof title);
    } else if (attack != NULL && strcmp(attack, "readlink-attachment") == 0) {
        readlink_attachment(self, title, sizeof title);
    } else {
        snprintf(title, sizeof title, "idle: no attack");
    }
    changed.title = title;
    host->complete_request(completion, &changed);
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 2,
    .create = create_instance,
    .destroy = destroy_instance,
    .did_receive_request = did_receive_request,
};

#endif /* HOSTILE_SERVICE */

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t version, const tidings_host *table) {
    (void)version;
    host = table;
    return &descriptor;
}
