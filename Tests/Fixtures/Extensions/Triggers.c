/*
 * A content extension that reads each notification's trigger through the
 * host's "tidings.trigger/1" interface and logs it in one line:
 *   "trigger=none"                        a notification delivered at once
 *   "trigger=push"                        an APNs payload
 *   "trigger=interval seconds=S repeats=R"
 *   "trigger=calendar hour=8 minute=30 zone=Z repeats=R" (the components
 *                                         given, in the header's order; zone
 *                                         when one is named)
 *   "trigger=location id=I lat=A lon=O radius=M entry=E exit=X repeats=R"
 *   "no interface"                        a host without it
 * It also asks about a notification it made itself, which the host must not
 * know: "own=unknown" (or "own=known", a fault). To a response, it logs
 * the trigger of the notification answered: "response trigger=…". The Swift fixture
 * TriggerReport logs the same lines through the SDK.
 */
#include <stdio.h>
#include <string.h>

#include "tidings.h"

static const tidings_host *host;

static void *create(tidings_context context) {
    return context;
}

static void destroy(void *instance) {
    (void)instance;
}

/* Appends " name=value" to `line` when the component is given. */
static void component(char *line, size_t size, const char *name, int64_t value) {
    size_t used = strlen(line);
    if (value != TIDINGS_DATE_COMPONENT_UNSET) {
        snprintf(line + used, size - used, " %s=%lld", name, (long long)value);
    }
}

static void describe(const tidings_trigger *trigger, char *line, size_t size) {
    size_t used;
    if (trigger == NULL || trigger->struct_size < TIDINGS_TRIGGER_SIZE_1) {
        snprintf(line, size, "trigger=none");
        return;
    }
    switch (trigger->kind) {
    case TIDINGS_TRIGGER_PUSH:
        snprintf(line, size, "trigger=push");
        return;
    case TIDINGS_TRIGGER_TIME_INTERVAL:
        snprintf(line, size, "trigger=interval seconds=%lld", (long long)trigger->time_interval);
        break;
    case TIDINGS_TRIGGER_CALENDAR:
        snprintf(line, size, "trigger=calendar");
        component(line, size, "era", trigger->era);
        component(line, size, "year", trigger->year);
        component(line, size, "month", trigger->month);
        component(line, size, "day", trigger->day);
        component(line, size, "hour", trigger->hour);
        component(line, size, "minute", trigger->minute);
        component(line, size, "second", trigger->second);
        component(line, size, "weekday", trigger->weekday);
        component(line, size, "weekdayOrdinal", trigger->weekday_ordinal);
        component(line, size, "weekOfMonth", trigger->week_of_month);
        component(line, size, "weekOfYear", trigger->week_of_year);
        if (trigger->time_zone != NULL) {
            used = strlen(line);
            snprintf(line + used, size - used, " zone=%s", trigger->time_zone);
        }
        break;
    case TIDINGS_TRIGGER_LOCATION:
        snprintf(line, size, "trigger=location id=%s lat=%g lon=%g radius=%lld entry=%d exit=%d",
                 trigger->region_identifier, trigger->latitude, trigger->longitude, (long long)trigger->radius,
                 (int)trigger->notify_on_entry, (int)trigger->notify_on_exit);
        break;
    default:
        snprintf(line, size, "trigger=unknown");
        return;
    }
    used = strlen(line);
    snprintf(line + used, size - used, " repeats=%d", (int)trigger->repeats);
}

static void did_receive_notification(void *instance, const tidings_notification *notification) {
    tidings_context context = (tidings_context)instance;
    const tidings_trigger_interface *triggers = NULL;
    tidings_notification own = *notification;
    char line[512];
    if (TIDINGS_HAS_FIELD(host, tidings_host, get_interface) && host->get_interface != NULL) {
        triggers = (const tidings_trigger_interface *)host->get_interface(host, TIDINGS_TRIGGER_INTERFACE);
    }
    if (triggers == NULL || triggers->struct_size < TIDINGS_TRIGGER_INTERFACE_SIZE_1) {
        host->log(context, TIDINGS_LOG_INFO, "no interface");
        return;
    }
    host->log(context, TIDINGS_LOG_INFO, triggers->get_trigger(&own) == NULL ? "own=unknown" : "own=known");
    describe(triggers->get_trigger(notification), line, sizeof line);
    host->log(context, TIDINGS_LOG_INFO, line);
}

/* A response: the trigger of the notification it answers, "response trigger=…", then forwarded to the app. */
static void did_receive_response(void *instance, const tidings_response *response, tidings_completion completion) {
    tidings_context context = (tidings_context)instance;
    const tidings_trigger_interface *triggers =
        (const tidings_trigger_interface *)host->get_interface(host, TIDINGS_TRIGGER_INTERFACE);
    char line[512] = "response ";
    if (triggers != NULL && triggers->struct_size >= TIDINGS_TRIGGER_INTERFACE_SIZE_1) {
        describe(triggers->get_trigger(response->notification), line + strlen(line), sizeof line - strlen(line));
        host->log(context, TIDINGS_LOG_INFO, line);
    }
    host->complete_response_for(context, completion, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION);
}

/* A version 3 extension: it asks for an interface, which hosts before version 3 cannot offer. */
static const tidings_extension descriptor = {.struct_size = sizeof descriptor, .abi_version = 3, .create = create,
                                             .destroy = destroy, .did_receive_notification = did_receive_notification,
                                             .did_receive_response = did_receive_response};

TIDINGS_EXPORT const tidings_extension *tidings_extension_entry_v3(const tidings_entry_info *info) {
    host = info->host;
    return &descriptor;
}
