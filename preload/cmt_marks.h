/*
 * cmt_marks.h — markers: points and ranges in the job's own time line, from cmt_mark(), an
 * opt-in signal (CUMEMTRACK_MARK_SIGNAL) and the NVTX ranges and marks (cmt_nvtx.c).
 */
#ifndef CMT_MARKS_H
#define CMT_MARKS_H

void cmt_marks_init(void);
/* Records a marker (label, enum cmt_marker_flags, domain). */
void cmt_marker(const char *label, unsigned flags, const char *domain);
/* Emits markers requested by the signal while this thread could not write. */
void cmt_marks_pending(void);

#endif
