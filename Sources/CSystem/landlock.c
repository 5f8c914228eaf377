#define _GNU_SOURCE
#include "sdrify_system.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Landlock (Linux 5.13+): what a file system path may be used for, from now on, by this thread and every thread it
// starts. The first ABI's rights are all handled, so anything not granted below is refused: executing, writing,
// making and removing files anywhere, and reading outside the granted paths. (Writes are refused by the seccomp
// filter too; Landlock adds them where it costs nothing.)
#define HANDLED                                                                                                        \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |                        \
     LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |                     \
     LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                         \
     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |                      \
     LANDLOCK_ACCESS_FS_MAKE_SYM)

int sdrify_landlock_enter(const char *const *paths, int count) {
    if (syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 0) return errno;
    struct landlock_ruleset_attr attr = {.handled_access_fs = HANDLED};
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0) return errno;
    int err = 0;
    for (int i = 0; i < count && err == 0; i++) {
        int fd = open(paths[i], O_PATH | O_CLOEXEC);
        if (fd < 0) continue;  // a path that is not there grants nothing
        struct stat st;
        if (fstat(fd, &st) == 0) {
            // A directory: read what is beneath it; a file: read it (the only rights a file rule may carry here).
            struct landlock_path_beneath_attr rule = {
                .allowed_access = S_ISDIR(st.st_mode) ? LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR
                                                      : LANDLOCK_ACCESS_FS_READ_FILE,
                .parent_fd = fd,
            };
            if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0) err = errno;
        }
        close(fd);
    }
    if (err == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) err = errno;
    if (err == 0 && syscall(__NR_landlock_restrict_self, ruleset, 0) < 0) err = errno;
    close(ruleset);
    return err;
}

int sdrify_can_read(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    char byte;
    int err = read(fd, &byte, 1) < 0 ? errno : 0;
    close(fd);
    return err;
}
