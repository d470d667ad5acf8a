/*
 * render_timeline.c — `cumemtrack timeline`'s rows (timeline.h) as a text table, CSV, or a Chrome
 * trace event JSON for Perfetto: written as the replays tell them. See render.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumerge.h"
#include "render.h"
#include "timeline.h"

struct track_point {
    int64_t t; /* host clock */
    uint64_t live;
};

/* One (dump, device) of a GPU shared on its host: the GPU's merged total after each of the
 * device's live changes, in the order the rows tell them (gpumerge.h, from a first load). */
struct gpu_track {
    size_t input;   /* the dump's input index (rows name processes by it while loading) */
    int64_t device; /* the ordinal the process saw */
    uint64_t *total;
    size_t n, next;
    char uuid[48]; /* --follow, and a process's GPUs for its marker rows: the GPU */
    uint64_t live; /* --follow, and marker rows: the (dump, device)'s latest live bytes */
    /* --follow: its live bytes after each change (host clock, increasing) that a row not yet written
     * may still need; first_t: its first change */
    struct track_point *hp;
    size_t hn, hcap;
    int64_t first_t;
};

/* --follow: a row kept until the end of its refresh (cmt_tl_writer_flush), its strings copied */
struct held_row {
    struct cmt_tl_row row;
    int64_t at;  /* host clock (start_clock_ns + t), never below its process's previous row's */
    size_t seq;  /* arrival */
    char *label; /* copies */
    char *api;
    char uuid[48];
};

struct cmt_tl_writer {
    int fmt;
    FILE *f;
    struct cmt_analysis *a;
    struct cmt_json j;
    int64_t base_real;    /* earliest start_realtime_ns */
    unsigned char *named; /* per process: metadata written */
    size_t nnamed;
    uint64_t *tpid; /* per process: the trace pid */
    uint64_t rows;
    uint64_t *tracks; /* range tracks named: proc << 32 | writer */
    size_t ntracks, captracks;
    int out_of_memory; /* some metadata could not be written */
    int gpu_totals;    /* CSV gpu_live_bytes: 0 unknown (empty), 1 a row's own live bytes, 2 tracks, 3 the
                          rows so far (--follow: records as they arrive) */
    struct gpu_track *tracks_gpu;
    size_t ngt, capgt, last_gt; /* last_gt: the track found last (track_of) */
    struct gpu_host *hosts;     /* gpu_totals 2 */
    size_t nhosts;
    struct gpu_track *pgpu; /* gpu_totals 1, 2: each process's GPUs so far (its marker rows) */
    size_t npgpu, cappgpu;
    struct held_row *held; /* gpu_totals 3: the rows of this refresh */
    size_t nheld, capheld;
    int64_t *last_at; /* gpu_totals 3: per process, its last row's time (host clock); INT64_MIN: none */
    size_t nlast;
};

/* One GPU's merged series on one host (gpumerge.h), for rows between its changes (OOMs). */
struct gpu_host {
    char uuid[48];
    char host[256];  /* the processes' header host */
    int64_t *t;      /* the host's clock, increasing */
    uint64_t *total; /* the GPU's live bytes after the change at t[i] */
    size_t n;
    uint64_t base; /* before the first change */
};

/* Perfetto pids of the per-GPU tracks: above any process's trace pid */
#define GPU_TRACK_PID 1073741824u

static void csv_field(FILE *f, const char *s, size_t n) {
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') q = 1;
    if (!q) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void event_text(char *buf, size_t cap, const struct cmt_tl_row *row) {
    char b[32];
    const char *name = cmt_tl_event_name(row->event);
    if (cmt_tl_event_labelled(row->event))
        snprintf(buf, cap, "%s:%.*s", name, (int)(row->label_len > 1000 ? 1000 : row->label_len),
                 row->label ? row->label : "");
    else if (row->event == CMT_TL_EV_OOM)
        snprintf(buf, cap, "oom:%s:%s", row->label ? row->label : "?", cmt_human_size(row->size, b, sizeof b));
    else
        snprintf(buf, cap, "%s", name);
}

/* A metadata event ("ph":"M") of trace pid: args {"name": str}, or {"sort_index": index}. */
static void meta_event_pid(struct cmt_tl_writer *o, uint64_t pid, uint64_t tid, const char *what, const char *str,
                           int64_t index);
/* The same of process proc (its trace pid). */
static void meta_event_tid(struct cmt_tl_writer *o, size_t proc, uint64_t tid, const char *what, const char *str,
                           int64_t index) {
    meta_event_pid(o, o->tpid[proc], tid, what, str, index);
}
static void meta_event(struct cmt_tl_writer *o, size_t proc, const char *what, const char *str, int64_t index) {
    meta_event_tid(o, proc, 0, what, str, index);
}

/* The track of a thread's NVTX ranges (tid: its dump stream) is named once. */
static void range_track(struct cmt_tl_writer *o, size_t proc, uint32_t writer) {
    uint64_t key = (uint64_t)proc << 32 | writer;
    for (size_t i = 0; i < o->ntracks; i++)
        if (o->tracks[i] == key) return;
    if (cmt_grow((void **)&o->tracks, &o->captracks, o->ntracks + 1, sizeof *o->tracks) != 0) {
        o->out_of_memory = 1;
        return;
    }
    o->tracks[o->ntracks++] = key;
    char name[64];
    snprintf(name, sizeof name, "NVTX ranges (thread %u)", writer);
    meta_event_tid(o, proc, writer, "thread_name", name, 0);
}

static void meta_event_pid(struct cmt_tl_writer *o, uint64_t pid, uint64_t tid, const char *what, const char *str,
                           int64_t index) {
    struct cmt_json *j = &o->j;
    cmt_json_object(j, NULL);
    cmt_json_str(j, "name", what);
    cmt_json_str(j, "ph", "M");
    cmt_json_u64(j, "ts", 0);
    cmt_json_u64(j, "pid", pid);
    cmt_json_u64(j, "tid", tid);
    cmt_json_object(j, "args");
    if (str)
        cmt_json_str(j, "name", str);
    else
        cmt_json_i64(j, "sort_index", index);
    cmt_json_object_end(j);
    cmt_json_object_end(j);
}

/* "stack": the shown frames of the row's stack, innermost first, each as the one frame printer
 * writes it (Python frames included; hidden frames left out as in the text report) */
static void perfetto_stack(struct cmt_tl_writer *o, const struct cmt_tl_row *row) {
    if (!row->stack) return;
    struct cmt_stack_sym st = cmt_analysis_stack(o->a, row->proc, row->stack);
    size_t vis = cmt_stack_visible(&st);
    cmt_json_array(&o->j, "stack");
    for (size_t i = 0; i < st.n; i++) {
        if (!CMT_FRAME_SHOWN(&st, i, vis)) continue;
        char line[1200] = "";
        FILE *m = fmemopen(line, sizeof line, "w");
        if (m) {
            setvbuf(m, NULL, _IONBF, 0);
            cmt_print_frame(m, &st.frames[i]);
            fclose(m);
        }
        line[sizeof line - 1] = 0;
        cmt_json_str(&o->j, NULL, line);
    }
    cmt_json_array_end(&o->j);
    cmt_stack_sym_free(&st);
}

/* proc: the dump's input index (trace pid); p: its process */
static void perfetto_meta(struct cmt_tl_writer *o, size_t proc, const struct cmt_process *p) {
    if (proc < o->nnamed && o->named[proc]) return;
    if (proc >= o->nnamed) {
        size_t nn = proc + 1;
        unsigned char *n = realloc(o->named, nn);
        if (!n) {
            o->out_of_memory = 1;
            return;
        }
        memset(n + o->nnamed, 0, nn - o->nnamed);
        o->named = n;
        o->nnamed = nn;
    }
    o->named[proc] = 1;
    char name[512];
    if (p->hdr.rank >= 0)
        snprintf(name, sizeof name, "rank %d pid %u on %s: %.300s", p->hdr.rank, p->hdr.pid,
                 p->hdr.host[0] ? p->hdr.host : "?", p->command ? p->command : "");
    else
        snprintf(name, sizeof name, "pid %u on %s: %.300s", p->hdr.pid, p->hdr.host[0] ? p->hdr.host : "?",
                 p->command ? p->command : "");
    meta_event(o, proc, "process_name", name, 0);
    meta_event(o, proc, "process_sort_index", NULL, p->hdr.rank >= 0 ? p->hdr.rank : (int64_t)proc + 100000);
    meta_event(o, proc, "thread_name", "CUDA memory events", 0);
}

/* The track of (dump input, device), or NULL. Rows come process after process and mostly on one
 * device, so the track found last is tried first. */
static struct gpu_track *track_of(struct cmt_tl_writer *o, size_t input, int64_t device) {
    for (size_t k = 0; k <= o->ngt; k++) {
        size_t i = k ? k - 1 : o->last_gt;
        if (i < o->ngt && o->tracks_gpu[i].input == input && o->tracks_gpu[i].device == device) {
            o->last_gt = i;
            return &o->tracks_gpu[i];
        }
    }
    return NULL;
}

/* The track of (proc, device) in v, added with its GPU when new (NULL: out of memory). */
static struct gpu_track *track_put(struct cmt_tl_writer *o, struct gpu_track **v, size_t *n, size_t *cap, size_t proc,
                                   int64_t device, const char *uuid) {
    for (size_t i = *n; i-- > 0;)
        if ((*v)[i].input == proc && (*v)[i].device == device) return &(*v)[i];
    if (cmt_grow((void **)v, cap, *n + 1, sizeof **v) != 0) {
        o->out_of_memory = 1;
        return NULL;
    }
    struct gpu_track *t = &(*v)[(*n)++];
    *t = (struct gpu_track){.input = proc, .device = device};
    snprintf(t->uuid, sizeof t->uuid, "%s", uuid);
    return t;
}

/* The one GPU process proc has used (changed its live bytes on) up to time at (--follow: first_t;
 * else every track so far), for its rows without a device (markers, ranges); NULL: none or several. */
static const struct gpu_track *sole_gpu(const struct gpu_track *v, size_t n, size_t proc, int64_t at) {
    const struct gpu_track *one = NULL;
    for (size_t i = 0; i < n; i++) {
        if (v[i].input != proc || v[i].first_t > at) continue;
        if (one && strcmp(one->uuid, v[i].uuid)) return NULL;
        one = &v[i];
    }
    return one;
}

/* --follow: the track's live bytes at time at (after its last change at or before it). */
static uint64_t track_at(const struct gpu_track *t, int64_t at) {
    size_t lo = 0, hi = t->hn; /* the first change after at */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->hp[mid].t <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? t->hp[lo - 1].live : 0;
}

/* The host's GPU total at time at (the host's clock): after the last change at or before it. */
static uint64_t host_total_at(const struct gpu_host *h, int64_t at) {
    size_t lo = 0, hi = h->n; /* the first change after at */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->t[mid] <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? h->total[lo - 1] : h->base;
}

static const struct gpu_host *host_of(const struct cmt_tl_writer *o, const char *uuid, const char *host) {
    for (size_t i = 0; uuid && i < o->nhosts; i++)
        if (!strcmp(o->hosts[i].uuid, uuid) && !strcmp(o->hosts[i].host, host)) return &o->hosts[i];
    return NULL;
}

/* The GPU's live bytes on the row's host (every process using it) at the row's time: after a live
 * change, when an OOM was refused, and at a marker or range of a process that has used one GPU so
 * far (that GPU): 1 and *total, or 0 when the row has none (no GPU). Rows of --follow: in the flush. */
static int gpu_total(struct cmt_tl_writer *o, const struct cmt_tl_row *row, uint64_t *total) {
    int oom = row->event == CMT_TL_EV_OOM;
    if (!o->gpu_totals || o->gpu_totals == 3) return 0;
    const struct cmt_process *p = &o->a->procs[row->proc];
    int64_t at = cmt_add_sat(p->hdr.start_clock_ns, row->t);
    if (row->device < 0) {
        const struct gpu_track *g = oom ? NULL : sole_gpu(o->pgpu, o->npgpu, row->proc, INT64_MAX);
        if (!g) return 0;
        const struct gpu_host *h = o->gpu_totals == 2 ? host_of(o, g->uuid, p->hdr.host) : NULL;
        *total = h ? host_total_at(h, at) : g->live;
        return 1;
    }
    if (!row->live_change && !oom) return 0;
    if (row->live_change && row->uuid) {
        struct gpu_track *t = track_put(o, &o->pgpu, &o->npgpu, &o->cappgpu, row->proc, row->device, row->uuid);
        if (t) t->live = row->live;
    }
    *total = row->live; /* a GPU no other process shares (or one without a UUID) */
    if (oom) { /* between two changes of the merged series (the process may have none): its total then */
        const struct gpu_host *h = host_of(o, row->uuid, p->hdr.host);
        if (h) *total = host_total_at(h, at);
        return 1;
    }
    struct gpu_track *g = o->gpu_totals == 2 ? track_of(o, row->proc, row->device) : NULL;
    if (g && g->next < g->n) *total = g->total[g->next++];
    return 1;
}

int cmt_tl_writer_gpu_totals(struct cmt_tl_writer *o, const struct cmt_analysis *pre, int arrival) {
    o->gpu_totals = arrival ? 3 : 1;
    if (!pre) return 0;
    o->gpu_totals = 2;
    for (size_t g = 0; g < pre->ngpus; g++) {
        struct cmt_gm gm;
        if (cmt_gm_build(pre, pre->gpus[g].uuid, &gm) != 0) return -1;
        for (size_t h = 0; h < gm.nh; h++) {
            const struct cmt_gm_host *H = &gm.h[h];
            size_t first = o->ngt;
            struct gpu_host *nh = realloc(o->hosts, (o->nhosts + 1) * sizeof *nh);
            if (!nh) {
                cmt_gm_free(&gm);
                return -1;
            }
            o->hosts = nh;
            struct gpu_host *gh = &nh[o->nhosts];
            *gh = (struct gpu_host){.t = malloc((H->n + 1) * sizeof *gh->t),
                                    .total = malloc((H->n + 1) * sizeof *gh->total),
                                    .n = H->n,
                                    .base = H->base};
            snprintf(gh->uuid, sizeof gh->uuid, "%s", pre->gpus[g].uuid);
            snprintf(gh->host, sizeof gh->host, "%s", H->host ? H->host : "");
            o->nhosts++; /* freed with the writer, even when incomplete */
            if (!gh->t || !gh->total) {
                cmt_gm_free(&gm);
                return -1;
            }
            for (size_t i = 0; i < H->n; i++) {
                gh->t[i] = H->v[i].t;
                gh->total[i] = H->v[i].total;
            }
            struct gpu_track *nt = realloc(o->tracks_gpu, (o->ngt + H->nm + 1) * sizeof *nt);
            if (!nt) {
                cmt_gm_free(&gm);
                return -1;
            }
            o->tracks_gpu = nt;
            for (size_t k = 0; k < H->nm; k++) {
                struct gpu_track *t = &nt[o->ngt];
                *t = (struct gpu_track){.input = pre->procs[H->m[k].proc].input,
                                        .device = H->m[k].device,
                                        .n = H->m[k].series ? H->m[k].series->n : 0};
                t->total = calloc(t->n + 1, sizeof *t->total);
                if (!t->total) {
                    cmt_gm_free(&gm);
                    return -1;
                }
                o->ngt++;
            }
            for (size_t i = 0; i < H->n; i++) {
                const struct cmt_gm_point *pt = &H->v[i];
                struct gpu_track *t = &o->tracks_gpu[first + pt->member];
                if (pt->order < t->n) t->total[pt->order] = pt->total;
            }
        }
        cmt_gm_free(&gm);
    }
    return 0;
}

/* --follow: the row kept until the end of the refresh that read it (cmt_tl_writer_flush). */
static void hold_row(struct cmt_tl_writer *o, const struct cmt_tl_row *row) {
    if (cmt_grow((void **)&o->held, &o->capheld, o->nheld + 1, sizeof *o->held) != 0) {
        o->out_of_memory = 1;
        return;
    }
    struct held_row *h = &o->held[o->nheld];
    *h = (struct held_row){.row = *row, .seq = o->nheld};
    h->row.label = NULL;
    h->row.api = NULL;
    h->row.uuid = NULL; /* pointed at h->uuid once the rows stop moving */
    if (row->label && row->label_len && (h->label = malloc(row->label_len))) {
        memcpy(h->label, row->label, row->label_len);
        h->row.label = h->label;
    }
    if (row->api) h->row.api = h->api = strdup(row->api);
    if (row->uuid) snprintf(h->uuid, sizeof h->uuid, "%s", row->uuid);
    if ((row->label && row->label_len && !h->label) || (row->api && !h->api)) o->out_of_memory = 1;
    o->nheld++;
}

static void write_row(struct cmt_tl_writer *o, const struct cmt_tl_row *row, int has_total, uint64_t total);

void cmt_tl_write_row(void *arg, const struct cmt_tl_row *row) {
    struct cmt_tl_writer *o = arg;
    uint64_t total = 0;
    if (o->gpu_totals == 3) {
        hold_row(o, row);
        return;
    }
    int has = o->fmt == CMT_TL_CSV && gpu_total(o, row, &total);
    write_row(o, row, has, total);
}

static int cmp_held(const void *x, const void *y) {
    const struct held_row *a = x, *b = y;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* --follow: the GPU's live bytes on the row's host at the row's time (gpu_total's rule), from the
 * changes of every process read so far. */
static int follow_total(struct cmt_tl_writer *o, const struct held_row *h, uint64_t *total) {
    const struct cmt_tl_row *row = &h->row;
    const char *host = o->a->procs[row->proc].hdr.host, *uuid;
    const struct gpu_track *self = NULL;
    if (row->device >= 0) {
        if (!row->live_change && row->event != CMT_TL_EV_OOM) return 0;
        *total = row->live;
        if (!row->uuid) return 1;
        uuid = row->uuid;
        for (size_t i = 0; i < o->ngt && !self; i++)
            if (o->tracks_gpu[i].input == row->proc && o->tracks_gpu[i].device == row->device) self = &o->tracks_gpu[i];
    } else {
        if (row->event == CMT_TL_EV_OOM || !(self = sole_gpu(o->tracks_gpu, o->ngt, row->proc, h->at))) return 0;
        uuid = self->uuid;
        *total = track_at(self, h->at);
    }
    for (size_t i = 0; i < o->ngt; i++) {
        const struct gpu_track *t = &o->tracks_gpu[i];
        if (t != self && !strcmp(t->uuid, uuid) && !strcmp(o->a->procs[t->input].hdr.host, host))
            *total += track_at(t, h->at);
    }
    return 1;
}

/* --follow: a track's changes before any row still to come are dropped but the last of them. Rows
 * to come of a process on this host are not older than safe_ns (every record before it is read);
 * of one on another host, not older than its last row's. */
static void prune_tracks(struct cmt_tl_writer *o, int64_t safe_ns, const char *myhost) {
    for (size_t i = 0; i < o->ngt; i++) {
        struct gpu_track *t = &o->tracks_gpu[i];
        const char *host = o->a->procs[t->input].hdr.host;
        int64_t w = INT64_MAX;
        for (size_t p = 0; p < o->nlast; p++) {
            if (o->last_at[p] == INT64_MIN || strcmp(o->a->procs[p].hdr.host, host)) continue;
            int64_t b = o->last_at[p];
            if (myhost && !strcmp(host, myhost) && safe_ns > b) b = safe_ns;
            if (b < w) w = b;
        }
        size_t keep = t->hn; /* the last change at or before w */
        while (keep > 0 && t->hp[keep - 1].t > w)
            keep--;
        if (keep > 1) {
            memmove(t->hp, t->hp + keep - 1, (t->hn - keep + 1) * sizeof *t->hp);
            t->hn -= keep - 1;
        }
    }
}

int cmt_tl_writer_flush(struct cmt_tl_writer *o, int64_t safe_ns, const char *host) {
    if (o->gpu_totals != 3) return o->out_of_memory ? -1 : 0;
    for (size_t i = 0; i < o->nheld; i++) { /* times, and every change into its track */
        struct held_row *h = &o->held[i];
        size_t proc = h->row.proc;
        if (proc >= o->nlast) {
            size_t cap = o->nlast;
            if (cmt_grow((void **)&o->last_at, &cap, proc + 1, sizeof *o->last_at) != 0) {
                o->out_of_memory = 1;
                break;
            }
            for (size_t k = o->nlast; k < cap; k++)
                o->last_at[k] = INT64_MIN;
            o->nlast = cap;
        }
        h->at = cmt_add_sat(o->a->procs[proc].hdr.start_clock_ns, h->row.t);
        if (h->at < o->last_at[proc]) h->at = o->last_at[proc]; /* a process's rows keep their order */
        o->last_at[proc] = h->at;
        if (!h->row.live_change || h->row.device < 0 || !h->uuid[0]) continue;
        struct gpu_track *t = track_put(o, &o->tracks_gpu, &o->ngt, &o->capgt, proc, h->row.device, h->uuid);
        if (!t || cmt_grow((void **)&t->hp, &t->hcap, t->hn + 1, sizeof *t->hp) != 0) {
            o->out_of_memory = 1;
            continue;
        }
        if (!t->hn) t->first_t = h->at;
        t->hp[t->hn++] = (struct track_point){h->at, h->row.live};
        t->live = h->row.live;
    }
    if (o->nheld > 1) qsort(o->held, o->nheld, sizeof *o->held, cmp_held);
    for (size_t i = 0; i < o->nheld; i++) {
        struct held_row *h = &o->held[i];
        if (h->uuid[0]) h->row.uuid = h->uuid;
        uint64_t total = 0;
        int has = o->fmt == CMT_TL_CSV && follow_total(o, h, &total);
        write_row(o, &h->row, has, total);
        free(h->label);
        free(h->api);
    }
    o->nheld = 0;
    prune_tracks(o, safe_ns, host);
    return o->out_of_memory ? -1 : 0;
}

static void write_row(struct cmt_tl_writer *o, const struct cmt_tl_row *row, int has_total, uint64_t total) {
    const struct cmt_process *p = &o->a->procs[row->proc];
    char ev[1100], b[32];
    o->rows++;
    event_text(ev, sizeof ev, row);
    if (o->fmt == CMT_TL_CSV) {
        /* numeric columns hold numbers only; text columns (host, uuid, event, api, label) text only */
        fprintf(o->f, "%lld,%lld,", (long long)row->t, (long long)cmt_add_sat(p->hdr.start_realtime_ns, row->t));
        csv_field(o->f, p->hdr.host, strlen(p->hdr.host));
        fprintf(o->f, ",%u,", p->hdr.pid);
        if (p->hdr.rank >= 0) fprintf(o->f, "%d", p->hdr.rank);
        fputc(',', o->f);
        if (row->device >= 0) fprintf(o->f, "%lld", (long long)row->device);
        fprintf(o->f, ",%s,", row->uuid ? row->uuid : "");
        if (row->device >= 0) fprintf(o->f, "%llu", (unsigned long long)row->live);
        fprintf(o->f, ",%s,", cmt_tl_event_name(row->event));
        if (row->api) csv_field(o->f, row->api, strlen(row->api));
        fputc(',', o->f);
        if (row->size) fprintf(o->f, "%llu", (unsigned long long)row->size);
        fputc(',', o->f);
        if (cmt_tl_event_labelled(row->event))
            csv_field(o->f, row->label ? row->label : "", row->label ? row->label_len : 0);
        fputc(',', o->f);
        if (has_total) fprintf(o->f, "%llu", (unsigned long long)total);
        fputc('\n', o->f);
    } else if (o->fmt == CMT_TL_TEXT) {
        char dev[24];
        if (row->device >= 0)
            snprintf(dev, sizeof dev, "%lld", (long long)row->device);
        else
            snprintf(dev, sizeof dev, "-");
        for (char *c = ev; *c; c++)
            if ((unsigned char)*c < 0x20) *c = '?';
        fprintf(o->f, "%12.6f  %-7u %-3s %-40s %10s  %s\n", cmt_tl_seconds(row->t), p->hdr.pid, dev,
                row->uuid ? row->uuid : "-", row->device >= 0 ? cmt_human_size(row->live, b, sizeof b) : "-", ev);
    } else {
        perfetto_meta(o, row->proc, p); /* while loading, procs[] is in input order */
        struct cmt_json *j = &o->j;
        /* integer microseconds */
        int64_t ts = cmt_add_sat(cmt_sub_sat(p->hdr.start_realtime_ns, o->base_real), row->t) / 1000;
        char nm[128];
        const char *cat = "memory", *ph = "C";
        int ranged = row->event == CMT_TL_EV_RANGE_BEGIN || row->event == CMT_TL_EV_RANGE_END;
        if (row->event == CMT_TL_EV_OOM) {
            snprintf(nm, sizeof nm, "OOM %s %s", row->label ? row->label : "?", cmt_human_size(row->size, b, sizeof b));
            cat = "oom";
            ph = "i";
        } else if (row->event == CMT_TL_EV_MARKER) {
            cat = "marker";
            ph = "i";
        } else if (ranged) {
            if (row->unmatched) return; /* an E without its B would close another slice */
            range_track(o, row->proc, row->writer);
            cat = "range";
            ph = row->event == CMT_TL_EV_RANGE_BEGIN ? "B" : "E";
        } else
            snprintf(nm, sizeof nm, "GPU %lld %s", (long long)row->device, row->uuid ? row->uuid : "");
        cmt_json_object(j, NULL);
        if (cmt_tl_event_labelled(row->event))
            cmt_json_strn(j, "name", row->label ? row->label : "", row->label ? row->label_len : 0);
        else
            cmt_json_str(j, "name", nm);
        cmt_json_str(j, "cat", cat);
        cmt_json_str(j, "ph", ph);
        if (*ph == 'i') cmt_json_str(j, "s", "p");
        cmt_json_i64(j, "ts", ts);
        cmt_json_u64(j, "pid", o->tpid[row->proc]);
        cmt_json_u64(j, "tid", ranged ? row->writer : 0); /* slices nest per thread */
        cmt_json_object(j, "args");
        if (row->event == CMT_TL_EV_OOM) {
            cmt_json_i64(j, "device", row->device);
            cmt_json_str(j, "uuid", row->uuid);
            cmt_json_u64(j, "requested_bytes", row->size);
            cmt_json_u64(j, "live_bytes", row->live);
            perfetto_stack(o, row);
        } else if (*ph == 'C')
            cmt_json_u64(j, "live_bytes", row->live);
        cmt_json_object_end(j);
        cmt_json_object_end(j);
        if (*ph == 'C' && row->stack) { /* the allocation's stack: an instant beside the counter */
            cmt_json_object(j, NULL);
            cmt_json_str(j, "name", cmt_tl_event_name(row->event));
            cmt_json_str(j, "cat", "stack");
            cmt_json_str(j, "ph", "i");
            cmt_json_str(j, "s", "p");
            cmt_json_i64(j, "ts", ts);
            cmt_json_u64(j, "pid", o->tpid[row->proc]);
            cmt_json_u64(j, "tid", 0);
            cmt_json_object(j, "args");
            cmt_json_i64(j, "device", row->device);
            perfetto_stack(o, row);
            cmt_json_object_end(j);
            cmt_json_object_end(j);
        }
    }
}

struct cmt_tl_writer *cmt_tl_writer_new(int fmt, FILE *f, struct cmt_analysis *a, int64_t base_real,
                                        const uint64_t *trace_pids, size_t nprocs) {
    struct cmt_tl_writer *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->tpid = malloc((nprocs + 1) * sizeof *o->tpid);
    if (!o->tpid) {
        free(o);
        return NULL;
    }
    memcpy(o->tpid, trace_pids, nprocs * sizeof *o->tpid);
    o->fmt = fmt;
    o->f = f;
    o->a = a;
    o->base_real = base_real;
    if (fmt == CMT_TL_CSV)
        fprintf(f, "time_ns,unix_ns,host,pid,rank,device,uuid,live_bytes,event,api,bytes,label,gpu_live_bytes\n");
    else if (fmt == CMT_TL_TEXT)
        fprintf(f, "%12s  %-7s %-3s %-40s %10s  %s\n", "TIME(s)", "PID", "DEV", "UUID", "LIVE", "EVENT");
    else {
        cmt_json_init(&o->j, f, 0);
        cmt_json_object(&o->j, NULL);
        cmt_json_str(&o->j, "displayTimeUnit", "ms");
        cmt_json_array(&o->j, "traceEvents");
    }
    return o;
}

/* A counter track per physical GPU and host: its live bytes summed over every process of the host
 * at each moment (gpumerge.h), beside the per-process tracks. */
static void perfetto_gpu_tracks(struct cmt_tl_writer *o) {
    const struct cmt_analysis *a = o->a;
    struct cmt_json *j = &o->j;
    for (size_t g = 0; g < a->ngpus; g++) {
        struct cmt_gm gm;
        if (cmt_gm_build(a, a->gpus[g].uuid, &gm) != 0) {
            o->out_of_memory = 1;
            return;
        }
        for (size_t h = 0; h < gm.nh; h++) {
            const struct cmt_gm_host *H = &gm.h[h];
            uint64_t pid = GPU_TRACK_PID + g * 1024 + h;
            char name[512], cname[128];
            snprintf(name, sizeof name, "GPU %s on %s: all processes (%zu)", a->gpus[g].uuid,
                     H->host[0] ? H->host : "?", H->nm);
            snprintf(cname, sizeof cname, "GPU total %s", a->gpus[g].uuid);
            meta_event_pid(o, pid, 0, "process_name", name, 0);
            meta_event_pid(o, pid, 0, "process_sort_index", NULL, -1000 + (int64_t)(g * 16 + h));
            for (size_t i = 0; i <= H->n; i++) { /* the start (members without a series), then each change */
                const struct cmt_process *p = &a->procs[H->m[i ? H->v[i - 1].member : H->t0_member].proc];
                int64_t t = i ? H->v[i - 1].t : H->t0;
                cmt_json_object(j, NULL);
                cmt_json_str(j, "name", cname);
                cmt_json_str(j, "cat", "gpu");
                cmt_json_str(j, "ph", "C");
                int64_t since = cmt_sub_sat(t, p->hdr.start_clock_ns); /* since the process started */
                cmt_json_i64(j, "ts", cmt_add_sat(cmt_sub_sat(p->hdr.start_realtime_ns, o->base_real), since) / 1000);
                cmt_json_u64(j, "pid", pid);
                cmt_json_u64(j, "tid", 0);
                cmt_json_object(j, "args");
                cmt_json_u64(j, "live_bytes", i ? H->v[i - 1].total : H->base);
                cmt_json_object_end(j);
                cmt_json_object_end(j);
            }
        }
        cmt_gm_free(&gm);
    }
}

/* The text table's trailer: each GPU's peak, all its processes at one moment (the JSON report's
 * imbalance.gpus[].peak_bytes, with the processes live then). */
static void text_gpu_peaks(struct cmt_tl_writer *o) {
    const struct cmt_analysis *a = o->a;
    char b[32];
    if (!a->ngpus) return;
    fprintf(o->f, "\nGPU PEAKS (every process of a host at one moment; hosts add up)\n");
    for (size_t g = 0; g < a->ngpus; g++) {
        const struct cmt_gpu *G = &a->gpus[g];
        fprintf(o->f, "%-40s %10s ", G->uuid, cmt_human_size(G->peak_bytes, b, sizeof b));
        for (size_t k = 0; k < G->npeak_procs; k++) {
            const struct cmt_process *p = &a->procs[G->peak_procs[k].proc];
            fprintf(o->f, "%spid %u", k ? ", " : " ", p->hdr.pid);
            if (p->hdr.host[0]) fprintf(o->f, "@%s", p->hdr.host);
            fprintf(o->f, " %s", cmt_human_size(G->peak_procs[k].bytes, b, sizeof b));
        }
        fputc('\n', o->f);
    }
}

int cmt_tl_writer_end(struct cmt_tl_writer *o, int loaded) {
    cmt_tl_writer_flush(o, INT64_MAX, NULL);
    if (o->fmt == CMT_TL_PERFETTO) {
        for (size_t i = 0; i < o->a->nprocs; i++) /* processes without a row (unreadable ones left out) */
            perfetto_meta(o, o->a->procs[i].input, &o->a->procs[i]);
        if (loaded) perfetto_gpu_tracks(o);
        cmt_json_array_end(&o->j);
        cmt_json_object_end(&o->j);
        cmt_json_finish(&o->j);
    } else if (o->fmt == CMT_TL_TEXT && loaded && !o->rows)
        fprintf(o->f, "(no device memory recorded)\n");
    else if (o->fmt == CMT_TL_TEXT && loaded)
        text_gpu_peaks(o);
    return o->out_of_memory ? -1 : 0;
}

void cmt_tl_writer_free(struct cmt_tl_writer *o) {
    if (!o) return;
    free(o->named);
    free(o->tracks);
    for (size_t i = 0; i < o->ngt; i++) {
        free(o->tracks_gpu[i].total);
        free(o->tracks_gpu[i].hp);
    }
    free(o->tracks_gpu);
    free(o->pgpu);
    for (size_t i = 0; i < o->nheld; i++) {
        free(o->held[i].label);
        free(o->held[i].api);
    }
    free(o->held);
    free(o->last_at);
    for (size_t i = 0; i < o->nhosts; i++) {
        free(o->hosts[i].t);
        free(o->hosts[i].total);
    }
    free(o->hosts);
    free(o->tpid);
    free(o);
}
