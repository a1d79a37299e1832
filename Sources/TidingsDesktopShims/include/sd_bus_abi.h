// The part of sd-bus's C interface (systemd's <systemd/sd-bus.h>) that
// TidingsDesktop calls: opaque types, the error struct and the types of the
// functions it resolves with dlsym at run time. Header only: nothing here
// links libsystemd, so the package builds and runs on machines without it
// (the library is a run-time dependency, looked up by TidingsDesktop).
// The declarations follow sd-bus's stable ABI (libsystemd.so.0).
#ifndef TIDINGS_SD_BUS_ABI_H
#define TIDINGS_SD_BUS_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct tidings_sd_bus tidings_sd_bus;
typedef struct tidings_sd_bus_message tidings_sd_bus_message;
typedef struct tidings_sd_bus_slot tidings_sd_bus_slot;

/// sd_bus_error: a D-Bus error's name and message (both NULL when unset).
typedef struct tidings_sd_bus_error {
    const char *name;
    const char *message;
    int _need_free;
} tidings_sd_bus_error;

/// sd_bus_message_handler_t: a signal or method-call callback.
typedef int (*tidings_sd_bus_message_handler)(tidings_sd_bus_message *m, void *userdata,
                                              tidings_sd_bus_error *ret_error);

// Connections.
typedef int (*tidings_sd_bus_new)(tidings_sd_bus **ret);
typedef int (*tidings_sd_bus_set_address)(tidings_sd_bus *bus, const char *address);
typedef int (*tidings_sd_bus_set_bus_client)(tidings_sd_bus *bus, int b);
typedef int (*tidings_sd_bus_set_description)(tidings_sd_bus *bus, const char *description);
typedef int (*tidings_sd_bus_start)(tidings_sd_bus *bus);
typedef tidings_sd_bus *(*tidings_sd_bus_flush_close_unref)(tidings_sd_bus *bus);
typedef int (*tidings_sd_bus_get_unique_name)(tidings_sd_bus *bus, const char **unique);
typedef int (*tidings_sd_bus_request_name)(tidings_sd_bus *bus, const char *name, uint64_t flags);

// The event loop.
typedef int (*tidings_sd_bus_process)(tidings_sd_bus *bus, tidings_sd_bus_message **r);
typedef int (*tidings_sd_bus_wait)(tidings_sd_bus *bus, uint64_t timeout_usec);
typedef int (*tidings_sd_bus_get_fd)(tidings_sd_bus *bus);
typedef int (*tidings_sd_bus_get_events)(tidings_sd_bus *bus);
typedef int (*tidings_sd_bus_get_timeout)(tidings_sd_bus *bus, uint64_t *timeout_usec);

// Calls, replies, signals, objects.
typedef int (*tidings_sd_bus_message_new_method_call)(tidings_sd_bus *bus, tidings_sd_bus_message **m,
                                                      const char *destination, const char *path,
                                                      const char *interface, const char *member);
typedef int (*tidings_sd_bus_message_new_method_return)(tidings_sd_bus_message *call, tidings_sd_bus_message **m);
typedef int (*tidings_sd_bus_message_new_signal)(tidings_sd_bus *bus, tidings_sd_bus_message **m,
                                                 const char *path, const char *interface, const char *member);
typedef int (*tidings_sd_bus_call)(tidings_sd_bus *bus, tidings_sd_bus_message *m, uint64_t usec,
                                   tidings_sd_bus_error *ret_error, tidings_sd_bus_message **reply);
typedef int (*tidings_sd_bus_send)(tidings_sd_bus *bus, tidings_sd_bus_message *m, uint64_t *cookie);
/// sd_bus_call_async: sends m; callback runs with the reply (or an error reply) inside sd_bus_process.
typedef int (*tidings_sd_bus_call_async)(tidings_sd_bus *bus, tidings_sd_bus_slot **slot, tidings_sd_bus_message *m,
                                         tidings_sd_bus_message_handler callback, void *userdata, uint64_t usec);
/// sd_bus_message_get_error: the error of an error reply; NULL for any other message.
typedef const tidings_sd_bus_error *(*tidings_sd_bus_message_get_error)(tidings_sd_bus_message *m);
typedef int (*tidings_sd_bus_match_signal)(tidings_sd_bus *bus, tidings_sd_bus_slot **ret, const char *sender,
                                           const char *path, const char *interface, const char *member,
                                           tidings_sd_bus_message_handler callback, void *userdata);
typedef int (*tidings_sd_bus_add_object)(tidings_sd_bus *bus, tidings_sd_bus_slot **slot, const char *path,
                                         tidings_sd_bus_message_handler callback, void *userdata);
typedef tidings_sd_bus_slot *(*tidings_sd_bus_slot_unref)(tidings_sd_bus_slot *slot);
typedef tidings_sd_bus_message *(*tidings_sd_bus_message_unref)(tidings_sd_bus_message *m);

// Message contents, one basic value or container at a time (not variadic).
typedef int (*tidings_sd_bus_message_append_basic)(tidings_sd_bus_message *m, char type, const void *p);
typedef int (*tidings_sd_bus_message_open_container)(tidings_sd_bus_message *m, char type, const char *contents);
typedef int (*tidings_sd_bus_message_close_container)(tidings_sd_bus_message *m);
typedef int (*tidings_sd_bus_message_read_basic)(tidings_sd_bus_message *m, char type, void *p);
typedef int (*tidings_sd_bus_message_enter_container)(tidings_sd_bus_message *m, char type, const char *contents);
typedef int (*tidings_sd_bus_message_exit_container)(tidings_sd_bus_message *m);
typedef int (*tidings_sd_bus_message_peek_type)(tidings_sd_bus_message *m, char *type, const char **contents);
typedef int (*tidings_sd_bus_message_skip)(tidings_sd_bus_message *m, const char *types);
/// Reads an array of a fixed-size type (`y`) in place: *ptr points into the message, *size is in bytes.
typedef int (*tidings_sd_bus_message_read_array)(tidings_sd_bus_message *m, char type, const void **ptr, size_t *size);
/// Whether the sender of a method call waits for its reply (it did not set NO_REPLY_EXPECTED).
typedef int (*tidings_sd_bus_message_get_expect_reply)(tidings_sd_bus_message *m);
typedef const char *(*tidings_sd_bus_message_get_string)(tidings_sd_bus_message *m);
typedef void (*tidings_sd_bus_error_free)(tidings_sd_bus_error *e);
/// Sets e (copying both strings); returns the negative errno the name maps to.
typedef int (*tidings_sd_bus_error_set)(tidings_sd_bus_error *e, const char *name, const char *message);

#endif
