/* nonext_exit.c — linked into a variant of the tracer (libcumemtrack_nonext.so, with
 * -Wl,--wrap=cmt_next_sym) in which the next definitions of exit and _exit cannot be found, as
 * when the tracker is not ahead of libc in the search order: its exit/_exit wrappers must still
 * end the process with the status asked for (never call through a NULL pointer). */
#include <string.h>

void *__real_cmt_next_sym(const char *name);
void *__wrap_cmt_next_sym(const char *name);

__attribute__((visibility("hidden"))) void *__wrap_cmt_next_sym(const char *name) {
    if (!strcmp(name, "exit") || !strcmp(name, "_exit")) return NULL;
    return __real_cmt_next_sym(name);
}
