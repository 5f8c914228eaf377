#define _GNU_SOURCE
#include "sdrify_system.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
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
// A directory helper also lists, makes and hands back files in its temporary directory (getdents64, sendmsg).
static int confine_helper(int directory) {
    struct sock_filter code[96];
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
    if (directory) {
        ALLOW_NR(__NR_getdents64);
        ALLOW_NR(__NR_sendmsg);
#ifdef __NR_newfstatat
        ALLOW_NR(__NR_newfstatat);
#endif
#ifdef __NR_lstat
        ALLOW_NR(__NR_lstat);
#endif
    }
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

// The group's signals ignored in a helper (a Ctrl-C is the worker's to handle: the helper goes when the worker has
// gone, after removing or placing what it holds). Set in the child before the signals blocked around fork are let
// through, so the worker's handlers never run in a helper.
static void ignore_stops(void) {
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) signal(ignored[i], SIG_IGN);
}

// A helper's start: every descriptor but `sock` and `keep` closed, its own filter (where the kernel cannot, the
// helper still works; the worker's sandbox says so).
static void helper_setup(int sock, int keep, int directory) {
    close_others(sock, keep);
    (void)confine_helper(directory);
}

// The worker's next one-byte request; 0 when the worker has gone.
static int next_request(int sock, char *request) {
    for (;;) {
        ssize_t r = read(sock, request, 1);
        if (r < 0 && errno == EINTR) continue;
        return r == 1;
    }
}

static void reply(int sock, int err) {
    ssize_t w;
    do { w = write(sock, &err, sizeof err); } while (w < 0 && errno == EINTR);
}

static void helper_main(int sock, int fd, const char *directory, const char *final_path, const char *named_temp,
                        const char *spare_temp, int overwrite) {
    helper_setup(sock, fd, 0);
    int placed = 0;
    char request;
    while (next_request(sock, &request)) {
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

// The helpers this process started, each by the worker's socket to it: every one is waited for once that socket is
// closed (sdrify_helper_finish, and at exit sdrify_helpers_finish_all), so none outlives the run as a zombie for
// whatever reaps orphans: a container's PID 1 may be a queue worker that never does. Started on the main thread only
// (an output is opened before the render starts).
//
// A stop may end the run on another thread (a signal goes to any thread that does not block it; the limits' watchdog
// is a thread) while the main thread is between fork and the new helper's entry. So the main thread blocks every
// signal over that span and says so in `forking`, and the ending path waits for the entry before it looks.
#define MAX_HELPERS 16
static struct { int sock; pid_t pid; } helpers[MAX_HELPERS];
static atomic_int helper_count;
static atomic_int forking;

static void wait_for(pid_t pid) {
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
}

int sdrify_helper_finish(int sock) {
    for (int i = 0; i < helper_count; i++) {
        if (helpers[i].sock != sock || helpers[i].pid <= 0) continue;
        close(sock);
        wait_for(helpers[i].pid);  // it goes as soon as it reads the end of its socket
        helpers[i].pid = 0;
        return 0;
    }
    return close(sock);
}

void sdrify_helpers_finish_all(void) {
    int saved = errno;
    while (atomic_load(&forking)) sched_yield();  // never this thread's own fork: it blocks every signal meanwhile
    int count = atomic_load(&helper_count);
    for (int i = 0; i < count; i++) {
        if (helpers[i].pid <= 0) continue;
        close(helpers[i].sock);
        wait_for(helpers[i].pid);
        helpers[i].pid = 0;
    }
    errno = saved;
}

// Makes the worker's socket to a new helper and forks it: in the child, *in_child is set and the child's end is
// returned; in the worker, the worker's end; -errno when either step fails.
static int fork_helper(int *in_child) {
    int count = atomic_load(&helper_count);
    if (count == MAX_HELPERS) return -EMFILE;
    int pair[2];
    *in_child = 0;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -errno;
    if (count == 0) atexit(sdrify_helpers_finish_all);  // exit() of any kind; signals end through _exit
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    atomic_store(&forking, 1);
    pid_t pid = fork();
    if (pid == 0) {
        ignore_stops();
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        *in_child = 1;
        return pair[1];
    }
    int err = errno;
    if (pid > 0) {
        helpers[count].sock = pair[0];
        helpers[count].pid = pid;
        atomic_store(&helper_count, count + 1);
    }
    atomic_store(&forking, 0);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    close(pair[1]);
    if (pid < 0) {
        close(pair[0]);
        return -err;
    }
    return pair[0];
}

int sdrify_output_helper_start(int fd, const char *directory, const char *final_path, const char *named_temp,
                               const char *spare_temp, int overwrite) {
    int in_child;
    int sock = fork_helper(&in_child);
    if (in_child) helper_main(sock, fd, directory, final_path, named_temp, spare_temp, overwrite);
    return sock;
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

// ---- Directory outputs (hls, sprites): many files that appear together or not at all. ----
// The worker makes no files under its sandbox: this helper makes each one in a hidden temporary directory beside
// the output, on request, and hands back its descriptor; `place` renames the directory into place; when the worker
// goes without placing it, the helper empties and removes it. Only flat directories: the helper removes regular
// files directly inside one and nothing below, so a mistaken path can never cost more than that.

// Removes the files directly in `path`, then the directory itself. 0 or errno (ENOTEMPTY: something else is in it).
static int remove_flat(const char *path) {
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) return errno == ENOENT ? 0 : errno;
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        long n = syscall(__NR_getdents64, dir, buf, sizeof buf);
        if (n <= 0) break;
        for (long at = 0; at < n;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *e = (void *)(buf + at);
            at += e->reclen;
            if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0) continue;
            unlinkat(dir, e->name, 0);  // a subdirectory stays (EISDIR), and so does the directory
        }
    }
    close(dir);
    return unlinkat(AT_FDCWD, path, AT_REMOVEDIR) == 0 ? 0 : errno;
}

static int valid_name(const char *name) {
    if (name[0] == 0 || name[0] == '.') return 0;
    for (const char *c = name; *c; c++) if (*c == '/') return 0;
    return 1;
}

static void reply_with_fd(int sock, int err, int fd) {
    struct iovec iov = {.iov_base = &err, .iov_len = sizeof err};
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    ssize_t w;
    do { w = sendmsg(sock, &msg, MSG_NOSIGNAL); } while (w < 0 && errno == EINTR);
}

static int read_full(int sock, void *into, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(sock, (char *)into + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        got += (size_t)r;
    }
    return 1;
}

static int place_directory(const char *temp_dir, const char *final_dir, const char *spare_dir, const char *parent,
                           int overwrite) {
    if (syscall(__NR_renameat2, AT_FDCWD, temp_dir, AT_FDCWD, final_dir, 1 /* RENAME_NOREPLACE */) != 0) {
        int err = errno;
        if (err == EEXIST && overwrite) {
            // The earlier output goes aside and is removed once the new one is in place.
            if (rename(final_dir, spare_dir) != 0) return errno;
            if (rename(temp_dir, final_dir) != 0) {
                err = errno;
                rename(spare_dir, final_dir);
                return err;
            }
            remove_flat(spare_dir);
        } else if (err == EINVAL || err == ENOSYS) {
            // No RENAME_NOREPLACE on this file system: rename replaces only an empty directory, so look first.
            struct stat st;
            if (!overwrite && lstat(final_dir, &st) == 0) return EEXIST;
            if (rename(temp_dir, final_dir) != 0) return errno;
        } else {
            return err;
        }
    }
    int dir = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        fsync(dir);
        close(dir);
    }
    return 0;
}

static void directory_helper_main(int sock, const char *temp_dir, const char *final_dir, const char *spare_dir,
                                  const char *parent, int overwrite) {
    helper_setup(sock, sock, 1);
    int placed = 0;
    char request;
    while (next_request(sock, &request)) {
        switch (request) {
        case SDRIFY_HELPER_CREATE: {
            unsigned char length;
            char name[256];
            if (!read_full(sock, &length, 1) || !read_full(sock, name, length)) goto gone;
            name[length] = 0;
            if (placed || !valid_name(name)) { reply_with_fd(sock, EINVAL, -1); break; }
            int dir = open(temp_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int fd = dir < 0 ? -1 : openat(dir, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
            int err = fd < 0 ? errno : 0;
            if (dir >= 0) close(dir);
            reply_with_fd(sock, err, fd);
            if (fd >= 0) close(fd);
            break;
        }
        case SDRIFY_HELPER_PLACE: {
            if (placed) { reply(sock, EALREADY); break; }
            int err = place_directory(temp_dir, final_dir, spare_dir, parent, overwrite);
            placed = err == 0;
            reply(sock, err);
            break;
        }
        case SDRIFY_HELPER_REVOKE:
            reply(sock, placed ? remove_flat(final_dir) : 0);
            break;
        case SDRIFY_HELPER_DISCARD:
            reply(sock, placed ? 0 : remove_flat(temp_dir));
            if (!placed) placed = -1;  // nothing left to remove at the end
            break;
        default:
            reply(sock, EINVAL);
        }
    }
gone:
    if (placed == 0) remove_flat(temp_dir);
    _exit(0);
}

int sdrify_directory_helper_start(const char *temp_dir, const char *final_dir, const char *spare_dir,
                                  const char *parent, int overwrite) {
    int in_child;
    int sock = fork_helper(&in_child);
    if (in_child) directory_helper_main(sock, temp_dir, final_dir, spare_dir, parent, overwrite);
    return sock;
}

int sdrify_directory_helper_create(int sock, const char *name) {
    size_t length = strlen(name);
    if (length == 0 || length > 255) return -EINVAL;
    char request[257];
    request[0] = SDRIFY_HELPER_CREATE;
    request[1] = (char)length;
    memcpy(request + 2, name, length);
    size_t sent = 0;
    while (sent < length + 2) {
        ssize_t w = write(sock, request + sent, length + 2 - sent);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? -errno : -EPIPE;
        sent += (size_t)w;
    }
    int err = 0;
    struct iovec iov = {.iov_base = &err, .iov_len = sizeof err};
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
    ssize_t r;
    do { r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC); } while (r < 0 && errno == EINTR);
    if (r != (ssize_t)sizeof err) return r < 0 ? -errno : -EPIPE;
    if (err != 0) return -err;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) return -EPROTO;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}
