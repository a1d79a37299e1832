/*
 * The worker's view of the file system, which init (init.c) builds in its
 * mount namespace before it drops privileges. Runs after clone: system calls
 * only (see spawn.c).
 */
#define _GNU_SOURCE
#include "spawn_internal.h"

/* struct mount_attr of <linux/mount.h>. */
struct spawn_mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};


/* `root` followed by `path`, into `buffer`; false when it does not fit. */
static bool join(char *buffer, size_t capacity, const char *root, const char *path) {
    size_t length = 0;
    buffer[0] = 0;
    spawn_append_text(buffer, &length, capacity, root);
    spawn_append_text(buffer, &length, capacity, path);
    return length + 1 < capacity;
}

/* mkdir -p of `path` (its parent only when `parent_only`). */
static int make_directories(const char *path, bool parent_only) {
    char buffer[PATH_MAX];
    size_t length = strlen(path);
    if (length >= sizeof buffer) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buffer, path, length + 1);
    if (parent_only) {
        char *slash = strrchr(buffer, '/');
        if (slash == NULL || slash == buffer) return 0;
        *slash = 0;
    }
    for (char *cursor = buffer + 1;; cursor++) {
        if (*cursor == '/' || *cursor == 0) {
            char saved = *cursor;
            *cursor = 0;
            if (mkdir(buffer, 0755) < 0 && errno != EEXIST) return -1;
            *cursor = saved;
            if (saved == 0) break;
        }
    }
    return 0;
}

/* ---- The view ----------------------------------------------------------- */

static int set_attributes(int tree, uint64_t attributes) {
    struct spawn_mount_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.attr_set = attributes;
    return (int)syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr);
}

/*
 * Builds the view on `request->scratch` and makes it the root. Sources are
 * cloned (open_tree) before anything is mounted, so that a source below the
 * scratch directory is still reachable.
 */
void spawn_build_view(int control, const struct tidings_spawn_request *request) {
    int trees[MAX_MOUNTS];
    size_t count = request->mount_count < MAX_MOUNTS ? request->mount_count : MAX_MOUNTS;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_MOUNT_SOURCE, -1);
    for (size_t index = 0; index < count; index++) {
        const struct tidings_mount *entry = &request->mounts[index];
        trees[index] = -1;
        if (entry->kind != TIDINGS_MOUNT_BIND && entry->kind != TIDINGS_MOUNT_DEVICE) continue;
        trees[index] = (int)syscall(SYS_open_tree, AT_FDCWD, entry->source,
                                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        if (trees[index] < 0) {
            if (entry->optional && (errno == ENOENT || errno == ENOTDIR)) continue;
            spawn_fail(control, TIDINGS_SPAWN_STEP_MOUNT_SOURCE, (int)index);
        }
        uint64_t attributes = entry->kind == TIDINGS_MOUNT_DEVICE
            ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC
            : MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        if (set_attributes(trees[index], attributes) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_MOUNT_SOURCE, (int)index);
    }
    const char *root = request->scratch;
    if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1048576") < 0) {
        spawn_fail(control, TIDINGS_SPAWN_STEP_MOUNT, -1);
    }
    char path[PATH_MAX];
    for (size_t index = 0; index < count; index++) {
        const struct tidings_mount *entry = &request->mounts[index];
        int step = TIDINGS_SPAWN_STEP_MOUNT;
        if (!join(path, sizeof path, root, entry->target)) {
            errno = ENAMETOOLONG;
            spawn_fail(control, step, (int)index);
        }
        switch (entry->kind) {
        case TIDINGS_MOUNT_BIND:
        case TIDINGS_MOUNT_DEVICE: {
            if (trees[index] < 0) break; /* optional and missing */
            struct stat status;
            if (fstat(trees[index], &status) < 0) spawn_fail(control, step, (int)index);
            if (S_ISDIR(status.st_mode)) {
                if (make_directories(path, false) < 0) spawn_fail(control, step, (int)index);
            } else {
                if (make_directories(path, true) < 0) spawn_fail(control, step, (int)index);
                int placeholder = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (placeholder < 0) spawn_fail(control, step, (int)index);
                close(placeholder);
            }
            if (syscall(SYS_move_mount, trees[index], "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
                spawn_fail(control, step, (int)index);
            }
            close(trees[index]);
            break;
        }
        case TIDINGS_MOUNT_SYMLINK:
            if (make_directories(path, true) < 0 || symlink(entry->source, path) < 0) spawn_fail(control, step, (int)index);
            break;
        case TIDINGS_MOUNT_TMPFS: {
            char options[64];
            size_t length = 0;
            options[0] = 0;
            spawn_append_text(options, &length, sizeof options, "mode=1777,size=");
            spawn_append_number(options, &length, sizeof options, entry->size);
            if (make_directories(path, false) < 0
                || mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) {
                spawn_fail(control, step, (int)index);
            }
            break;
        }
        case TIDINGS_MOUNT_PROC:
            if (make_directories(path, false) < 0
                || mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
                spawn_fail(control, step, (int)index);
            }
            break;
        case TIDINGS_MOUNT_DIRECTORY:
            if (make_directories(path, false) < 0) spawn_fail(control, step, (int)index);
            break;
        }
    }
    /* The view becomes the root; the old root is detached, so nothing of it stays reachable. */
    if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
        spawn_fail(control, TIDINGS_SPAWN_STEP_PIVOT, -1);
    }
    struct spawn_mount_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.attr_set = MOUNT_ATTR_RDONLY;
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/", 0, &attr, sizeof attr) < 0) spawn_fail(control, TIDINGS_SPAWN_STEP_PIVOT, -1);
}
