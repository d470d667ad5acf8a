/*
 * render.h — the renderers of an analysis (analysis.h): they only read the model, never load,
 * replay or change it.
 *   render_text.c  the text report, and the one frame printer of every text output
 *   render_json.c  the JSON report (docs/report-schema.json), and the one JSON frame writer
 *   render_html.c  the self-contained HTML report (render_html.h)
 *   render_diff.c  `diff`: a comparison of two runs (compare.h) as text or JSON
 *   render_timeline.c  `timeline`: rows as text, CSV or a Perfetto trace, as they come
 *   render_top.c   `top`: a frame of the live model (live.h) as text or JSON
 */
#ifndef CMT_RENDER_H
#define CMT_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "json.h"

void cmt_render_text(struct cmt_analysis *a, FILE *f);
void cmt_render_json(struct cmt_analysis *a, FILE *f);

/* timeline's writer: the header now, a row per cmt_tl_write_row (a cmt_tl row callback, arg: the
 * writer), the trailer at cmt_tl_writer_end (loaded: the dumps were read; -1 when something was
 * lost for lack of memory). base_real: the earliest start_realtime_ns; trace_pids: per process. */
enum cmt_tl_format { CMT_TL_TEXT, CMT_TL_CSV, CMT_TL_PERFETTO };
struct cmt_tl_row;
struct cmt_tl_writer;
struct cmt_tl_writer *cmt_tl_writer_new(int fmt, FILE *f, struct cmt_analysis *a, int64_t base_real,
                                        const uint64_t *trace_pids, size_t nprocs);
void cmt_tl_write_row(void *writer, const struct cmt_tl_row *row);
/* The CSV's gpu_live_bytes (the GPU's live bytes, every process of the host, at a row's time: after
 * its change, at its OOM, at a marker or range of a process that has used one GPU so far): pre: an
 * analysis of the same dumps loaded first (its series merged, gpumerge.h); NULL: one dump (a row's
 * own live bytes), or with arrival (--follow) the rows are held until cmt_tl_writer_flush. Without
 * this call the column stays empty. 0, -1 out of memory. */
int cmt_tl_writer_gpu_totals(struct cmt_tl_writer *w, const struct cmt_analysis *pre, int arrival);
/* --follow (arrival): writes the rows held since the last flush (the records one refresh read), in
 * time order (each process's in its own order), each with the GPU's live bytes at its time from the
 * changes of every process read so far. safe_ns: the host clock (CLOCK_MONOTONIC ns) before which
 * every record of a process of host was read (INT64_MAX at the end); older changes are dropped.
 * cmt_tl_writer_end flushes too. 0, -1 when something was lost for lack of memory. */
int cmt_tl_writer_flush(struct cmt_tl_writer *w, int64_t safe_ns, const char *host);
int cmt_tl_writer_end(struct cmt_tl_writer *w, int loaded);
void cmt_tl_writer_free(struct cmt_tl_writer *w);

struct cmt_comparison;
/* diff's output: text (at most top changed stacks per section) or JSON (all of them). */
void cmt_render_diff_text(const struct cmt_comparison *c, size_t top, FILE *f);
void cmt_render_diff_json(const struct cmt_comparison *c, FILE *f);

/* The one frame printer: "function file:line", "function (module+0xOFF)" or "module+0xOFF". */
void cmt_print_frame(FILE *f, const struct cmt_sym_frame *fr);
/* The same frame as the three fields other viewers take (PyTorch's {name, filename, line}): returns
 * the function, or "module+0xOFF" (written into buf, cap >= 64) when unresolved; *file: the source
 * file, else the module's path, "?" when neither; *line: 0 when unknown. */
const char *cmt_frame_parts(const struct cmt_sym_frame *fr, char *buf, size_t cap, const char **file, int *line);
/* Prints at most max frames of s (cmt_stack_pick), one a line after indent, with a line "... N
 * frames" where shown frames are left out between two ("(no stack recorded)" when empty). */
void cmt_print_frames(FILE *f, const struct cmt_stack_sym *s, const char *indent, size_t max);
/* The frame of s nearest the user's code (an index into s->frames): the innermost Python frame of a
 * stack that has some; else the shown frame that called the innermost CUDA API entry point
 * (cuda*, cu*); else the innermost shown frame with a function name; else the second shown one. */
size_t cmt_stack_user_frame(const struct cmt_stack_sym *s);
/* The frames a view with room for max of them shows, the same for every view (README "Reading
 * stacks"): indices into s->frames, innermost first, written to idx (room for max). Every shown
 * frame when they fit; else the innermost shown one (the API entry: what allocated), then max - 1
 * from the user's frame outward (ending at the outermost when fewer are left there); max 1: the
 * user's frame. Returns how many (0: no frames). */
size_t cmt_stack_pick(const struct cmt_stack_sym *s, size_t max, size_t *idx);
/* "suppressions": [...], the --suppressions rules and what each hid (leaks, bytes): report --json and
 * the HTML data. */
void cmt_json_suppressions(struct cmt_json *j, const struct cmt_analysis *a);
/* The members of the report's "summary" object (leaked_bytes ... processes), shared with the HTML data. */
void cmt_json_summary(struct cmt_json *j, const struct cmt_analysis *a);
/* Writes "frames": [...] (function, file, line, module, address, offset, inlined) of s. */
void cmt_json_frames(struct cmt_json *j, const struct cmt_stack_sym *s);
/* Prints the growth entries above limit bytes per marker, at most top (check's failure message). */
void cmt_growth_print_over(struct cmt_analysis *a, double limit, FILE *f, size_t top);
/* One outlier of the per-rank view in words ("rank 2 on host n1 peaks 1.5x the mean ..."). */
const char *cmt_rank_outlier_text(const struct cmt_ranks *R, const struct cmt_rank_outlier *o, char *buf, size_t cap);
/* The per-test table (pertest.h): the first top tests of a->tests, each with its top leaking (or
 * cached) stack. */
void cmt_tests_print(const struct cmt_analysis *a, FILE *f, size_t top);
/* "mark", "range" or "signal": the kind of a marker (its flags). */
const char *cmt_marker_kind_name(uint64_t flags);

struct cmt_live;
/* `top`'s frame: at most top stacks by live bytes and by growth, as text or one JSON document. */
void cmt_render_top_text(struct cmt_live *L, FILE *f, size_t top);
void cmt_render_top_json(struct cmt_live *L, FILE *f, size_t top);

#endif
