/*
 * cmt_marks.h — markers: points and ranges in the job's own time line, from cmt_mark(), an
 * opt-in signal (CUMEMTRACK_MARK_SIGNAL) and the NVTX ranges and marks (cmt_nvtx.c).
 */
#ifndef CMT_MARKS_H
#define CMT_MARKS_H

#include <stdatomic.h>

void cmt_marks_init(void);
/* Records a marker (label, enum cmt_marker_flags, domain). */
void cmt_marker(const char *label, unsigned flags, const char *domain);
/* Emits markers requested by the signal while this thread could not write (inline: the check
 * every hook makes). */
extern _Atomic int cmt_pending_marks __attribute__((visibility("hidden")));
void cmt_marks_flush(void) __attribute__((visibility("hidden")));
static inline void cmt_marks_pending(void) {
    if (__builtin_expect(atomic_load_explicit(&cmt_pending_marks, memory_order_relaxed) > 0, 0)) cmt_marks_flush();
}

#endif
