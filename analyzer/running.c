/*
 * running.c — whether a dump's process is still running; see running.h.
 */
#include "running.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

unsigned long long cmt_proc_start_ticks(unsigned pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p) return 0;
    p++;
    if (p[0] == ' ' && p[1] == 'Z') return 0; /* a zombie has finished: it writes nothing more */
    for (int field = 3; field < 22 && *p; field++) { /* skip fields 3..21 */
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    return strtoull(p, NULL, 10);
}

int cmt_dump_running(const struct cmt_file_header *h) {
    if (!cmt_header_has_identity(h) || !h->proc_start_ticks || !h->pid) return 0;
    char host[sizeof h->host + 1];
    if (gethostname(host, sizeof host - 1) != 0) return 0;
    host[sizeof host - 1] = 0;
    if (strncmp(host, h->host, sizeof h->host) != 0) return 0;
    return cmt_proc_start_ticks(h->pid) == h->proc_start_ticks;
}
