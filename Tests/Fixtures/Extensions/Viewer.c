/*
 * A content extension that reads its notification's attachments through the
 * host, as an extension should (open_attachment), and reports what it could
 * do in label "report", one word group per attachment and per probe:
 *
 *   ID:N:PREFIX:ro   attachment ID opened; N is the size fstat gives, PREFIX
 *                    the first 4 bytes in hex; "ro" when writing is refused
 *   ID:gone          open_attachment gave -1 (no longer in the store)
 *   unknown:-1       open_attachment of an identifier the notification lacks
 *   create:STATUS    what create_attachment answers a content extension
 *
 * It shows the first attachment in image element "image".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tidings.h"

static const tidings_host *host;

static void *create(tidings_context context) {
    return (void *)context;
}

static void destroy(void *instance) {
    (void)instance;
}

static void append(char *report, size_t capacity, const char *text) {
    size_t used = strlen(report);
    snprintf(report + used, capacity - used, "%s%s", used > 0 ? " " : "", text);
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    tidings_context context = (tidings_context)instance;
    const tidings_content *content = notification->content;
    char report[2048] = "";
    char word[256];
    size_t i;
    int descriptor;
    tidings_attachment_request request = {
        .struct_size = sizeof(tidings_attachment_request), .url = "/dev/null", .thumbnail_time = -1};
    for (i = 0; i < content->attachment_count; i++) {
        const char *identifier = content->attachments[i]->identifier;
        descriptor = host->open_attachment(context, identifier);
        if (descriptor < 0) {
            snprintf(word, sizeof word, "%s:gone", identifier);
        } else {
            unsigned char prefix[4] = {0, 0, 0, 0};
            struct stat status;
            ssize_t got = read(descriptor, prefix, sizeof prefix);
            int read_only = write(descriptor, "x", 1) < 0;
            fstat(descriptor, &status);
            snprintf(word, sizeof word, "%s:%lld:%02x%02x%02x%02x:%s", identifier, (long long)status.st_size,
                     prefix[0], prefix[1], prefix[2], prefix[3], got == 4 && read_only ? "ro" : "rw");
            close(descriptor);
        }
        append(report, sizeof report, word);
    }
    snprintf(word, sizeof word, "unknown:%d", host->open_attachment(context, "no-such-attachment"));
    append(report, sizeof report, word);
    snprintf(word, sizeof word, "create:%d", (int)host->create_attachment(context, &request, NULL));
    append(report, sizeof report, word);
    host->set_text(context, "report", report);
    if (content->attachment_count > 0) {
        host->set_image(context, "image", content->attachments[0]->identifier);
    }
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 2,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *table) {
    if (host_abi_version < 2) return NULL;
    host = table;
    return &descriptor;
}
