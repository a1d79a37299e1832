/*
 * What the hostile fixtures (Hostile.c, HostileChannel.c) share: a PNG to
 * attach, and userInfo's string values, where their attacks find their
 * parameters. Included after tidings.h and string.h.
 */
#ifndef HOSTILE_SHARED_H
#define HOSTILE_SHARED_H

/* A 1×1 PNG, valid to the last CRC. */
static const unsigned char png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
};

/* userInfo's string value for `key`; NULL when there is none. */
static inline const char *user_info(const tidings_content *content, const char *key) {
    size_t i;
    for (i = 0; i < content->user_info_count; i++) {
        if (strcmp(content->user_info[i]->key, key) == 0) return content->user_info[i]->string_value;
    }
    return NULL;
}

/* create_attachment, through `table`, of the PNG at `path` as `identifier`
 * (the type hinted, no thumbnail time); what was made is in `result`, its
 * identifier in `made`. */
static inline tidings_status attach_png(const tidings_host *table, tidings_context context, const char *identifier,
                                        const char *path, char *made, size_t capacity,
                                        tidings_attachment_result *result) {
    tidings_attachment_request request;
    memset(&request, 0, sizeof request);
    request.struct_size = sizeof request;
    request.identifier = identifier;
    request.url = path;
    request.type_hint = "public.png";
    request.thumbnail_time = -1;
    memset(result, 0, sizeof *result);
    result->struct_size = sizeof *result;
    result->identifier = made;
    result->identifier_capacity = capacity;
    return table->create_attachment(context, &request, result);
}

#endif
