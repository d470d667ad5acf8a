/* dlsymcount.c — LD_PRELOAD helper for tests: wraps dlsym and appends "dlsym NAME" for every
 * look-up of a name starting with "cu" to the file $FAKE_DLSYM_LOG, so a test can prove the
 * runtime double made exactly one dlsym (cuGetProcAddress_v2). */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *(*fake_dlsym_fn)(void *, const char *);

void *dlsym(void *handle, const char *name)
{
    static fake_dlsym_fn real;
    if (!real) {
        real = (fake_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!real)
            real = (fake_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    }
    const char *log = getenv("FAKE_DLSYM_LOG");
    if (log && !strncmp(name, "cu", 2)) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            char buf[256];
            int n = snprintf(buf, sizeof buf, "dlsym %s\n", name);
            if (n > 0 && write(fd, buf, (size_t)n) < 0) {
            }
            close(fd);
        }
    }
    return real(handle, name);
}
