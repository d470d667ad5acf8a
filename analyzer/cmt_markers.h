/*
 * cmt_markers.h — the report sections about markers (cmt_mark, the marker signal, NVTX marks and
 * ranges): live bytes per device at each marker (JSON markers[]) and the stacks whose live bytes
 * grow across consecutive markers of one label, ranked (JSON growth[]): the leak-per-epoch finder.
 * The replay (cmt_replay.c) collects both; this module prints them and feeds `check
 * --max-growth-per-marker`.
 */
#ifndef CMT_MARKERS_H
#define CMT_MARKERS_H

#include <stdio.h>

struct cmt_analysis;
struct cmt_json;

void cmt_markers_text(struct cmt_analysis *a, FILE *f);
void cmt_markers_json(struct cmt_analysis *a, struct cmt_json *j);
/* The largest bytes_per_marker over all processes (0 when none); proc and index locate it. */
double cmt_growth_max(const struct cmt_analysis *a, size_t *proc, size_t *index);
/* Prints the growth entries above limit bytes per marker (for check's failure message). */
void cmt_growth_print_over(struct cmt_analysis *a, double limit, FILE *f, size_t top);

#endif
