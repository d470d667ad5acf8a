/*
 * compare.h — stacks as text that survives a rebuild, and runs compared through it. Shared by
 * check, diff, flame and report --html:
 *   chains   "inner;...;outer" function names of a symbolized stack (module+0xOFFSET where
 *            unresolved, never addresses when a function is known): stacks match across runs;
 *   folds    "outer;...;inner BYTES", outermost frame first ("function (file:line)" where the line is
 *            known, Python frames included, hidden frames left out), for flame graphs: the leaked bytes
 *            per stack, or the bytes live at each device's peak per stack; ';' in a name becomes
 *            ':' and control characters become spaces, so every line splits unambiguously;
 *   compare  a baseline (old) and a run (new) matched once: leaked and peak bytes per chain,
 *            GPUs paired by UUID (never by ordinal).
 */
#ifndef CMT_COMPARE_H
#define CMT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* The chain of a symbolized stack, innermost first. malloc'd. */
char *cmt_stack_chain(const struct cmt_stack_sym *s);
/* One symbolized stack folded, outermost first ("[no stack]" when empty). malloc'd. */
char *cmt_fold_stack(const struct cmt_stack_sym *s);

struct cmt_fold {
    char *stack; /* malloc'd; "[no stack]" when none was recorded */
    uint64_t bytes;
};

/* peak 0: leaks (unsuppressed); 1: bytes live at every device's peak (load the analysis with a
 * large top_n to see every stack). device_root: each stack starts with its physical GPU, its UUID
 * ("GPU-uuid", whatever ordinal each process saw it as; "GPU N (pid P on HOST)" when the uuid is
 * unknown, "host" for host memory), so GPUs never merge and one GPU is one root.
 * Aggregated over processes, sorted by stack. Returns 0 or -1. */
int cmt_fold_collect(struct cmt_analysis *a, int peak, int device_root, struct cmt_fold **out, size_t *n);
void cmt_fold_free(struct cmt_fold *v, size_t n);

enum cmt_side { CMT_OLD = 0, CMT_NEW = 1 };

struct cmt_chain_delta {
    char *chain;
    uint64_t leak[2], leak_allocs[2], peak[2]; /* indexed by enum cmt_side */
};

struct cmt_gpu_pair {
    const struct cmt_gpu *g[2]; /* NULL on the side it is missing from */
};

struct cmt_comparison {
    struct cmt_analysis *run[2]; /* the old and the new run (enum cmt_side) */
    const char *arg[2];          /* how the user named them (left to the caller) */
    char **paths[2];             /* their dumps (left to the caller) */
    size_t npaths[2];
    struct cmt_chain_delta *chains; /* sorted by chain */
    size_t nchains;
    struct cmt_gpu_pair *gpus;  /* in order of appearance, old first */
    size_t ngpus, gpus_matched; /* pairs with both sides */
    uint64_t peak_total[2];     /* sum of the GPUs' peaks */
};

/* Matches old against new; 0, or -1 when out of memory (c is then empty). */
int cmt_compare(struct cmt_analysis *old, struct cmt_analysis *new_, struct cmt_comparison *c);
void cmt_comparison_free(struct cmt_comparison *c);
/* Indexes of the chains with bytes of that metric (leak 1: leaked, 0: at the peak) on either side,
 * largest change first (ties by chain). malloc'd; NULL when out of memory. */
size_t *cmt_compare_order(const struct cmt_comparison *c, int leak, size_t *n);
/* The change of that metric of one chain, in bytes. */
uint64_t cmt_chain_change(const struct cmt_chain_delta *e, int leak);
/* "unchanged", "appeared", "disappeared", "grew" or "shrank". */
const char *cmt_change_status(uint64_t old, uint64_t now);

#endif
