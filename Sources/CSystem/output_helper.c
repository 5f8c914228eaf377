#define _GNU_SOURCE
#include "sdrify_system.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_arch.h"

// Gives the file open as `fd` the name `target`; fails with EEXIST if that name exists. Through /proc, which
// needs no privilege; AT_EMPTY_PATH (which needs CAP_DAC_READ_SEARCH) where /proc is not mounted.
static int name_file(int fd, const char *target) {
    char proc[32] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    for (unsigned v = (unsigned)fd; n == 0 || v > 0; v /= 10) digits[n++] = (char)('0' + v % 10);
    size_t at = 14;
    while (n > 0) proc[at++] = digits[--n];
    proc[at] = 0;
    if (linkat(AT_FDCWD, proc, AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno == ENOENT && linkat(fd, "", AT_FDCWD, target, AT_EMPTY_PATH) == 0) return 0;
    return errno;
}

int sdrify_place_output(int fd, const char *directory, const char *final_path, const char *named_temp,
                        const char *spare_temp, int overwrite) {
    int err = 0;
    if (named_temp) {
        if (overwrite) {
            if (rename(named_temp, final_path) != 0) err = errno;
        } else if (link(named_temp, final_path) != 0) {
            err = errno;  // link, not rename: it fails if the output appeared meanwhile
        } else {
            unlink(named_temp);
        }
    } else if (overwrite) {
        err = name_file(fd, spare_temp);
        if (err == 0 && rename(spare_temp, final_path) != 0) {
            err = errno;
            unlink(spare_temp);
        }
    } else {
        err = name_file(fd, final_path);
    }
    if (err != 0) return err;
    int dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        fsync(dir);
        close(dir);
    }
    return 0;
}

// The helper's own filter: an allow list of what naming, removing and flushing need; anything else fails (EPERM),
// so even a helper driven by a compromised worker can only place or remove the files named at its start.
static int confine_helper(void) {
    struct sock_filter code[64];
    int n = 0;
#define EMIT(s) code[n++] = (struct sock_filter)s
#define ALLOW_NR(nr) EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1)); EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW))
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SDRIFY_AUDIT_ARCH, 1, 0));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    ALLOW_NR(__NR_read);
    ALLOW_NR(__NR_write);
    ALLOW_NR(__NR_close);
    ALLOW_NR(__NR_openat);  // the directory, to flush it
    ALLOW_NR(__NR_fsync);
    ALLOW_NR(__NR_linkat);
    ALLOW_NR(__NR_renameat);
    ALLOW_NR(__NR_unlinkat);
#ifdef __NR_renameat2
    ALLOW_NR(__NR_renameat2);
#endif
#ifdef __NR_open
    ALLOW_NR(__NR_open);
    ALLOW_NR(__NR_link);
    ALLOW_NR(__NR_rename);
    ALLOW_NR(__NR_unlink);
#endif
    ALLOW_NR(__NR_exit);
    ALLOW_NR(__NR_exit_group);
    ALLOW_NR(__NR_rt_sigreturn);
    ALLOW_NR(__NR_restart_syscall);
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
#undef ALLOW_NR
#undef EMIT
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) return errno;
    return 0;
}

// Closes every descriptor but `keep_a` and `keep_b` (the helper must not hold the worker's stdout open, nor its
// inputs), with close_range where the kernel has it.
static void close_others(int keep_a, int keep_b) {
    int lo = keep_a < keep_b ? keep_a : keep_b, hi = keep_a < keep_b ? keep_b : keep_a;
    int ranges[3][2] = {{0, lo - 1}, {lo + 1, hi - 1}, {hi + 1, -1}};
    for (int r = 0; r < 3; r++) {
        int first = ranges[r][0], last = ranges[r][1];
        if (last != -1 && last < first) continue;
        if (syscall(__NR_close_range, (unsigned)first, last == -1 ? ~0U : (unsigned)last, 0) == 0) continue;
        int end = last == -1 ? 4096 : last;
        for (int i = first; i <= end; i++) close(i);
    }
}

static void reply(int sock, int err) {
    ssize_t w;
    do { w = write(sock, &err, sizeof err); } while (w < 0 && errno == EINTR);
}

static void helper_main(int sock, int fd, const char *directory, const char *final_path, const char *named_temp,
                        const char *spare_temp, int overwrite) {
    // Signals to the group (a Ctrl-C) are the worker's to handle: the helper goes when the worker has gone.
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) signal(ignored[i], SIG_IGN);
    close_others(sock, fd);
    (void)confine_helper();  // where the kernel cannot, the helper still works; the worker's sandbox says so
    int placed = 0;
    for (;;) {
        char request;
        ssize_t r = read(sock, &request, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        switch (request) {
        case SDRIFY_HELPER_PLACE: {
            if (placed) { reply(sock, EALREADY); break; }
            int err = sdrify_place_output(fd, directory, final_path, named_temp, spare_temp, overwrite);
            placed = err == 0;
            reply(sock, err);
            break;
        }
        case SDRIFY_HELPER_REVOKE:
            reply(sock, placed && unlink(final_path) != 0 ? errno : 0);
            break;
        case SDRIFY_HELPER_DISCARD:
            reply(sock, !placed && named_temp && unlink(named_temp) != 0 ? errno : 0);
            break;
        default:
            reply(sock, EINVAL);
        }
    }
    if (!placed && named_temp) unlink(named_temp);
    _exit(0);
}

int sdrify_output_helper_start(int fd, const char *directory, const char *final_path, const char *named_temp,
                               const char *spare_temp, int overwrite) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(pair[0]);
        close(pair[1]);
        return -err;
    }
    if (pid == 0) {
        helper_main(pair[1], fd, directory, final_path, named_temp, spare_temp, overwrite);
    }
    close(pair[1]);
    return pair[0];
}

int sdrify_output_helper_request(int sock, char request) {
    ssize_t w;
    do { w = write(sock, &request, 1); } while (w < 0 && errno == EINTR);
    if (w != 1) return w < 0 ? errno : EPIPE;
    int err = 0;
    size_t got = 0;
    while (got < sizeof err) {
        ssize_t r = read(sock, (char *)&err + got, sizeof err - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? errno : EPIPE;
        got += (size_t)r;
    }
    return err;
}
