/*
 * notes.c — what an analysis says about its own figures: the anomalies (their hints, what this
 * analysis counted for them, which ones mean the figures cannot be trusted) and the notes under a
 * report's first line (why Python frames are missing: from the dump's PYTHON record, else its INFO
 * sentence). See analysis.h.
 */
#include "analysis.h"

#include "../../preload/cmt_python.h" /* CMT_PY_LAYOUTS: the CPython versions the tracer walks */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cmt_anomaly_hint(int an) {
    switch (an) {
    case CMT_AN_UNKNOWN_FREE:
        return "frees of pointers never seen allocated: allocated before tracing started or by an untracked path";
    case CMT_AN_DOUBLE_FREE:
        return "the same pointer freed twice without a new allocation in between: a bug in the program";
    case CMT_AN_FAILED_FREE:
        return "the driver refused a free; the pointer stayed allocated";
    case CMT_AN_FAILED_CALLS:
        return "calls that failed with an error other than out-of-memory: allocations, and frees the driver "
               "refused of pointers the dump never saw allocated (nothing was freed)";
    case CMT_AN_DROPPED_EVENTS:
        return "disk full or size limit: set CUMEMTRACK_OUTPUT to a larger filesystem";
    case CMT_AN_DROPPED_STACKS:
        return "stack table full or out of memory: some leaks show no stack; lower CUMEMTRACK_DEPTH";
    case CMT_AN_TABLE_FULL:
        return "a table of the tracker was full: what it could not hold was not followed";
    case CMT_AN_TRUNCATED_DUMPS:
        return "a dump ends inside a block: copied while written, or the filesystem filled up; read up to its last "
               "intact record";
    case CMT_AN_UNREADABLE_DUMPS:
        return "dumps that could not be read (named on stderr): their processes are missing from every figure";
    case CMT_AN_RUNNING_PROCESSES:
        return "still running when read (same host, pid and start time): live memory is live now, not leaked";
    case CMT_AN_DIED_PROCESSES:
        return "killed before exit (signal, OOM killer, kill -9): leaks are what was live when it died";
    case CMT_AN_UNMATCHED_PROC:
        return "cuGetProcAddress entry points passed through untracked: the CUDA version is newer than the tracer";
    case CMT_AN_CAPTURED_ALLOCATIONS:
        return "allocations made during stream capture (graph nodes): never counted as live";
    }
    return "";
}

const char *cmt_anomaly_text(const struct cmt_analysis *a, int an, char *buf, size_t cap) {
    if (an == CMT_AN_UNKNOWN_FREE && a->anomalies[CMT_AN_DROPPED_EVENTS]) {
        snprintf(buf, cap,
                 "frees of pointers the dump does not show allocated: events were dropped (their "
                 "allocations may be among them), or allocated before tracing started or by an untracked "
                 "path; not evidence of a double free");
        return buf;
    }
    snprintf(buf, cap, "%s", cmt_anomaly_hint(an));
    if (an != CMT_AN_TABLE_FULL || !cap) return buf;
    static const char *const what[] = {
#define CMT_TABLE_WHAT(id, ctr, w) [id] = w,
        CMT_TABLES(CMT_TABLE_WHAT)
#undef CMT_TABLE_WHAT
    };
    size_t n = 0;
    const char *sep = "the tracker's tables were full: ";
    for (int k = 0; k < CMT_TABLE_COUNT && n < cap; k++) {
        if (!a->table_full[k]) continue;
        int w = snprintf(buf + n, cap - n, "%s%s: %llu", sep, what[k], (unsigned long long)a->table_full[k]);
        if (w < 0) break;
        n += (size_t)w;
        sep = "; ";
    }
    return buf;
}

int cmt_anomaly_distrusts(int an) {
    switch (an) {
    case CMT_AN_UNREADABLE_DUMPS:
    case CMT_AN_TRUNCATED_DUMPS:
    case CMT_AN_DROPPED_EVENTS:
    case CMT_AN_TABLE_FULL:
    case CMT_AN_UNKNOWN_FREE:
        return 1;
    }
    return 0;
}

/* The CPython minor versions the tracer has a frame layout for: 3.lo to 3.hi. */
static void py_supported(int *lo, int *hi) {
    static const int minors[] = {
#define CMT_PY_MINOR(mi, ...) mi,
        CMT_PY_LAYOUTS(CMT_PY_MINOR)
#undef CMT_PY_MINOR
    };
    *lo = *hi = minors[0];
    for (size_t k = 1; k < sizeof minors / sizeof *minors; k++) {
        if (minors[k] < *lo) *lo = minors[k];
        if (minors[k] > *hi) *hi = minors[k];
    }
}

/* Why the tracer recorded no Python frames, from its INFO "python" note ("CPython 3.7.16 has no
 * frame layout entry in this cumemtrack: native-only stacks") into why, in the report's words (the
 * supported versions added where the version was the cause): 1, or 0 when Python frames were on. */
static int python_off_cause(const char *info, char *why, size_t cap) {
    static const char tail[] = ": native-only stacks", here[] = " in this cumemtrack";
    size_t n = strlen(info), tn = sizeof tail - 1, hn = sizeof here - 1;
    if (!cap || n < tn || strcmp(info + n - tn, tail) != 0) return 0;
    n -= tn;
    const char *h = memmem(info, n, here, hn); /* the tracer that wrote it, not the one reading */
    size_t w = 0;
    for (size_t i = 0; i < n && w + 1 < cap; i++) {
        if (info + i == h) {
            i += hn - 1;
            continue;
        }
        unsigned char c = (unsigned char)info[i];
        why[w++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    why[w] = 0;
    if (strstr(why, "has no frame layout entry")) {
        int lo, hi;
        py_supported(&lo, &hi);
        snprintf(why + w, cap - w, " (3.%d to 3.%d are supported)", lo, hi);
    }
    return 1;
}

/* The same from the PYTHON record's codes (2.3): 1 and why, 0 when Python frames were on, -1 for a
 * state this reader does not know (then the INFO sentence is read instead). */
static int python_off_code(const struct cmt_replay *r, char *why, size_t cap) {
    char ver[48];
    if (r->python_text[0])
        snprintf(ver, sizeof ver, "%s", r->python_text);
    else if (r->python_version)
        snprintf(ver, sizeof ver, "%u.%u.%u", (unsigned)(r->python_version >> 16 & 0xff),
                 (unsigned)(r->python_version >> 8 & 0xff), (unsigned)(r->python_version & 0xff));
    else
        snprintf(ver, sizeof ver, "?");
    switch (r->python_state) {
    case CMT_PY_ON:
    case CMT_PY_ON_NO_EVAL: return 0;
    case CMT_PY_NO_LAYOUT: {
        int lo, hi;
        py_supported(&lo, &hi);
        snprintf(why, cap, "CPython %s has no frame layout entry (3.%d to 3.%d are supported)", ver, lo, hi);
        return 1;
    }
    case CMT_PY_NO_SYMBOLS: snprintf(why, cap, "CPython %s lacks the symbols Python frames need", ver); return 1;
    case CMT_PY_OBJECT_LAYOUT:
        snprintf(why, cap,
                 "CPython %s has an object layout this cumemtrack does not know (free-threaded or debug build?)", ver);
        return 1;
    default: return -1;
    }
}

static struct cmt_note *note_for(struct cmt_analysis *a, int kind, const char *why, size_t proc) {
    struct cmt_note *nt = NULL;
    for (size_t k = 0; k < a->nnotes && !nt; k++)
        if (a->notes[k].kind == kind && strcmp(a->notes[k].why, why) == 0) nt = &a->notes[k];
    if (!nt) {
        struct cmt_note *v = realloc(a->notes, (a->nnotes + 1) * sizeof *v);
        if (!v) return NULL;
        a->notes = v;
        nt = memset(&v[a->nnotes++], 0, sizeof *v);
        nt->kind = kind;
        snprintf(nt->why, sizeof nt->why, "%s", why);
    }
    size_t *p = realloc(nt->procs, (nt->nprocs + 1) * sizeof *p);
    if (!p) return NULL;
    nt->procs = p;
    p[nt->nprocs++] = proc;
    return nt;
}

/* The notes (analysis.h): Python frames not recorded, or walks that failed. 0, or -1 out of memory. */
int cmt_notes_build(struct cmt_analysis *a) {
    for (int kind = 0; kind < CMT_NOTE_KIND_COUNT; kind++)
        for (size_t i = 0; i < a->nprocs; i++) {
            const struct cmt_process *p = &a->procs[i];
            char why[256];
            uint64_t failed = p->hdr.counters[CMT_CTR_PYTHON_WALK_FAILED];
            int coded = p->replay.python_state ? python_off_code(&p->replay, why, sizeof why) : -1;
            if (kind == CMT_NOTE_PYTHON_OFF &&
                (coded > 0 || (coded < 0 && p->replay.python_info &&
                               python_off_cause(p->replay.python_info, why, sizeof why)))) {
                if (!note_for(a, kind, why, i)) return -1;
            } else if (kind == CMT_NOTE_PYTHON_FAILED && failed) {
                struct cmt_note *nt = note_for(a, kind, "", i);
                if (!nt) return -1;
                nt->count += failed;
            }
        }
    for (size_t k = 0; k < a->nnotes; k++) {
        struct cmt_note *nt = &a->notes[k];
        char where[160] = "";
        if (a->nprocs > 1) { /* which processes: up to 4 pids named */
            size_t w = (size_t)snprintf(where, sizeof where, " in pid%s", nt->nprocs == 1 ? "" : "s");
            for (size_t q = 0; q < nt->nprocs && q < 4 && w < sizeof where; q++)
                w += (size_t)snprintf(where + w, sizeof where - w, "%s %u",
                                      !q                                       ? ""
                                      : q + 1 == nt->nprocs && nt->nprocs <= 4 ? " and"
                                                                               : ",",
                                      a->procs[nt->procs[q]].hdr.pid);
            if (nt->nprocs > 4 && w < sizeof where)
                snprintf(where + w, sizeof where - w, " and %zu more", nt->nprocs - 4);
        }
        if (nt->kind == CMT_NOTE_PYTHON_OFF)
            snprintf(nt->text, sizeof nt->text,
                     "Python frames: not recorded%s: %s; stacks are native only (allocations made from "
                     "different Python lines share one site)",
                     where, nt->why);
        else
            snprintf(nt->text, sizeof nt->text,
                     "Python frames: %llu walk%s failed%s: those stacks lack some or all of their Python "
                     "frames (the walk stopped at a frame that looked wrong); the byte figures are right",
                     (unsigned long long)nt->count, nt->count == 1 ? "" : "s", where);
    }
    return 0;
}
