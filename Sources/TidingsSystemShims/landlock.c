/*
 * The worker's Landlock domain: every file system right the kernel knows is
 * handled (so refused but where a rule grants it), TCP bind and connect
 * unless the network is granted, and abstract UNIX sockets and signals
 * scoped to the domain.
 */
#define _GNU_SOURCE
#include "TidingsSystemShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's header where there is one; what it may lack is defined below. */
#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif
#endif

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* ABI 1. */
#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#endif
/* ABI 2. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
/* ABI 3. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
/* ABI 4. */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
/* ABI 5. */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* ABI 6. */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
/* ABI 7 adds only logging flags, which this code does not use. */

#ifndef LANDLOCK_RULE_PATH_BENEATH
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif

/* The highest ABI this code knows; a newer kernel is used as this one. */
#define KNOWN_ABI 7

/*
 * struct landlock_ruleset_attr as of ABI 6, under a name of its own: an
 * older header has the struct with fewer fields. The kernel reads `size`
 * bytes of it, so an older kernel never sees the fields it does not know.
 */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

/* struct landlock_path_beneath_attr, packed as the kernel's is. */
struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The rights that apply to a file, not a directory: the kernel refuses others on a file's rule. */
#define FILE_RIGHTS                                                                                 \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |   \
     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Every file system right of ABI `abi`. */
static uint64_t file_system_rights(int abi) {
    /* ABI 1: EXECUTE to MAKE_SYM, the 13 lowest bits. */
    uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return rights;
}

/* The rights `access` grants, among those `handled`; 0 for an unknown access. */
static uint64_t granted(enum tidings_landlock_access access, uint64_t handled) {
    const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    switch (access) {
    case TIDINGS_LANDLOCK_READ:
        return read & handled;
    case TIDINGS_LANDLOCK_READ_EXECUTE:
        return (read | LANDLOCK_ACCESS_FS_EXECUTE) & handled;
    case TIDINGS_LANDLOCK_READ_WRITE:
        return handled;
    case TIDINGS_LANDLOCK_READ_WRITE_FILES:
        return (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                LANDLOCK_ACCESS_FS_IOCTL_DEV) &
               handled;
    }
    return 0;
}

int tidings_landlock_abi(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -errno : (int)abi;
}

/* Adds a rule granting `access` beneath `path`; -ENOENT when there is no such path. */
static int add_rule(int ruleset, const char *path, enum tidings_landlock_access access, uint64_t handled) {
    uint64_t rights = granted(access, handled);
    if (path == NULL || rights == 0) return -EINVAL;
    /* Not O_NOFOLLOW: a rule for /lib means what /lib points to. */
    int file = open(path, O_PATH | O_CLOEXEC);
    if (file < 0) return errno == ENOTDIR ? -ENOENT : -errno;
    struct stat status;
    int error = 0;
    if (fstat(file, &status) != 0) {
        error = -errno;
    } else {
        if (!S_ISDIR(status.st_mode)) rights &= FILE_RIGHTS;
        struct path_beneath_attr beneath = {.allowed_access = rights, .parent_fd = file};
        if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0) != 0) error = -errno;
    }
    close(file);
    return error;
}

int tidings_landlock_restrict(const struct tidings_landlock_rule *rules, size_t count, bool allow_network,
                              struct tidings_landlock_result *result) {
    if (rules == NULL && count > 0) return -EINVAL;
    struct tidings_landlock_result done = {.abi = 0, .skipped = 0, .network_restricted = false, .scoped = false};
    int abi = tidings_landlock_abi();
    if (abi < 0) return abi;
    if (abi > KNOWN_ABI) abi = KNOWN_ABI;
    done.abi = abi;

    struct ruleset_attr attributes = {.handled_access_fs = file_system_rights(abi)};
    size_t size = offsetof(struct ruleset_attr, handled_access_net);
    if (abi >= 4) {
        if (!allow_network) {
            attributes.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
        }
        size = offsetof(struct ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attributes.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
        size = sizeof attributes;
    }
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) return -errno;

    int error = 0;
    for (size_t index = 0; index < count && error == 0; index++) {
        error = add_rule(ruleset, rules[index].path, rules[index].access, attributes.handled_access_fs);
        if (error == -ENOENT) {
            done.skipped++;
            error = 0;
        }
    }
    /* Without no_new_privs only CAP_SYS_ADMIN may restrict itself. */
    if (error == 0 && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        error = -errno;
    }
    if (error == 0 && syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) error = -errno;
    close(ruleset);
    if (error != 0) return error;

    done.network_restricted = attributes.handled_access_net != 0;
    done.scoped = attributes.scoped != 0;
    if (result != NULL) *result = done;
    return 0;
}
