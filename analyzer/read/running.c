/*
 * running.c — whether a dump's process is still running; see running.h.
 */
#include "running.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmt_procstat.h"
#include "reader.h"

unsigned long long cmt_proc_start_ticks(unsigned pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    return cmt_procstat_start_ticks(path, 1);
}

int cmt_dump_running(const struct cmt_file_header *h) {
    if (!cmt_header_has_identity(h) || !h->proc_start_ticks || !h->pid) return 0;
    char host[sizeof h->host + 1];
    if (gethostname(host, sizeof host - 1) != 0) return 0;
    host[sizeof host - 1] = 0;
    if (strncmp(host, h->host, sizeof h->host) != 0) return 0;
    return cmt_proc_start_ticks(h->pid) == h->proc_start_ticks;
}
