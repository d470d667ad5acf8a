/*
 * analysis.c — the model every renderer reads: loads and replays dumps (on several threads),
 * merges them, symbolizes (stack.c), suppresses and sorts the leaks, merges GPUs by UUID and
 * judges the imbalance; notes and anomalies are worded in notes.c. See analysis.h.
 */
#include "analysis.h"

#include "gpumerge.h"
#include "running.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct cmt_stack_sym cmt_analysis_stack(struct cmt_analysis *a, size_t proc, uint64_t id) {
    return cmt_stack_symbolize(a->sym, &a->procs[proc].replay, id, &a->out_of_memory);
}


static const char *exit_name(const struct cmt_replay *r) {
    if (!r->have_exit) return "died";
    switch (r->exit_how) {
    case CMT_EXIT_CLEAN:
        return "clean";
    case CMT_EXIT_IMMEDIATE:
        return "exit-immediate";
    case CMT_EXIT_EXEC:
        return "exec";
    }
    return "clean";
}

static char *join_cmdline(const struct cmt_file_header *h) {
    size_t cap = cmt_header_cmdline_cap(h); /* a 2.0 cmdline may run to the header's end */
    size_t n = h->cmdline_len <= cap ? h->cmdline_len : cap;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, (const char *)h + offsetof(struct cmt_file_header, cmdline), n);
    s[n] = 0;
    while (n && !s[n - 1])
        n--;
    for (size_t i = 0; i < n; i++)
        if (!s[i]) s[i] = ' ';
    s[n] = 0;
    return s;
}

static int suppressed(struct cmt_analysis *a, const struct cmt_stack_sym *st, uint64_t bytes) {
    struct cmt_suppression *m = cmt_stack_suppression(a->opts.suppressions, st);
    if (!m) return 0;
    m->leaks++;
    m->bytes += bytes;
    return 1;
}

static int cmp_rleak(const void *x, const void *y) {
    const struct cmt_rleak *a = x, *b = y;
    if (a->leak->bytes != b->leak->bytes) return a->leak->bytes > b->leak->bytes ? -1 : 1;
    if (a->proc != b->proc) return a->proc < b->proc ? -1 : 1;
    return a->leak < b->leak ? -1 : a->leak > b->leak; /* each process' leaks are already ordered */
}

static void fix_cstr(char *s, size_t cap) {
    s[cap - 1] = 0;
}

static int cmp_gpu_proc(const void *x, const void *y) {
    const struct cmt_gpu_proc *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->proc < b->proc ? -1 : a->proc > b->proc;
}

/* The simultaneous peak of GPU g (gpumerge.h: per host, the live series of its processes merged
 * in time; hosts add up). Fills peak_bytes and peak_procs. Returns 0, or -1 out of memory. */
static int merged_peak(struct cmt_analysis *a, struct cmt_gpu *g) {
    struct cmt_gm gm;
    if (cmt_gm_build(a, g->uuid, &gm) != 0) return -1;
    size_t nm = 0;
    for (size_t h = 0; h < gm.nh; h++)
        nm += gm.h[h].nm;
    free(g->peak_procs);
    g->npeak_procs = 0;
    g->peak_procs = calloc(nm + 1, sizeof *g->peak_procs);
    if (!g->peak_procs) {
        cmt_gm_free(&gm);
        return -1;
    }
    g->peak_bytes = cmt_gm_peak(&gm);
    for (size_t h = 0; h < gm.nh; h++)
        for (size_t k = 0; k < gm.h[h].nm; k++)
            if (gm.h[h].peak_live[k])
                g->peak_procs[g->npeak_procs++] = (struct cmt_gpu_proc){gm.h[h].m[k].proc, gm.h[h].peak_live[k]};
    qsort(g->peak_procs, g->npeak_procs, sizeof *g->peak_procs, cmp_gpu_proc);
    cmt_gm_free(&gm);
    return 0;
}

static int build_imbalance(struct cmt_analysis *a) {
    a->outlier = -1;
    for (size_t p = 0; p < a->nprocs; p++) {
        const struct cmt_replay *r = &a->procs[p].replay;
        for (size_t i = 0; i < r->ndevs; i++) {
            const struct cmt_devstate *d = &r->devs[i];
            char u[48];
            if (!cmt_device_uuid(d, u)) continue;
            size_t g = 0;
            while (g < a->ngpus && strcmp(a->gpus[g].uuid, u))
                g++;
            if (g == a->ngpus) {
                struct cmt_gpu *ng = realloc(a->gpus, (a->ngpus + 1) * sizeof *ng);
                if (!ng) return -1;
                a->gpus = ng;
                memset(&ng[g], 0, sizeof ng[g]);
                snprintf(ng[g].uuid, sizeof ng[g].uuid, "%s", u);
                snprintf(ng[g].name, sizeof ng[g].name, "%s", d->name);
                snprintf(ng[g].pci, sizeof ng[g].pci, "%s", d->pci);
                a->ngpus++;
            }
            a->gpus[g].leaked_bytes += d->leaked_bytes;
            a->gpus[g].processes++;
        }
    }
    for (size_t g = 0; g < a->ngpus; g++)
        if (merged_peak(a, &a->gpus[g]) != 0) return -1;
    size_t used = 0, maxi = 0, firstpci = (size_t)-1;
    double sum = 0;
    for (size_t g = 0; g < a->ngpus; g++) {
        if (!a->gpus[g].peak_bytes) continue;
        used++;
        sum += (double)a->gpus[g].peak_bytes;
        if (!used || a->gpus[g].peak_bytes > a->gpus[maxi].peak_bytes || !a->gpus[maxi].peak_bytes) maxi = g;
        if (firstpci == (size_t)-1 || strcmp(a->gpus[g].pci, a->gpus[firstpci].pci) < 0) firstpci = g;
    }
    if (used < 2) {
        a->peak_max_over_mean = 0;
        snprintf(a->verdict, sizeof a->verdict, used ? "one GPU in use: nothing to compare" : "no GPU memory in use");
        return 0;
    }
    double mean = sum / (double)used, ratio = (double)a->gpus[maxi].peak_bytes / mean;
    a->peak_max_over_mean = ratio;
    if (ratio >= CMT_IMBALANCE_OUTLIER) {
        a->outlier = (int)maxi;
        snprintf(a->verdict, sizeof a->verdict, "%s (pci %s) peaks at %.1fx the mean of %zu GPUs: %s",
                 a->gpus[maxi].uuid, a->gpus[maxi].pci[0] ? a->gpus[maxi].pci : "?", ratio, used,
                 maxi == firstpci ? "first-card skew typical of data-parallel training (every rank touching cuda:0)"
                                  : "uneven load: check data sharding and model placement");
    } else
        snprintf(a->verdict, sizeof a->verdict, "balanced: max/mean %.2f across %zu GPUs", ratio, used);
    return 0;
}

/* Leak l of replay r is no leak after all (live now in a running process, or held by a caching
 * allocator): taken out of its device's (or the host's) leaked figures, which the devices table,
 * the JSON devices[], the GPUs and the ranks show, so that they agree with the leaks list. */
static void unleak(struct cmt_replay *r, const struct cmt_leak *l) {
    if (l->device < 0) {
        r->host_leaked -= l->bytes <= r->host_leaked ? l->bytes : r->host_leaked;
        r->host_leaked_allocations -=
            l->allocations <= r->host_leaked_allocations ? l->allocations : r->host_leaked_allocations;
        return;
    }
    for (size_t k = 0; k < r->ndevs; k++) {
        struct cmt_devstate *d = &r->devs[k];
        if (d->ordinal != l->device) continue;
        d->leaked_bytes -= l->bytes <= d->leaked_bytes ? l->bytes : d->leaked_bytes;
        d->leaked_allocations -= l->allocations <= d->leaked_allocations ? l->allocations : d->leaked_allocations;
    }
}

/* A running process's allocation still live: live now, not leaked (the device figures too). */
static void live_now(struct cmt_process *p, const struct cmt_leak *l) {
    p->live_now_bytes += l->bytes;
    p->live_now_allocations += l->allocations;
    unleak(&p->replay, l);
}

/* The analysis' observer when several dumps load: records every GPU live change of the process
 * (cmt_process.series), then tells the caller's observer. */
static void series_observe(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c) {
    struct cmt_process *p = arg;
    if (c->kind == CMT_CHANGE_LIVE && c->device >= 0 && !p->series_lost) {
        struct cmt_live_series *s = NULL;
        for (size_t k = 0; k < p->nseries && !s; k++)
            if (p->series[k].device == c->device) s = &p->series[k];
        if (!s) {
            struct cmt_live_series *ns = realloc(p->series, (p->nseries + 1) * sizeof *ns);
            if (!ns) {
                p->series_lost = 1;
                goto forward;
            }
            p->series = ns;
            s = &ns[p->nseries++];
            memset(s, 0, sizeof *s);
            s->device = c->device;
        }
        if (cmt_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != 0)
            p->series_lost = 1;
        else
            s->v[s->n++] = (struct cmt_live_point){c->time_ns, c->live};
    }
forward:
    if (p->fwd && p->fwd->observer) p->fwd->observer(p->fwd->observer_arg, r, c);
}

static void series_free(struct cmt_process *p) {
    for (size_t k = 0; k < p->nseries; k++)
        free(p->series[k].v);
    free(p->series);
    p->series = NULL;
    p->nseries = 0;
}

/* Reads and replays dump i into a->procs[i] (touches nothing else: safe on several threads).
 * Returns 0, or 3 with *err malloc'd. */
static int load_one(struct cmt_analysis *a, const struct cmt_report_opts *opts, size_t i, const char *path,
                    _Atomic uint64_t *progress, char **err) {
    char ebuf[1024];
    struct cmt_process *p = &a->procs[i];
    struct cmt_dump *d = cmt_dump_open(path, ebuf, sizeof ebuf);
    if (!d) {
        *err = strdup(ebuf);
        return 3;
    }
    if (cmt_replay_init(&p->replay, a->opts.top_n) != 0) {
        cmt_dump_close(d);
        *err = strdup("out of memory");
        return 3;
    }
    p->path = strdup(path);
    p->hdr = *cmt_dump_header(d);
    fix_cstr(p->hdr.host, sizeof p->hdr.host);
    fix_cstr(p->hdr.job_id, sizeof p->hdr.job_id);
    fix_cstr(p->hdr.exe, sizeof p->hdr.exe);
    fix_cstr(p->hdr.cuda_visible_devices, sizeof p->hdr.cuda_visible_devices);
    fix_cstr(p->hdr.cuda_device_order, sizeof p->hdr.cuda_device_order);
    p->command = join_cmdline(&p->hdr);
    if (!cmt_header_has_identity(&p->hdr)) { /* 2.0: those bytes are the end of cmdline */
        p->hdr.proc_start_ticks = 0;
        memset(p->hdr.dump_id, 0, sizeof p->hdr.dump_id);
    }
    p->truncated = cmt_dump_truncated(d);
    p->writers = cmt_dump_writers(d);
    p->blocks = cmt_dump_blocks(d);
    p->replay.observer = opts->observer;
    p->replay.observer_arg = opts->observer_arg;
    p->replay.observer_id = i;
    if (a->nprocs > 1 || opts->gpu_series) { /* record the GPU series, for the simultaneous peaks */
        p->fwd = opts;
        p->replay.observer = series_observe;
        p->replay.observer_arg = p;
    }
    p->replay.progress = progress;
    int rrc = cmt_replay_dump(&p->replay, d);
    if (progress) atomic_fetch_add_explicit(progress, p->replay.events & 0xffff, memory_order_relaxed);
    p->replay.progress = NULL;
    if (rrc != 0) {
        *err = strdup(cmt_dump_error(d));
        cmt_dump_close(d);
        return 3;
    }
    if (p->replay.out_of_memory) {
        snprintf(ebuf, sizeof ebuf,
                 "%s: out of memory while replaying it (%llu records lost): its figures would be wrong", path,
                 (unsigned long long)p->replay.out_of_memory);
        *err = strdup(ebuf);
        cmt_dump_close(d);
        return 3;
    }
    cmt_dump_close(d);
    cmt_replay_trim(&p->replay); /* many dumps: keep only the summaries */
    p->running = !p->replay.have_exit && cmt_dump_running(&p->hdr);
    p->exit = p->running ? "running" : exit_name(&p->replay);
    return 0;
}

struct loader {
    struct cmt_analysis *a;
    const struct cmt_report_opts *opts;
    char **paths, **errs;
    size_t n;
    _Atomic size_t next;
    _Atomic size_t read;     /* dumps done */
    _Atomic uint64_t events; /* replayed so far (for the progress line) */
    _Atomic int finished;
};

/* ---------------------------------------------------------------- progress */

static double seconds_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static const char *count_text(double v, char *buf, size_t cap) {
    if (v < 10000)
        snprintf(buf, cap, "%.0f", v);
    else if (v < 10e6)
        snprintf(buf, cap, "%.1fk", v / 1e3);
    else
        snprintf(buf, cap, "%.1fM", v / 1e6);
    return buf;
}

/* The progress line, rewritten in place every half second once the load has taken a second;
 * erased at the end so that what follows on the terminal starts on a clean line. */
static void *progress_worker(void *arg) {
    struct loader *L = arg;
    FILE *f = L->opts->progress;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double next = 1.0;
    int shown = 0;
    while (!atomic_load(&L->finished)) {
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
        double el = seconds_since(&t0);
        if (el < next || atomic_load(&L->finished)) continue;
        next = el + 0.5;
        double ev = (double)atomic_load_explicit(&L->events, memory_order_relaxed);
        char b1[32], b2[32];
        fprintf(f, "\rcumemtrack: %zu/%zu dumps read, %s events replayed (%s events/s)\033[K", atomic_load(&L->read),
                L->n, count_text(ev, b1, sizeof b1), count_text(ev / el, b2, sizeof b2));
        fflush(f);
        shown = 1;
    }
    if (shown) {
        fputs("\r\033[K", f);
        fflush(f);
    }
    return NULL;
}

static void *load_worker(void *arg) {
    struct loader *L = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&L->next, 1);
        if (i >= L->n) break;
        if (load_one(L->a, L->opts, i, L->paths[i], L->opts->progress ? &L->events : NULL, &L->errs[i]) != 0 &&
            !L->errs[i])
            L->errs[i] = strdup("out of memory");
        atomic_fetch_add(&L->read, 1);
    }
    return NULL;
}

/* Replays every dump; each process is independent, so they are spread over threads
 * (CUMEMTRACK_THREADS, default: the online CPUs, at most 8; one when the observer wants the
 * records in order). A dump that fails is left out (unreadable[]); 3 when none could be read. */
static int load_all(struct cmt_analysis *a, const struct cmt_report_opts *opts, char **paths, size_t npaths) {
    struct loader L = {.a = a, .opts = opts, .paths = paths, .n = npaths};
    a->nprocs = npaths; /* unloaded entries stay zeroed: cmt_analysis_free copes */
    L.errs = calloc(npaths ? npaths : 1, sizeof *L.errs);
    if (!L.errs) {
        snprintf(a->err, sizeof a->err, "out of memory");
        return 3;
    }
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    const char *e = getenv("CUMEMTRACK_THREADS");
    if (e && *e) nt = strtol(e, NULL, 10);
    if (nt > 8 && !(e && *e)) nt = 8;
    if (nt < 1 || opts->observe_in_order) nt = 1;
    if ((size_t)nt > npaths) nt = (long)(npaths ? npaths : 1);
    pthread_t *th = nt > 1 ? calloc((size_t)nt - 1, sizeof *th) : NULL, pth;
    int progress = opts->progress && pthread_create(&pth, NULL, progress_worker, &L) == 0;
    long started = 0;
    for (long t = 0; th && t < nt - 1; t++)
        if (pthread_create(&th[t], NULL, load_worker, &L) == 0) started++;
    load_worker(&L);
    for (long t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(th);
    atomic_store(&L.finished, 1);
    if (progress) pthread_join(pth, NULL);
    /* the dumps that failed go to unreadable[]; the others close ranks, in argument order */
    int rc = 0;
    size_t nbad = 0, kept = 0;
    for (size_t i = 0; i < npaths; i++)
        nbad += L.errs[i] != NULL;
    a->unreadable = calloc(nbad + 1, sizeof *a->unreadable);
    if (!a->unreadable) rc = 3;
    for (size_t i = 0; i < npaths; i++) {
        struct cmt_process *p = &a->procs[i];
        if (!L.errs[i]) {
            if (kept != i) a->procs[kept] = *p;
            a->procs[kept++].input = i;
            continue;
        }
        if (!a->nunreadable) snprintf(a->err, sizeof a->err, "%s", L.errs[i]);
        if (a->unreadable) {
            struct cmt_unreadable *u = &a->unreadable[a->nunreadable++];
            u->path = strdup(paths[i]);
            u->offset = -1;
            const char *why = L.errs[i];
            size_t pl = strlen(paths[i]);
            if (!strncmp(why, paths[i], pl) && !strncmp(why + pl, ": ", 2)) why += pl + 2;
            if (!strncmp(why, "offset ", 7)) {
                char *end;
                unsigned long long off = strtoull(why + 7, &end, 10);
                if (end != why + 7) {
                    u->offset = (int64_t)off;
                    why = end;
                    if (*why == ' ') why++;
                    if (*why == ':') why++;
                    if (*why == ' ') why++;
                }
            }
            u->reason = strdup(why);
            if (!u->path || !u->reason) rc = 3;
        }
        free(p->path);
        free(p->command);
        series_free(p);
        cmt_replay_free(&p->replay);
        memset(p, 0, sizeof *p);
    }
    a->nprocs = kept;
    a->anomalies[CMT_AN_UNREADABLE_DUMPS] = a->nunreadable;
    if (rc) snprintf(a->err, sizeof a->err, "out of memory");
    if (!kept && npaths) rc = 3; /* a->err: the first failure */
    for (size_t i = 0; i < npaths; i++)
        free(L.errs[i]);
    free(L.errs);
    return rc;
}

/* One row per (process, device) with imported memory, in first-import order. */
static int build_imported(struct cmt_analysis *a) {
    size_t cap = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        size_t first = a->nimported;
        for (size_t k = 0; k < r->nimported; k++) {
            const struct cmt_imported *m = &r->imported[k];
            struct cmt_imported_row *row = NULL;
            for (size_t x = first; x < a->nimported && !row; x++)
                if (a->imported[x].device == m->device) row = &a->imported[x];
            if (!row) {
                if (cmt_grow((void **)&a->imported, &cap, a->nimported + 1, sizeof *a->imported) != 0) return -1;
                row = &a->imported[a->nimported++];
                *row = (struct cmt_imported_row){.proc = i, .device = m->device};
            }
            row->imports++;
            if (m->open) {
                row->open++;
                row->open_bytes += m->bytes;
            }
        }
    }
    return 0;
}

const char *const cmt_note_kind_names[CMT_NOTE_KIND_COUNT] = {"python_frames_off", "python_walk_failed"};

int cmt_analysis_load(struct cmt_analysis *a, const struct cmt_report_opts *opts, char **paths, size_t npaths) {
    memset(a, 0, sizeof *a);
    a->opts = *opts;
    if (!a->opts.top_n) a->opts.top_n = 10;
    a->outlier = -1;
    a->sym = cmt_sym_new(!opts->no_symbols, opts->debug_dir);
    a->procs = calloc(npaths ? npaths : 1, sizeof *a->procs);
    if (!a->sym || !a->procs) {
        snprintf(a->err, sizeof a->err, "out of memory");
        return 3;
    }
    if (opts->observer_begin && opts->observer_begin(opts->observer_arg, npaths) != 0) {
        snprintf(a->err, sizeof a->err, "out of memory");
        return 3;
    }
    if (load_all(a, opts, paths, npaths) != 0) return 3;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        const struct cmt_replay *r = &p->replay;
        /* a free whose allocation was among the dropped events reads as a second free: with events
         * missing, a double free cannot be told from an unknown free */
        int dropped = p->hdr.counters[CMT_CTR_DROPPED_EVENTS] != 0;
        for (int k = 0; k < CMT_AN_COUNT; k++)
            a->anomalies[dropped && k == CMT_AN_DOUBLE_FREE ? CMT_AN_UNKNOWN_FREE : k] += r->anomalies[k];
        a->anomalies[CMT_AN_DROPPED_EVENTS] += p->hdr.counters[CMT_CTR_DROPPED_EVENTS];
        a->anomalies[CMT_AN_DROPPED_STACKS] += p->hdr.counters[CMT_CTR_DROPPED_STACKS];
#define CMT_TABLE_COUNTED(id, ctr, what)                                                                               \
    a->table_full[id] += p->hdr.counters[CMT_CTR_##ctr];                                                               \
    a->anomalies[CMT_AN_TABLE_FULL] += p->hdr.counters[CMT_CTR_##ctr];
        CMT_TABLES(CMT_TABLE_COUNTED)
#undef CMT_TABLE_COUNTED
        uint64_t um = p->hdr.counters[CMT_CTR_UNMATCHED_PROC];
        a->anomalies[CMT_AN_UNMATCHED_PROC] += um > r->unmatched_records ? um : r->unmatched_records;
        a->anomalies[CMT_AN_TRUNCATED_DUMPS] += (uint64_t)p->truncated;
        a->anomalies[CMT_AN_DIED_PROCESSES] += !r->have_exit && !p->running;
        a->anomalies[CMT_AN_RUNNING_PROCESSES] += (uint64_t)p->running;
        a->nooms += r->nooms;
    }
    /* leaks: symbolize, suppress, sort */
    size_t total = 0;
    for (size_t i = 0; i < a->nprocs; i++)
        total += a->procs[i].replay.nleaks;
    a->leaks = calloc(total ? total : 1, sizeof *a->leaks);
    a->cached = calloc(total ? total : 1, sizeof *a->cached);
    if (!a->leaks || !a->cached || cmt_caching_builtin(&a->builtin_caching) != 0) {
        snprintf(a->err, sizeof a->err, "out of memory");
        return 3;
    }
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nleaks; k++) {
            const struct cmt_leak *l = &r->leaks[k];
            if (a->procs[i].running && l->at == CMT_AT_DIED) { /* live now, not leaked */
                live_now(&a->procs[i], l);
                continue;
            }
            struct cmt_rleak *rl = &a->leaks[a->nleaks];
            rl->proc = i;
            rl->leak = l;
            rl->stack = cmt_analysis_stack(a, i, l->stack);
            if (suppressed(a, &rl->stack, l->bytes)) { /* known: in no leak figure, the devices' too */
                unleak(&a->procs[i].replay, l);
                a->suppressed_bytes += l->bytes;
                cmt_stack_sym_free(&rl->stack);
                continue;
            }
            char ubuf[48];
            if (cmt_replay_uuid(r, l->device, ubuf)) rl->uuid = strdup(ubuf);
            rl->allocator = cmt_caching_match(a->opts.caching, &a->builtin_caching, rl->stack.frames, rl->stack.n);
            if (rl->allocator) { /* the allocator's cache: not leaked, in no leak figure */
                unleak(&a->procs[i].replay, l);
                a->cached[a->ncached++] = *rl;
                memset(rl, 0, sizeof *rl);
                a->cached_bytes += l->bytes;
                a->cached_allocations += l->allocations;
                continue;
            }
            a->leaked_bytes += l->bytes;
            a->leaked_allocations += l->allocations;
            a->nleaks++;
        }
    }
    size_t ndevs = 0;
    for (size_t i = 0; i < a->nprocs; i++)
        ndevs += a->procs[i].replay.ndevs;
    a->peaks = calloc(ndevs + 1, sizeof *a->peaks);
    if (!a->peaks) a->out_of_memory++;
    for (size_t i = 0; a->peaks && i < a->nprocs; i++)
        for (size_t k = 0; k < a->procs[i].replay.ndevs; k++)
            if (a->procs[i].replay.devs[k].peak)
                a->peaks[a->npeaks++] = (struct cmt_peak){i, &a->procs[i].replay.devs[k]};
    if (a->out_of_memory) {
        snprintf(a->err, sizeof a->err, "out of memory while symbolizing the leaks");
        return 3;
    }
    if (a->nleaks > 1) qsort(a->leaks, a->nleaks, sizeof *a->leaks, cmp_rleak);
    if (a->ncached > 1) qsort(a->cached, a->ncached, sizeof *a->cached, cmp_rleak);
    if (build_imbalance(a) != 0 || cmt_ranks_build(a) != 0 || build_imported(a) != 0 || cmt_notes_build(a) != 0 ||
        cmt_tests_build(a) != 0) {
        snprintf(a->err, sizeof a->err, "out of memory");
        return 3;
    }
    return 0;
}

void cmt_analysis_free(struct cmt_analysis *a) {
    for (size_t i = 0; i < a->nleaks; i++) {
        cmt_stack_sym_free(&a->leaks[i].stack);
        free((char *)a->leaks[i].uuid);
    }
    free(a->leaks);
    for (size_t i = 0; i < a->ncached; i++) {
        cmt_stack_sym_free(&a->cached[i].stack);
        free((char *)a->cached[i].uuid);
    }
    free(a->cached);
    cmt_tests_view_free(a);
    cmt_caching_free(&a->builtin_caching);
    for (size_t i = 0; i < a->nprocs; i++) {
        free(a->procs[i].path);
        free(a->procs[i].command);
        series_free(&a->procs[i]);
        cmt_replay_free(&a->procs[i].replay);
    }
    free(a->procs);
    for (size_t i = 0; i < a->nunreadable; i++) {
        free(a->unreadable[i].path);
        free(a->unreadable[i].reason);
    }
    free(a->unreadable);
    for (size_t g = 0; g < a->ngpus; g++)
        free(a->gpus[g].peak_procs);
    free(a->gpus);
    free(a->peaks);
    free(a->imported);
    for (size_t k = 0; k < a->nnotes; k++)
        free(a->notes[k].procs);
    free(a->notes);
    cmt_ranks_free(a->ranks);
    cmt_sym_free(a->sym);
    memset(a, 0, sizeof *a);
}

uint64_t cmt_analysis_anomalies(const struct cmt_analysis *a) {
    uint64_t n = 0;
    for (int k = 0; k < CMT_AN_COUNT; k++)
        if (k != CMT_AN_CAPTURED_ALLOCATIONS) n += a->anomalies[k];
    return n;
}

double cmt_growth_max(const struct cmt_analysis *a, size_t *proc, size_t *index) {
    double best = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        if (r->marks.ngrowth && r->marks.growth[0].bytes_per_marker > best) {
            best = r->marks.growth[0].bytes_per_marker;
            if (proc) *proc = i;
            if (index) *index = 0;
        }
    }
    return best;
}
