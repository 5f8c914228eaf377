#define _GNU_SOURCE
#include "sdrify_system.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp_arch.h"

// The worker's filter is a deny list: the decoders, encoders, libass and the Swift runtime make many ordinary
// calls (memory, threads, futexes, reads, clocks) that must keep working, while what a hostile file could use
// against the machine is a short list of capabilities. Each rule below names one. A refused call returns an
// error (EPERM; ENOSYS where glibc then falls back to an older call that the filter can inspect), never kills:
// sdrify reports it as a one-line failure.

typedef struct {
    struct sock_filter code[256];
    int count;
} program;

static void emit(program *p, struct sock_filter s) {
    if (p->count < (int)(sizeof p->code / sizeof p->code[0])) p->code[p->count] = s;
    p->count++;
}

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))
#define LOAD(field) STMT(BPF_LD | BPF_W | BPF_ABS, (field))
#define NR offsetof(struct seccomp_data, nr)
#define ARG_LOW(i) offsetof(struct seccomp_data, args[i])  // little-endian: the low 32 bits come first
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

// The call numbered `nr` fails with `err`.
static void refuse(program *p, long nr, int err) {
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    emit(p, RET_ERRNO(err));
}

// The call numbered `nr` fails with EPERM when its argument `arg` passes `test` against `k` (BPF_JSET: has any
// bit of k; BPF_JEQ: equals k), or with `unless`, when it does not.
static void refuse_when(program *p, long nr, int arg, unsigned test, unsigned k, int unless) {
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3));
    emit(p, LOAD(ARG_LOW(arg)));
    emit(p, JUMP(BPF_JMP | test | BPF_K, k, unless ? 1 : 0, unless ? 0 : 1));
    emit(p, RET_ERRNO(EPERM));
    emit(p, LOAD(NR));
}

static void build(program *p, unsigned self) {
    emit(p, LOAD(offsetof(struct seccomp_data, arch)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SDRIFY_AUDIT_ARCH, 1, 0));
    emit(p, RET_ERRNO(EPERM));
    emit(p, LOAD(NR));
#ifdef SDRIFY_X32_SYSCALL_BIT
    emit(p, JUMP(BPF_JMP | BPF_JGE | BPF_K, SDRIFY_X32_SYSCALL_BIT, 0, 1));
    emit(p, RET_ERRNO(EPERM));
#endif

    // No programs: a payload's usual next step is a shell.
    refuse(p, __NR_execve, EPERM);
    refuse(p, __NR_execveat, EPERM);

    // No new processes; threads only (the pipeline's and the codecs'). clone3 passes its flags in memory the
    // filter cannot read, so it reports itself missing and glibc falls back to clone, whose flags it can.
    refuse_when(p, __NR_clone, 0, BPF_JSET, CLONE_THREAD, 1);
    refuse(p, __NR_clone3, ENOSYS);
#ifdef __NR_fork
    refuse(p, __NR_fork, EPERM);
    refuse(p, __NR_vfork, EPERM);
#endif

    // No network: no sockets made, none connected, bound or listened on.
    refuse(p, __NR_socket, EPERM);
    refuse(p, __NR_socketpair, EPERM);
    refuse(p, __NR_connect, EPERM);
    refuse(p, __NR_bind, EPERM);
    refuse(p, __NR_listen, EPERM);
    refuse(p, __NR_accept, EPERM);
    refuse(p, __NR_accept4, EPERM);

    // Files are opened for reading only; everything written goes through descriptors opened before (the output,
    // stdout, stderr, the progress descriptor). openat2 passes its flags in memory: reported missing, so glibc
    // uses openat.
    const unsigned writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
#ifdef __NR_open
    refuse_when(p, __NR_open, 1, BPF_JSET, writing, 0);
    refuse(p, __NR_creat, EPERM);
#endif
    refuse_when(p, __NR_openat, 2, BPF_JSET, writing, 0);
    refuse(p, __NR_openat2, ENOSYS);
    refuse(p, __NR_open_by_handle_at, EPERM);  // opens by inode, around directory permissions

    // No file system changes by name: nothing made, removed, renamed, linked, or given other owners, modes,
    // times or attributes (the finished output is put in place by the helper process, see output_helper.c).
    static const long by_name[] = {
#ifdef __NR_open
        __NR_mkdir, __NR_rmdir, __NR_mknod, __NR_unlink, __NR_rename, __NR_link, __NR_symlink, __NR_chmod,
        __NR_chown, __NR_lchown, __NR_utime, __NR_utimes, __NR_futimesat,
#endif
        __NR_mkdirat, __NR_mknodat, __NR_unlinkat, __NR_renameat, __NR_renameat2, __NR_linkat, __NR_symlinkat,
        __NR_fchmodat, __NR_fchownat, __NR_truncate, __NR_utimensat, __NR_setxattr, __NR_lsetxattr,
        __NR_removexattr, __NR_lremovexattr, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
        __NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick,
        __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl,
    };
    for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++) refuse(p, by_name[i], EPERM);
#ifdef __NR_fchmodat2
    refuse(p, __NR_fchmodat2, EPERM);
#endif

    // No reaching into other processes or the kernel: tracing, reading or writing another's memory, new
    // namespaces (a user namespace would hand out capabilities), BPF programs, performance counters, kernel
    // keys and modules. io_uring runs its operations past seccomp, so it is refused as a whole.
    static const long reach[] = {
        __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_unshare, __NR_setns, __NR_bpf,
        __NR_perf_event_open, __NR_userfaultfd, __NR_keyctl, __NR_add_key, __NR_request_key, __NR_kexec_load,
        __NR_kexec_file_load, __NR_init_module, __NR_finit_module, __NR_delete_module, __NR_pidfd_open,
        __NR_pidfd_getfd, __NR_pidfd_send_signal, __NR_io_uring_setup, __NR_io_uring_enter,
        __NR_io_uring_register, __NR_tkill,
    };
    for (size_t i = 0; i < sizeof reach / sizeof reach[0]; i++) refuse(p, reach[i], EPERM);

    // Signals to this process only (glibc's raise and pthread_kill name it); no other process is signalled.
    refuse_when(p, __NR_kill, 0, BPF_JEQ, self, 1);
    refuse_when(p, __NR_tgkill, 0, BPF_JEQ, self, 1);
    refuse_when(p, __NR_rt_sigqueueinfo, 0, BPF_JEQ, self, 1);
    refuse_when(p, __NR_rt_tgsigqueueinfo, 0, BPF_JEQ, self, 1);

    // No typing into the terminal sdrify was started from (TIOCSTI pushes input to whatever reads it next).
    refuse_when(p, __NR_ioctl, 1, BPF_JEQ, TIOCSTI, 0);
    refuse_when(p, __NR_ioctl, 1, BPF_JEQ, TIOCLINUX, 0);

    // Privileges cannot be gained: no_new_privs (set below) makes set-user-ID programs and file capabilities
    // inert, and the process holds none to begin with.
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

int sdrify_sandbox_enter(void) {
    if (SDRIFY_AUDIT_ARCH == 0) return ENOSYS;
    program p = {.count = 0};
    build(&p, (unsigned)getpid());
    if (p.count > (int)(sizeof p.code / sizeof p.code[0])) return E2BIG;
    struct sock_fprog prog = {.len = (unsigned short)p.count, .filter = p.code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    // TSYNC: every thread already running (Foundation's, say) gets the same filter, atomically.
    long r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
    if (r < 0) return errno;
    if (r > 0) return EAGAIN;  // a thread could not be synchronised (it has a filter of its own)
    return 0;
}

int sdrify_sandbox_probe(void) {
    pid_t pid = fork();
    if (pid < 0) return -errno;
    if (pid == 0) {  // only system calls from here to _exit
        int landlock = sdrify_landlock_enter(NULL, 0) == 0;
        int seccomp = sdrify_sandbox_enter() == 0;
        _exit(seccomp | landlock << 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -errno;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -ECHILD;
}

int sdrify_seccomp_mode(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    int mode = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Seccomp:", 8) == 0) {
            mode = atoi(line + 8);
            break;
        }
    }
    fclose(f);
    return mode;
}
