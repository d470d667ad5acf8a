/*
 * running.h — whether the process that writes a dump is still running, so that its live memory is
 * "live now", not leaked, and it is not reported as killed. The one place that decides it (report,
 * check, run, top): the dump's host is this host (gethostname), and a process with the dump's pid
 * is alive with the same start time (field 22 of /proc/PID/stat equals the header's
 * proc_start_ticks, format 2.1; a 2.0 dump is never judged running).
 */
#ifndef CMT_RUNNING_H
#define CMT_RUNNING_H

#include "cmt_format.h"

/* 1 when the process that wrote the dump with header h still runs on this host, else 0. */
int cmt_dump_running(const struct cmt_file_header *h);

/* Field 22 of /proc/PID/stat (start time, clock ticks since boot): 0 when there is no such process
 * or it cannot be read. */
unsigned long long cmt_proc_start_ticks(unsigned pid);

#endif
