#ifndef SDRIFY_SYSTEM_H
#define SDRIFY_SYSTEM_H
// Process containment (Linux): the seccomp sandbox and the small helper process that puts the finished output in
// place for a sandboxed worker. In C because the kernel interfaces are C structures and variadic calls (prctl,
// syscall) that Swift cannot make, and because the helper runs between fork and exit, where only plain system
// calls are safe.

#include <sys/types.h>

/// Gives the finished output its name (see output_helper.c for the cases) and flushes the directory. Returns 0 or
/// an errno value. `named_temp` is NULL for an unnamed (O_TMPFILE) file; `spare_temp` is the short name an
/// unnamed file is linked under before being renamed over an existing output (overwrite only).
int sdrify_place_output(int fd, const char *directory, const char *final_path, const char *named_temp,
                        const char *spare_temp, int overwrite);

/// Starts the output helper: a child process, itself confined to naming and removing these files, that acts on
/// one-byte requests (see SDRIFY_HELPER_*) over the returned socket and answers each with a 4-byte errno value.
/// When the socket closes (the worker exited, however it died) it removes a named temporary not yet placed.
/// Returns the socket, or -errno. The strings are read by the child only.
int sdrify_output_helper_start(int fd, const char *directory, const char *final_path, const char *named_temp,
                               const char *spare_temp, int overwrite);
#define SDRIFY_HELPER_PLACE 'P'    // put the output in place
#define SDRIFY_HELPER_REVOKE 'R'   // remove the placed output (its report could not be delivered, or a signal)
#define SDRIFY_HELPER_DISCARD 'D'  // remove a named temporary (the run failed)

/// Closes the socket to a helper and waits for the helper to go (it removes what it must first): a helper is never
/// left a zombie. A socket that is no helper's is just closed. Returns 0, or -1 with errno from close.
int sdrify_helper_finish(int socket);

/// The same for every helper still running: at exit (registered with atexit when the first starts) and at the end
/// of a run stopped by a signal or a limit. Uses only close and waitpid, so it may be called from a signal handler.
void sdrify_helpers_finish_all(void);

/// One request to the helper, answered with its errno value (or the errno of a failed exchange). Uses only
/// write and read, so it may be called from a signal handler.
int sdrify_output_helper_request(int socket, char request);

/// Starts a directory helper (outputs that are directories: hls, sprites): it makes files in `temp_dir` (a hidden
/// directory beside the output, already made) on request and hands them back, renames `temp_dir` to `final_dir`
/// on PLACE (with `overwrite`, an existing output is moved to `spare_dir` and its files removed once the new one is
/// in place), removes the placed directory's files on REVOKE, and empties and removes `temp_dir` on DISCARD or when
/// the worker goes without placing it. Returns the socket, or -errno.
int sdrify_directory_helper_start(const char *temp_dir, const char *final_dir, const char *spare_dir,
                                  const char *parent, int overwrite);
#define SDRIFY_HELPER_CREATE 'F'  // make a file in the temporary directory; answered with its descriptor

/// Asks the directory helper for a new file `name` (no '/', not starting with '.') in its temporary directory:
/// the file's descriptor (read and write), or -errno (EEXIST if the name was made already).
int sdrify_directory_helper_create(int socket, const char *name);

/// What this kernel, and any filter a container runtime put around the process, allows of the sandbox: both parts
/// tried in a child, so this process stays as it was. Bit 0: the seccomp filter could be entered; bit 1: Landlock's
/// read confinement. A negative errno when the child could not be started.
int sdrify_sandbox_probe(void);

/// Enters the sandbox for this process and all its threads: no_new_privs, then a seccomp filter (see sandbox.c for
/// each rule). Returns 0, or an errno value when the kernel cannot (no seccomp: ENOSYS or EINVAL).
int sdrify_sandbox_enter(void);

/// Confines this thread, and every thread it starts from now on, to reading `paths` (files, or directories and
/// all beneath them) with Landlock; writing, executing, making and removing files are refused everywhere (see
/// landlock.c). Returns 0, or an errno value: ENOSYS or EOPNOTSUPP where the kernel has no Landlock.
int sdrify_landlock_enter(const char *const *paths, int count);

/// Opens `path` for reading and reads a byte: 0, or the errno value of the refusal (for `sdrify sandbox-check`).
int sdrify_can_read(const char *path);

/// The kernel's view: the Seccomp field of /proc/self/status (0 none, 2 filter), or -1 where it is not shown.
int sdrify_seccomp_mode(void);

#endif
