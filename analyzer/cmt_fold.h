/*
 * cmt_fold.h — folded stacks ("outer;...;inner BYTES", outermost frame first) of an analysis:
 * the leaked bytes per stack, or the bytes live at each device's peak per stack. Frames are
 * function names (module+0xOFFSET where unresolved); ';' in a name becomes ':' and control
 * characters become spaces, so every line splits unambiguously. Shared by flame and report --html.
 */
#ifndef CMT_FOLD_H
#define CMT_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "cmt_report.h"

struct cmt_fold {
    char *stack;    /* malloc'd; "[no stack]" when none was recorded */
    uint64_t bytes;
};

/* peak 0: leaks (unsuppressed); 1: bytes live at every device's peak (load the analysis with a
 * large top_n to see every stack). Aggregated over processes, sorted by stack. Returns 0 or -1. */
int cmt_fold_collect(struct cmt_analysis *a, int peak, struct cmt_fold **out, size_t *n);
void cmt_fold_free(struct cmt_fold *v, size_t n);
/* One symbolized stack folded, outermost first. malloc'd. */
char *cmt_fold_stack(const struct cmt_stack_sym *s);

#endif
