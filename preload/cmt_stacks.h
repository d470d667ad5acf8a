/*
 * cmt_stacks.h — native call stacks: raw return addresses from libunwind's unw_backtrace
 * (libunwind.so.8 loaded with dlopen(RTLD_LOCAL), so the host's C++ exceptions never bind to it),
 * the tracker's own frames dropped, plus the calling thread's Python frames (cmt_python.h) tied
 * to the eval-loop native frames that ran them, deduplicated in striped uthash tables
 * (HASH_NONFATAL_OOM) behind per-thread caches that recognise a known stack without unwinding
 * by checking every stack word its unwinding would read, the return addresses' DWARF rules known
 * (cmt_cfi.h; see cmt_stacks.c), each distinct stack written once as a STACK record. When a
 * library is unloaded (cmt_modules_unloaded moves), the caches start over and so does the table of
 * stacks: a stack met again gets a new id and a new STACK record, after the module records of what
 * is mapped now (its addresses may be another library's), in an entry of the older epoch reused
 * (the table holds about one epoch's stacks however often libraries are loaded and unloaded).
 */
#ifndef CMT_STACKS_H
#define CMT_STACKS_H

#include <stdint.h>

/* Captures the caller's stack; returns its id (0: none — depth 0, no libunwind, no memory).
 * frame, when known, is the hooked wrapper's frame address (__builtin_frame_address(0)): the
 * return address into the application sits at frame[1] and the caller's stack pointer at frame + 2
 * words, which lets a per-thread cache recognise a call site whose stack has not changed. */
uint32_t cmt_stack_capture(const void *frame);
void cmt_stacks_fork_child(void);
/* Raw return addresses of the current stack (0 when libunwind is missing). */
int cmt_stack_raw(void **buf, int n);

#endif
