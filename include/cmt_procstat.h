/*
 * cmt_procstat.h — a process's start time as the dump header records it (proc_start_ticks, see
 * cmt_format.h): field 22 of /proc/PID/stat, in clock ticks since boot. Shared by the tracer (which
 * writes its own) and the analyzer (which compares a live process's with the header's), so that
 * both read the same field the same way. No allocation, no stdio: safe in the tracer.
 */
#ifndef CMT_PROCSTAT_H
#define CMT_PROCSTAT_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Field 22 of the stat file at path ("/proc/self/stat", "/proc/PID/stat"); 0 when it cannot be
 * read, or (zombie_is_zero) when the process is a zombie: it has finished and writes nothing more. */
static inline unsigned long long cmt_procstat_start_ticks(const char *path, int zombie_is_zero) {
    char buf[1024];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p) return 0;
    p++;
    if (zombie_is_zero && p[0] == ' ' && p[1] == 'Z') return 0;
    for (int field = 3; field < 22 && *p; field++) { /* skip fields 3..21 */
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    return strtoull(p, NULL, 10);
}

#endif
