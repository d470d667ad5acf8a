/*
 * pertest.h — the per-test view of one process: the ranges of domain CMT_TEST_DOMAIN that
 * cmt_test_begin / cmt_test_end record around each test of a test runner (the pytest plugin, the
 * GoogleTest listener). Per test: the GPU memory allocated inside the range, its peak (the most of
 * it live at one moment) and what of it is still live at the range's end, by (stack, device).
 * Host memory is left out. Fed by the replay (replay.c): a test begins and ends at its markers,
 * and while one is open every allocation and every end of one is shown to it; read by the
 * analysis (analysis.h: the tests of all processes, stacks symbolized, caching allocators told
 * apart), the renderers and `check --per-marker`.
 */
#ifndef CMT_PERTEST_H
#define CMT_PERTEST_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* How a test's range ended: its end marker; another test began (no end seen); the process ended. */
enum cmt_test_end { CMT_TEST_ENDED = 0, CMT_TEST_NEXT = 1, CMT_TEST_UNFINISHED = 2 };
extern const char *const cmt_test_end_names[3];

struct cmt_test_stack { /* allocated in the test, live at its end: one (stack, device) */
    uint64_t stack;
    int64_t device;
    uint64_t bytes, allocations;
};

struct cmt_test_rec {
    char *name;
    int64_t begin_ns, end_ns;              /* dump clock */
    int end;                               /* enum cmt_test_end */
    uint64_t allocated_bytes, allocations; /* GPU allocations made inside the range */
    uint64_t peak_bytes;                   /* the most of them live at one moment */
    uint64_t live_bytes, live_allocations; /* of them, live at the range's end */
    struct cmt_test_stack *stacks;         /* those by (stack, device), bytes desc */
    size_t nstacks;
};

struct cmt_tests {
    struct cmt_test_rec *v; /* in the order they began */
    size_t n, cap;
    int open;             /* v[n - 1] is open */
    uint64_t cur;         /* bytes allocated in the open test and live now */
    struct cmt_htab live; /* the open test's live allocations (ptr, space) -> struct cmt_test_live */
    /* the last free seen in the open test, for a RETRACK (the driver refused it): mine 1 when it
     * ended one of the test's allocations (sdc, bytes), 0 when the memory predates the test */
    struct {
        uint64_t ptr, bytes;
        uint32_t space, sdc;
        int seen, mine;
    } gone;
};

/* The replay's side. sdc: the allocation's stack-device counter index (stack and device are
 * looked up in counters at the end of the test). Each returns 0, or -1 when out of memory. */
struct cmt_stack_live;
struct cmt_event;
/* A MARKER record e: a test's begin or end (domain CMT_TEST_DOMAIN) is applied; returns 1 then, 0
 * for any other marker, -1 when out of memory. */
int cmt_tests_marker(struct cmt_tests *T, const struct cmt_event *e, const struct cmt_stack_live *counters);
int cmt_tests_begin(struct cmt_tests *T, const char *name, size_t len, int64_t t, const struct cmt_stack_live *counters);
int cmt_tests_end(struct cmt_tests *T, int64_t t, int how, const struct cmt_stack_live *counters);
/* An allocation made in the open test; retrack: a RETRACK, the previous free refused (what that free
 * ended is live again, as it was: no new allocation of the test's) */
int cmt_tests_alloc(struct cmt_tests *T, uint64_t ptr, uint32_t space, uint32_t sdc, uint64_t bytes, int retrack);
void cmt_tests_gone(struct cmt_tests *T, uint64_t ptr, uint32_t space);
void cmt_tests_free(struct cmt_tests *T);

/* The analysis' side (struct cmt_rtest, analysis.h): every test of every process, its live stacks
 * symbolized and told apart. */
struct cmt_analysis;
/* Builds a->tests (sorted: leaked bytes, cached bytes, peak, all desc; then process, then order).
 * 0, or -1 when out of memory. */
int cmt_tests_build(struct cmt_analysis *a);
void cmt_tests_view_free(struct cmt_analysis *a);

#endif
