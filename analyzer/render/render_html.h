/*
 * render_html.h — `cumemtrack report --html`: one self-contained HTML file (inline CSS, inline SVG
 * drawn by a small inline script, no network, no external scripts or fonts): live bytes over time
 * per physical GPU with the peak, OOMs and markers, hover with the top stack at that moment, the
 * leak and peak tables with expandable symbolized stacks, the imbalance across GPUs and ranks, and
 * icicle graphs of the leaked bytes and of the bytes live at the peak. The data is embedded as
 * JSON (every '<', '>' and '&' escaped as \u00XX, so no text can close the script element) and put
 * into the page with textContent only.
 */
#ifndef CMT_HTML_H
#define CMT_HTML_H

#include <stdio.h>

#include "analysis.h"
#include "timeline.h"

#define CMT_HTML_BUCKETS 1024 /* time buckets per (process, device) series */

/* a: loaded with tl as its observer (cmt_tl_init(tl, a, CMT_HTML_BUCKETS), then cmt_tl_finish) and a large top_n (every
 * stack of the peaks); top: rows per table. Returns 0, or 3 when out of memory. */
int cmt_render_html(struct cmt_analysis *a, const struct cmt_tl *tl, size_t top, FILE *f);

#endif
