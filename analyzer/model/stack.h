/*
 * stack.h — the one frame path of every view (stack.c): a replay's stack symbolized, Python frames
 * interleaved, frames classified by the hiding rule; the suppression a stack matches.
 */
#ifndef CMT_STACK_H
#define CMT_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "suppress.h"
#include "symbols.h"

struct cmt_stack_sym {
    size_t n;
    struct cmt_sym_frame *frames; /* native and Python frames interleaved (reader.h), innermost
                                     first; strings owned by the analysis' symbolizer or replay */
};

/* The one frame path of every view (the analysis' stacks and `top`'s live replays): stack id of the
 * replay rp symbolized with sym, Python frames interleaved, each frame classified by the hiding rule
 * (enum cmt_hide). n == 0 for an unknown id; *out_of_memory counts stacks left incomplete. */
struct cmt_stack_sym cmt_stack_symbolize(struct cmt_symbolizer *sym, const struct cmt_replay *rp, uint64_t id,
                                         uint64_t *out_of_memory);
/* 1 when f names a CUDA runtime or driver API entry point (cudaMalloc, cuMemAlloc_v2). */
int cmt_cuda_api_name(const char *f);
void cmt_stack_sym_free(struct cmt_stack_sym *s);
/* Frames of s shown in the default views (not hidden, see enum cmt_hide). */
size_t cmt_stack_visible(const struct cmt_stack_sym *s);
/* Frame i of s is shown: not hidden, or every frame of s is hidden (then all are shown). */
#define CMT_FRAME_SHOWN(s, i, nvisible) (!(s)->frames[i].hidden || !(nvisible))
/* The first suppression of s (NULL: none) a frame of st matches: its function, file or module. */
struct cmt_suppression *cmt_stack_suppression(const struct cmt_suppressions *s, const struct cmt_stack_sym *st);

#endif
