/*
 * cmt_main.c — the tracer's life: the constructor and the end of the process (exit, _exit, exec).
 * The lazy initialisation (safe when another library's constructor calls CUDA or dlsym before ours
 * ran) and fork are cmt_init.c's; the configuration is read by cmt_state.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmt_events.h"
#include "cmt_internal.h"
#include "cmt_ptrtab.h"
#include "cmt_records.h"
#include "cmt_wire.h"
#include "cmt_writer.h"


static int exit_status;
static bool status_handler; /* on_exit(end_of_process) is registered */
static void emit_exit(int how, int status);
/* Registered at initialisation, before main: it runs however exit() is reached (also libc's own
 * exit after main returns, which never calls our exported exit()), and, registered before the
 * dynamic linker's destructor pass, after it: the EXIT record follows everything the other
 * libraries' exit handlers and destructors did (a runtime releasing its contexts, ...). */
static void end_of_process(int status, void *arg) {
    (void)arg;
    emit_exit(CMT_EXIT_CLEAN, status);
}
/* The initialisation's last step (cmt_init.h). */
static void register_end(void) {
    status_handler = on_exit(end_of_process, NULL) == 0;
}
CMT_LIFECYCLE(main, 90, register_end, NULL);

__attribute__((constructor)) static void cmt_ctor(void) { cmt_init(); }

/* ---- the end of the process ---- */

static void emit_exit(int how, int status) {
    /* a vfork child (exec or _exit right after vfork, as posix_spawn-like code and Python's
     * subprocess do) shares our memory: its end is not ours */
    if (!cmt_writer_mine() || atomic_exchange(&cmt_exited, 1)) return;
    status &= 0xff; /* as wait() reports it: exit(-1) is 255 */
    cmt_writer_exit_slot(CMT_EXIT_SLOT(how, status)); /* whether or not the record finds room */
    cmt_rec_exit(cmt_ptr_clock(), how, status);
}

/* Only when on_exit could not register end_of_process (the status is then known only when the
 * exported exit() was called). */
__attribute__((destructor)) static void cmt_dtor(void) {
    if (!status_handler) emit_exit(CMT_EXIT_CLEAN, exit_status);
}

/* Like the exec wrappers, exit and _exit check that the next definition was found; without one
 * (the tracker not ahead of libc in the search order) the process still ends with its status. */
CMT_EXPORT void exit(int status) {
    exit_status = status;
    void (*real)(int) = (void (*)(int))cmt_next_sym("exit");
    if (CMT_LIKELY(real != NULL)) real(status);
    /* no exit() to run the handlers: keep what stdio buffered, record the end, end like _exit */
    fflush(NULL);
    emit_exit(CMT_EXIT_CLEAN, status);
    _exit(status);
}

CMT_EXPORT void _exit(int status) {
    emit_exit(CMT_EXIT_IMMEDIATE, status);
    void (*real)(int) = (void (*)(int))cmt_next_sym("_exit");
    if (CMT_LIKELY(real != NULL)) real(status);
    for (;;)
        syscall(SYS_exit_group, status);
}

CMT_EXPORT void _Exit(int status) { _exit(status); }

static void exec_failed(int err) {
    if (!cmt_writer_mine()) return;
    atomic_store(&cmt_exited, 0);
    cmt_writer_exit_slot(0); /* the process goes on */
    cmt_rec_exec_failed(err);
}

#define CMT_EXEC_CALL(name, proto_args, call_args)                                                 \
    int r;                                                                                         \
    {                                                                                              \
        emit_exit(CMT_EXIT_EXEC, 0);                                                               \
        int (*real) proto_args = (int(*) proto_args)cmt_next_sym(name);                            \
        r = real ? real call_args : (errno = ENOSYS, -1);                                          \
        int saved = errno;                                                                         \
        exec_failed(saved);                                                                        \
        errno = saved;                                                                             \
    }                                                                                              \
    return r;

CMT_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
    CMT_EXEC_CALL("execve", (const char *, char *const *, char *const *), (path, argv, envp))
}
CMT_EXPORT int execv(const char *path, char *const argv[]) {
    CMT_EXEC_CALL("execv", (const char *, char *const *), (path, argv))
}
CMT_EXPORT int execvp(const char *file, char *const argv[]) {
    CMT_EXEC_CALL("execvp", (const char *, char *const *), (file, argv))
}
CMT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
    CMT_EXEC_CALL("execvpe", (const char *, char *const *, char *const *), (file, argv, envp))
}
CMT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
    CMT_EXEC_CALL("fexecve", (int, char *const *, char *const *), (fd, argv, envp))
}

/* execl, execlp, execle: gather the variadic arguments, then the array forms above. */
#define CMT_GATHER(first, ap, argv, n, envp_out)                                                   \
    size_t n = 1;                                                                                  \
    va_start(ap, first);                                                                           \
    while (va_arg(ap, char *)) n++;                                                                \
    va_end(ap);                                                                                    \
    char *argv[n + 1];                                                                             \
    va_start(ap, first);                                                                           \
    argv[0] = (char *)first;                                                                       \
    for (size_t i = 1; i <= n; i++) argv[i] = va_arg(ap, char *);                                  \
    envp_out;                                                                                      \
    va_end(ap);

CMT_EXPORT int execl(const char *path, const char *arg, ...) {
    va_list ap;
    CMT_GATHER(arg, ap, argv, n, (void)0)
    return execv(path, argv);
}
CMT_EXPORT int execlp(const char *file, const char *arg, ...) {
    va_list ap;
    CMT_GATHER(arg, ap, argv, n, (void)0)
    return execvp(file, argv);
}
CMT_EXPORT int execle(const char *path, const char *arg, ...) {
    va_list ap;
    char *const *envp;
    CMT_GATHER(arg, ap, argv, n, envp = va_arg(ap, char *const *))
    return execve(path, argv, envp);
}
