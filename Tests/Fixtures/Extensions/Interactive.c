/*
 * An extension whose view has buttons and a text field, and which receives
 * their events through "tidings.element-events/1", for the end-to-end tests
 * of interactive elements. Its label "status" says what it got last:
 *
 *  - a tap on "go": "tapped go"; the button's title becomes "Gone" (set_text
 *    on a button) and it is disabled (tidings.elements/1's set_enabled);
 *  - a tap on "ask": it asks for text input (tidings.text-input/1) with the
 *    button title "Send" and the placeholder "Your answer": "asked", or
 *    "ask refused N" with the status the host answered;
 *  - a tap on "stop": it withdraws the request: "stopped";
 *  - a submission of "note": "note: TEXT";
 *  - an answer to the text input: "input: TEXT".
 *
 * Every event is also logged as "event KIND ELEMENT TEXT".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tidings.h"

static const tidings_host *host;

typedef struct interactive {
    tidings_context context;
} interactive;

static const void *host_interface(const char *id) {
    if (!TIDINGS_HAS_FIELD(host, tidings_host, get_interface) || host->get_interface == NULL) return NULL;
    return host->get_interface(host, id);
}

static void *create(tidings_context context) {
    interactive *self = calloc(1, sizeof *self);
    if (self != NULL) self->context = context;
    return self;
}

static void destroy(void *instance) {
    free(instance);
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    interactive *self = instance;
    (void)notification;
    host->set_text(self->context, "status", "ready");
}

static void status(interactive *self, const char *prefix, const char *text) {
    /* A text of up to TIDINGS_MAX_TEXT_BYTES, with its prefix, cut to what set_text takes. */
    static char line[TIDINGS_MAX_TEXT_BYTES + 1];
    snprintf(line, sizeof line, "%s%s", prefix, text != NULL ? text : "");
    host->set_text(self->context, "status", line);
}

static void handle_event(void *instance, const tidings_element_event *event) {
    interactive *self = instance;
    char line[512];
    if (event == NULL || event->struct_size < TIDINGS_ELEMENT_EVENT_SIZE_1) return;
    snprintf(line, sizeof line, "event %d %s %.200s", (int)event->kind,
             event->element != NULL ? event->element : "(null)", event->text != NULL ? event->text : "(null)");
    host->log(self->context, TIDINGS_LOG_INFO, line);
    switch (event->kind) {
    case TIDINGS_ELEMENT_EVENT_TAP:
        if (strcmp(event->element, "go") == 0) {
            const tidings_elements_interface *elements = host_interface(TIDINGS_ELEMENTS_INTERFACE);
            status(self, "tapped ", event->element);
            host->set_text(self->context, "go", "Gone");
            if (elements != NULL && elements->struct_size >= TIDINGS_ELEMENTS_INTERFACE_SIZE_1) {
                elements->set_enabled(self->context, "go", false);
            }
        } else if (strcmp(event->element, "ask") == 0 || strcmp(event->element, "stop") == 0) {
            const tidings_text_input_interface *input = host_interface(TIDINGS_TEXT_INPUT_INTERFACE);
            tidings_status answered = TIDINGS_STATUS_NOT_SUPPORTED;
            int asking = strcmp(event->element, "ask") == 0;
            if (input != NULL && input->struct_size >= TIDINGS_TEXT_INPUT_INTERFACE_SIZE_1) {
                answered = asking ? input->request_text_input(self->context, "Send", "Your answer")
                                  : input->end_text_input(self->context);
            }
            if (answered == TIDINGS_STATUS_OK) {
                status(self, asking ? "asked" : "stopped", NULL);
            } else {
                snprintf(line, sizeof line, "%d", (int)answered);
                status(self, "ask refused ", line);
            }
        }
        break;
    case TIDINGS_ELEMENT_EVENT_SUBMIT:
        status(self, "note: ", event->text);
        break;
    case TIDINGS_ELEMENT_EVENT_TEXT_INPUT:
        status(self, "input: ", event->text);
        break;
    default:
        break;
    }
}

static const tidings_element_events_interface events = {
    .struct_size = sizeof(tidings_element_events_interface),
    .handle_event = handle_event,
};

static const void *get_interface(const char *id) {
    return id != NULL && strcmp(id, TIDINGS_ELEMENT_EVENTS_INTERFACE) == 0 ? &events : NULL;
}

static const tidings_extension descriptor = {
    .struct_size = sizeof(tidings_extension),
    .abi_version = 3,
    .create = create,
    .destroy = destroy,
    .did_receive_notification = did_receive_notification,
    .get_interface = get_interface,
};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry(uint32_t host_abi_version, const tidings_host *given) {
    if (host_abi_version < 3) return NULL;
    host = given;
    return &descriptor;
}
