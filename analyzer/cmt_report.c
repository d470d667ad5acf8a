/*
 * cmt_report.c — loads dumps into a cmt_analysis and writes the text and JSON reports. See
 * cmt_report.h and docs/report-schema.json.
 */
#include "cmt_report.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "cmt_cmds.h"
#include "cmt_json.h"

/* ---------------------------------------------------------------- paths */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int push(char ***v, size_t *n, size_t *cap, char *s) {
    if (!s) return -1;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            free(s);
            return -1;
        }
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = s;
    return 0;
}

int cmt_expand_paths(char **args, int nargs, char ***paths, size_t *npaths, char *err, size_t errlen) {
    char **v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            snprintf(err, errlen, "%s: %s", args[i], strerror(errno));
            goto fail;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (push(&v, &n, &cap, strdup(args[i])) != 0) goto oom;
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            snprintf(err, errlen, "%s: %s", args[i], strerror(errno));
            goto fail;
        }
        size_t start = n;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strstr(de->d_name, ".cmt")) continue;
            size_t len = strlen(args[i]) + strlen(de->d_name) + 2;
            char *p = malloc(len);
            if (!p) {
                closedir(d);
                goto oom;
            }
            snprintf(p, len, "%s/%s", args[i], de->d_name);
            struct stat fs;
            if (stat(p, &fs) != 0 || !S_ISREG(fs.st_mode)) {
                free(p);
                continue;
            }
            if (push(&v, &n, &cap, p) != 0) {
                closedir(d);
                goto oom;
            }
        }
        closedir(d);
        if (n == start) {
            snprintf(err, errlen, "%s: no dump files (*.cmt*) in this directory", args[i]);
            goto fail;
        }
        qsort(v + start, n - start, sizeof *v, cmp_str);
    }
    *paths = v;
    *npaths = n;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    cmt_free_paths(v, n);
    return -1;
}

void cmt_free_paths(char **paths, size_t n) {
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
}

/* ---------------------------------------------------------------- helpers */

const char *cmt_human_size(uint64_t b, char *buf, size_t cap) {
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (b < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)b);
        return buf;
    }
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 5) {
        v /= 1024;
        i++;
    }
    snprintf(buf, cap, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, u[i]);
    return buf;
}

int cmt_parse_size(const char *s, uint64_t *out) {
    if (!s || !isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    uint64_t m = 1;
    if (*end) {
        char c = (char)toupper((unsigned char)*end);
        if (c == 'B' && !end[1]) m = 1;
        else {
            if (c == 'K') m = 1ull << 10;
            else if (c == 'M') m = 1ull << 20;
            else if (c == 'G') m = 1ull << 30;
            else if (c == 'T') m = 1ull << 40;
            else return -1;
            const char *r = end + 1;
            if (*r && strcmp(r, "iB") && strcmp(r, "B") && strcmp(r, "ib")) return -1;
        }
    }
    if (m > 1 && v > UINT64_MAX / m) return -1;
    *out = (uint64_t)v * m;
    return 0;
}

const char *cmt_anomaly_hint(int an) {
    switch (an) {
    case CMT_AN_UNKNOWN_FREE: return "frees of pointers never seen allocated: allocated before tracing started or by an untracked path";
    case CMT_AN_DOUBLE_FREE: return "the same pointer freed twice without a new allocation in between: a bug in the program";
    case CMT_AN_FAILED_FREE: return "the driver refused a free; the pointer stayed allocated";
    case CMT_AN_FAILED_CALLS: return "allocation calls that failed with an error other than out-of-memory";
    case CMT_AN_DROPPED_EVENTS: return "disk full or size limit: set CUMEMTRACK_OUTPUT to a larger filesystem";
    case CMT_AN_DROPPED_STACKS: return "stack table full or out of memory: some leaks show no stack; lower CUMEMTRACK_DEPTH";
    case CMT_AN_TABLE_FULL: return "the tracker's pointer table was full: those allocations were not tracked";
    case CMT_AN_TRUNCATED_DUMPS: return "a dump ends inside a block: copied while written, or the filesystem filled up";
    case CMT_AN_DIED_PROCESSES: return "killed before exit (signal, OOM killer, kill -9): leaks are what was live when it died";
    case CMT_AN_UNMATCHED_PROC: return "cuGetProcAddress entry points passed through untracked: the CUDA version is newer than the tracer";
    case CMT_AN_CAPTURED_ALLOCATIONS: return "allocations made during stream capture (graph nodes): never counted as live";
    }
    return "";
}

/* ---------------------------------------------------------------- stacks */

struct cmt_stack_sym cmt_analysis_stack(struct cmt_analysis *a, size_t proc, uint64_t id) {
    struct cmt_stack_sym r = {0, NULL};
    const struct cmt_replay *rp = &a->procs[proc].replay;
    const struct cmt_stack *st = id ? cmt_replay_stack(rp, id) : NULL;
    if (!st || !st->nframes) return r;
    size_t cap = (size_t)st->nframes * 2 + 8;
    r.frames = calloc(cap, sizeof *r.frames);
    if (!r.frames) return r;
    for (uint32_t i = 0; i < st->nframes; i++) {
        struct cmt_sym_frame f[CMT_SYM_MAX_INLINE];
        size_t n = cmt_sym_resolve(a->sym, rp->mods, rp->nmods, st->frames[i], f, CMT_SYM_MAX_INLINE);
        if (r.n + n > cap) {
            size_t nc = (r.n + n) * 2;
            struct cmt_sym_frame *nf = realloc(r.frames, nc * sizeof *nf);
            if (!nf) break;
            r.frames = nf;
            cap = nc;
        }
        memcpy(r.frames + r.n, f, n * sizeof *f);
        r.n += n;
    }
    return r;
}

void cmt_stack_sym_free(struct cmt_stack_sym *s) {
    free(s->frames);
    s->frames = NULL;
    s->n = 0;
}

char *cmt_stack_chain(const struct cmt_stack_sym *s) {
    size_t cap = 64, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = 0;
    for (size_t i = 0; i < s->n; i++) {
        char part[512];
        const struct cmt_sym_frame *f = &s->frames[i];
        if (f->function) snprintf(part, sizeof part, "%s", f->function);
        else {
            const char *b = strrchr(f->module, '/');
            snprintf(part, sizeof part, "%s+0x%llx", b ? b + 1 : f->module, (unsigned long long)f->offset);
        }
        size_t pl = strlen(part) + 1;
        if (len + pl + 1 > cap) {
            while (len + pl + 1 > cap) cap *= 2;
            char *no = realloc(out, cap);
            if (!no) break;
            out = no;
        }
        if (len) out[len++] = ';';
        memcpy(out + len, part, pl);
        len += pl - 1;
    }
    return out;
}

/* ---------------------------------------------------------------- loading */

static const char *exit_name(const struct cmt_replay *r) {
    if (!r->have_exit) return "died";
    switch (r->exit_how) {
    case CMT_EXIT_CLEAN: return "clean";
    case CMT_EXIT_IMMEDIATE: return "exit-immediate";
    case CMT_EXIT_EXEC: return "exec";
    }
    return "clean";
}

static char *join_cmdline(const struct cmt_file_header *h) {
    size_t n = h->cmdline_len <= sizeof h->cmdline ? h->cmdline_len : sizeof h->cmdline;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, h->cmdline, n);
    s[n] = 0;
    while (n && !s[n - 1]) n--;
    for (size_t i = 0; i < n; i++)
        if (!s[i]) s[i] = ' ';
    s[n] = 0;
    return s;
}

static int suppressed(struct cmt_analysis *a, const struct cmt_stack_sym *st, uint64_t bytes) {
    struct cmt_suppressions *s = a->opts.suppressions;
    if (!s) return 0;
    for (size_t k = 0; k < s->n; k++) {
        const char *p = s->v[k].pattern;
        for (size_t i = 0; i < st->n; i++) {
            const struct cmt_sym_frame *f = &st->frames[i];
            if (cmt_suppress_match(p, f->function) || cmt_suppress_match(p, f->file) || cmt_suppress_match(p, f->module)) {
                s->v[k].leaks++;
                s->v[k].bytes += bytes;
                return 1;
            }
        }
    }
    return 0;
}

static int cmp_rleak(const void *x, const void *y) {
    const struct cmt_rleak *a = x, *b = y;
    if (a->leak->bytes != b->leak->bytes) return a->leak->bytes > b->leak->bytes ? -1 : 1;
    if (a->proc != b->proc) return a->proc < b->proc ? -1 : 1;
    return a->leak < b->leak ? -1 : a->leak > b->leak; /* each process' leaks are already ordered */
}

static void fix_cstr(char *s, size_t cap) { s[cap - 1] = 0; }

static void build_imbalance(struct cmt_analysis *a) {
    a->outlier = -1;
    for (size_t p = 0; p < a->nprocs; p++) {
        const struct cmt_replay *r = &a->procs[p].replay;
        for (size_t i = 0; i < r->ndevs; i++) {
            const struct cmt_devstate *d = &r->devs[i];
            if (!d->has_info) continue;
            char u[48];
            cmt_uuid_format(d->uuid, u);
            size_t g = 0;
            while (g < a->ngpus && strcmp(a->gpus[g].uuid, u)) g++;
            if (g == a->ngpus) {
                struct cmt_gpu *ng = realloc(a->gpus, (a->ngpus + 1) * sizeof *ng);
                if (!ng) return;
                a->gpus = ng;
                memset(&ng[g], 0, sizeof ng[g]);
                snprintf(ng[g].uuid, sizeof ng[g].uuid, "%s", u);
                snprintf(ng[g].name, sizeof ng[g].name, "%s", d->name);
                snprintf(ng[g].pci, sizeof ng[g].pci, "%s", d->pci);
                a->ngpus++;
            }
            a->gpus[g].peak_bytes += d->peak;
            a->gpus[g].leaked_bytes += d->leaked_bytes;
            a->gpus[g].processes++;
        }
    }
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
        return;
    }
    double mean = sum / (double)used, ratio = (double)a->gpus[maxi].peak_bytes / mean;
    a->peak_max_over_mean = ratio;
    if (ratio >= 1.2) {
        a->outlier = (int)maxi;
        snprintf(a->verdict, sizeof a->verdict, "%s (pci %s) peaks at %.1fx the mean of %zu GPUs: %s", a->gpus[maxi].uuid,
                 a->gpus[maxi].pci[0] ? a->gpus[maxi].pci : "?", ratio, used,
                 maxi == firstpci ? "first-card skew typical of data-parallel training (every rank touching cuda:0)"
                                  : "uneven load: check data sharding and model placement");
    } else
        snprintf(a->verdict, sizeof a->verdict, "balanced: max/mean %.2f across %zu GPUs", ratio, used);
}

/* Reads and replays dump i into a->procs[i] (touches nothing else: safe on several threads).
 * Returns 0, or 3 with *err malloc'd. */
static int load_one(struct cmt_analysis *a, const struct cmt_report_opts *opts, size_t i, const char *path, char **err) {
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
    p->truncated = cmt_dump_truncated(d);
    p->writers = cmt_dump_writers(d);
    p->blocks = cmt_dump_blocks(d);
    p->replay.hook = opts->hook;
    p->replay.hook_arg = opts->hook_arg;
    if (cmt_replay_dump(&p->replay, d) != 0) {
        *err = strdup(cmt_dump_error(d));
        cmt_dump_close(d);
        return 3;
    }
    cmt_dump_close(d);
    cmt_replay_trim(&p->replay); /* many dumps: keep only the summaries */
    p->exit = exit_name(&p->replay);
    return 0;
}

struct loader {
    struct cmt_analysis *a;
    const struct cmt_report_opts *opts;
    char **paths, **errs;
    size_t n;
    _Atomic size_t next;
    _Atomic int failed;
};

static void *load_worker(void *arg) {
    struct loader *L = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&L->next, 1);
        if (i >= L->n || atomic_load(&L->failed)) break;
        if (load_one(L->a, L->opts, i, L->paths[i], &L->errs[i]) != 0) {
            if (!L->errs[i]) L->errs[i] = strdup("out of memory");
            atomic_store(&L->failed, 1);
        }
    }
    return NULL;
}

/* Replays every dump; each process is independent, so they are spread over threads
 * (CUMEMTRACK_THREADS, default: the online CPUs, at most 8; one when a per-event hook is set).
 * The first failing path in argument order is reported. */
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
    if (nt < 1 || opts->hook) nt = 1;
    if ((size_t)nt > npaths) nt = (long)(npaths ? npaths : 1);
    pthread_t *th = nt > 1 ? calloc((size_t)nt - 1, sizeof *th) : NULL;
    long started = 0;
    for (long t = 0; th && t < nt - 1; t++)
        if (pthread_create(&th[t], NULL, load_worker, &L) == 0) started++;
    load_worker(&L);
    for (long t = 0; t < started; t++) pthread_join(th[t], NULL);
    free(th);
    int rc = 0;
    for (size_t i = 0; i < npaths; i++)
        if (L.errs[i] && !rc) {
            snprintf(a->err, sizeof a->err, "%s", L.errs[i]);
            rc = 3;
        }
    for (size_t i = 0; i < npaths; i++) free(L.errs[i]);
    free(L.errs);
    return rc;
}

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
    if (load_all(a, opts, paths, npaths) != 0) return 3;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        const struct cmt_replay *r = &p->replay;
        for (int k = 0; k < CMT_AN_COUNT; k++) a->anomalies[k] += r->anomalies[k];
        a->anomalies[CMT_AN_DROPPED_EVENTS] += p->hdr.counters[CMT_CTR_DROPPED_EVENTS];
        a->anomalies[CMT_AN_DROPPED_STACKS] += p->hdr.counters[CMT_CTR_DROPPED_STACKS];
        a->anomalies[CMT_AN_TABLE_FULL] += p->hdr.counters[CMT_CTR_TABLE_FULL] +
                                           p->hdr.counters[CMT_CTR_CTX_TABLE_FULL] +
                                           p->hdr.counters[CMT_CTR_POOL_TABLE_FULL] +
                                           p->hdr.counters[CMT_CTR_VMM_UNDO_FULL];
        uint64_t um = p->hdr.counters[CMT_CTR_UNMATCHED_PROC];
        a->anomalies[CMT_AN_UNMATCHED_PROC] += um > r->unmatched_records ? um : r->unmatched_records;
        a->anomalies[CMT_AN_TRUNCATED_DUMPS] += (uint64_t)p->truncated;
        a->anomalies[CMT_AN_DIED_PROCESSES] += !r->have_exit;
        a->nooms += r->nooms;
    }
    /* leaks: symbolize, suppress, sort */
    size_t total = 0;
    for (size_t i = 0; i < a->nprocs; i++) total += a->procs[i].replay.nleaks;
    a->leaks = calloc(total ? total : 1, sizeof *a->leaks);
    if (!a->leaks) {
        snprintf(a->err, sizeof a->err, "out of memory");
        return 3;
    }
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nleaks; k++) {
            const struct cmt_leak *l = &r->leaks[k];
            struct cmt_rleak *rl = &a->leaks[a->nleaks];
            rl->proc = i;
            rl->leak = l;
            rl->stack = cmt_analysis_stack(a, i, l->stack);
            if (suppressed(a, &rl->stack, l->bytes)) {
                a->suppressed_bytes += l->bytes;
                cmt_stack_sym_free(&rl->stack);
                continue;
            }
            const struct cmt_devstate *d = l->device >= 0 ? cmt_replay_device(r, l->device) : NULL;
            if (d && d->has_info) {
                char ubuf[48];
                cmt_uuid_format(d->uuid, ubuf);
                rl->uuid = strdup(ubuf);
            }
            a->leaked_bytes += l->bytes;
            a->leaked_allocations += l->allocations;
            a->nleaks++;
        }
    }
    if (a->nleaks > 1) qsort(a->leaks, a->nleaks, sizeof *a->leaks, cmp_rleak);
    build_imbalance(a);
    if (cmt_ranks_build(a) != 0) {
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
    for (size_t i = 0; i < a->nprocs; i++) {
        free(a->procs[i].path);
        free(a->procs[i].command);
        cmt_replay_free(&a->procs[i].replay);
    }
    free(a->procs);
    free(a->gpus);
    cmt_ranks_free(a->ranks);
    cmt_sym_free(a->sym);
    memset(a, 0, sizeof *a);
}

/* ---------------------------------------------------------------- text */

static uint64_t total_anomalies(const struct cmt_analysis *a) {
    uint64_t n = 0;
    for (int k = 0; k < CMT_AN_COUNT; k++)
        if (k != CMT_AN_CAPTURED_ALLOCATIONS) n += a->anomalies[k];
    return n;
}

static void text_frames(FILE *f, const struct cmt_stack_sym *s, const char *indent) {
    if (!s->n) {
        fprintf(f, "%s(no stack recorded)\n", indent);
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct cmt_sym_frame *fr = &s->frames[i];
        const char *b = strrchr(fr->module, '/');
        b = b ? b + 1 : fr->module;
        if (fr->function && fr->file)
            fprintf(f, "%s%s %s:%d%s\n", indent, fr->function, fr->file, fr->line, fr->inlined ? " (inlined)" : "");
        else if (fr->function)
            fprintf(f, "%s%s (%s+0x%llx)\n", indent, fr->function, b, (unsigned long long)fr->offset);
        else
            fprintf(f, "%s%s+0x%llx\n", indent, b, (unsigned long long)fr->offset);
    }
}

static double rel_s(const struct cmt_process *p, int64_t t) {
    return (double)(t - p->hdr.start_clock_ns) / 1e9;
}

static const char *dev_uuid(const struct cmt_replay *r, int64_t dev, char *buf) {
    const struct cmt_devstate *d = dev >= 0 ? cmt_replay_device(r, dev) : NULL;
    if (!d || !d->has_info) return NULL;
    cmt_uuid_format(d->uuid, buf);
    return buf;
}

void cmt_report_text(struct cmt_analysis *a, FILE *f) {
    char b1[32], b2[32], b3[32], u[48];
    size_t top = a->opts.top_n;
    fprintf(f, "cumemtrack: %s leaked at %zu site%s in %zu process%s, %zu OOM%s, %llu anomal%s\n",
            cmt_human_size(a->leaked_bytes, b1, sizeof b1), a->nleaks, a->nleaks == 1 ? "" : "s", a->nprocs,
            a->nprocs == 1 ? "" : "es", a->nooms, a->nooms == 1 ? "" : "s", (unsigned long long)total_anomalies(a),
            total_anomalies(a) == 1 ? "y" : "ies");
    fprintf(f, "\nprocesses\n");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        fprintf(f, "  pid %u", p->hdr.pid);
        if (p->hdr.rank >= 0) fprintf(f, " rank %d", p->hdr.rank);
        fprintf(f, " on %s, exit %s%s: %s\n", p->hdr.host[0] ? p->hdr.host : "?", p->exit, p->truncated ? " (truncated dump)" : "",
                p->command && p->command[0] ? p->command : "?");
    }
    fprintf(f, "\ndevices\n  %-7s %-4s %-40s %-14s %10s %10s %7s %7s  %s\n", "PID", "DEV", "UUID", "PCI", "PEAK", "LEAKED", "ALLOCS",
            "FREES", "NAME");
    int anydev = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            if (!d->allocations && !d->peak && !d->leaked_bytes) continue; /* idle: JSON lists it */
            anydev = 1;
            fprintf(f, "  %-7u %-4lld %-40s %-14s %10s %10s %7llu %7llu  %s\n", a->procs[i].hdr.pid, (long long)d->ordinal,
                    d->has_info ? (cmt_uuid_format(d->uuid, u), u) : "?", d->pci[0] ? d->pci : "?",
                    cmt_human_size(d->peak, b1, sizeof b1), cmt_human_size(d->leaked_bytes, b2, sizeof b2),
                    (unsigned long long)d->allocations, (unsigned long long)d->frees, d->name[0] ? d->name : "?");
        }
        if (r->host_peak || r->host_leaked)
            fprintf(f, "  %-7u %-4s %-40s %-14s %10s %10s %7llu %7llu  %s\n", a->procs[i].hdr.pid, "host", "-", "-",
                    cmt_human_size(r->host_peak, b1, sizeof b1), cmt_human_size(r->host_leaked, b2, sizeof b2),
                    (unsigned long long)r->host_allocations, (unsigned long long)r->host_frees, "pinned/registered host memory");
    }
    if (!anydev) fprintf(f, "  (no device memory recorded)\n");
    int anyimp = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nimported; k++) {
            int64_t dev = r->imported[k].device;
            size_t first = 0;
            while (r->imported[first].device != dev) first++;
            if (first < k) continue; /* this device was printed */
            uint64_t n = 0, open = 0, bytes = 0;
            for (size_t m = k; m < r->nimported; m++)
                if (r->imported[m].device == dev) {
                    n++;
                    if (r->imported[m].open) {
                        open++;
                        bytes += r->imported[m].bytes;
                    }
                }
            if (!anyimp++)
                fprintf(f, "\nimported (another process's memory mapped here; not in this process's leaks or peaks)\n"
                           "  %-7s %-4s %8s %8s %12s\n", "PID", "DEV", "IMPORTS", "OPEN", "OPEN-BYTES");
            fprintf(f, "  %-7u %-4lld %8llu %8llu %12s\n", a->procs[i].hdr.pid, (long long)dev, (unsigned long long)n,
                    (unsigned long long)open, cmt_human_size(bytes, b1, sizeof b1));
        }
    }
    if (a->nleaks) {
        fprintf(f, "\nleaks (top %zu of %zu)\n", a->nleaks < top ? a->nleaks : top, a->nleaks);
        for (size_t i = 0; i < a->nleaks && i < top; i++) {
            const struct cmt_rleak *l = &a->leaks[i];
            const char *kn = cmt_kind_name(l->leak->kind);
            fprintf(f, "  #%zu %s in %llu allocation%s (%s) on ", i + 1, cmt_human_size(l->leak->bytes, b1, sizeof b1),
                    (unsigned long long)l->leak->allocations, l->leak->allocations == 1 ? "" : "s", kn ? kn : "?");
            if (l->leak->device >= 0) fprintf(f, "device %lld%s%s%s", (long long)l->leak->device, l->uuid ? " (" : "", l->uuid ? l->uuid : "", l->uuid ? ")" : "");
            else fprintf(f, "host");
            fprintf(f, ", pid %u, live %s\n", a->procs[l->proc].hdr.pid,
                    l->leak->at == CMT_AT_DIED ? "when it died" : l->leak->at == CMT_AT_TEARDOWN ? "at context teardown" : "at exit");
            text_frames(f, &l->stack, "      ");
        }
    } else
        fprintf(f, "\nleaks: none\n");
    int anypeak = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            if (!d->peak) continue;
            if (!anypeak++) fprintf(f, "\npeaks\n");
            fprintf(f, "  pid %u device %lld: %s at t=%.6fs\n", a->procs[i].hdr.pid, (long long)d->ordinal,
                    cmt_human_size(d->peak, b1, sizeof b1), rel_s(&a->procs[i], d->peak_time));
            for (size_t s = 0; s < d->npeak_top && s < top; s++) {
                fprintf(f, "    %s in %llu allocation%s\n", cmt_human_size(d->peak_top[s].bytes, b1, sizeof b1),
                        (unsigned long long)d->peak_top[s].allocations, d->peak_top[s].allocations == 1 ? "" : "s");
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, d->peak_top[s].stack);
                text_frames(f, &st, "        ");
                cmt_stack_sym_free(&st);
            }
        }
    }
    if (a->nooms) {
        fprintf(f, "\nout-of-memory errors\n");
        for (size_t i = 0; i < a->nprocs; i++) {
            struct cmt_replay *r = &a->procs[i].replay;
            for (size_t k = 0; k < r->nooms; k++) {
                const struct cmt_oom *o = &r->ooms[k];
                const struct cmt_devstate *d = o->device >= 0 ? cmt_replay_device(r, o->device) : NULL;
                fprintf(f, "  pid %u device %lld at t=%.6fs: requested %s with %s live", a->procs[i].hdr.pid, (long long)o->device,
                        rel_s(&a->procs[i], o->time_ns), cmt_human_size(o->requested, b1, sizeof b1),
                        cmt_human_size(o->live_bytes, b2, sizeof b2));
                if (d && d->total) fprintf(f, " of %s", cmt_human_size(d->total, b3, sizeof b3));
                fprintf(f, "\n");
                struct cmt_stack_sym st = cmt_analysis_stack(a, i, o->stack);
                text_frames(f, &st, "      ");
                cmt_stack_sym_free(&st);
                for (size_t s = 0; s < o->ntop && s < top; s++) {
                    fprintf(f, "    live then: %s in %llu allocation%s\n", cmt_human_size(o->top[s].bytes, b1, sizeof b1),
                            (unsigned long long)o->top[s].allocations, o->top[s].allocations == 1 ? "" : "s");
                    st = cmt_analysis_stack(a, i, o->top[s].stack);
                    text_frames(f, &st, "        ");
                    cmt_stack_sym_free(&st);
                }
            }
        }
    }
    fprintf(f, "\nimbalance: %s\n", a->verdict);
    cmt_ranks_text(a, f);
    cmt_markers_text(a, f);
    cmt_pools_text(a, f);
    if (total_anomalies(a) || a->anomalies[CMT_AN_CAPTURED_ALLOCATIONS]) {
        fprintf(f, "\nanomalies\n");
        for (int k = 0; k < CMT_AN_COUNT; k++)
            if (a->anomalies[k])
                fprintf(f, "  %-21s %6llu  %s\n", cmt_anomaly_names[k], (unsigned long long)a->anomalies[k], cmt_anomaly_hint(k));
    }
    if (a->opts.suppressions && a->opts.suppressions->n) {
        fprintf(f, "\nsuppressions\n");
        for (size_t k = 0; k < a->opts.suppressions->n; k++) {
            const struct cmt_suppression *s = &a->opts.suppressions->v[k];
            fprintf(f, "  leak:%s  %llu leak%s, %s\n", s->pattern, (unsigned long long)s->leaks, s->leaks == 1 ? "" : "s",
                    cmt_human_size(s->bytes, b1, sizeof b1));
        }
    }
}

/* ---------------------------------------------------------------- JSON */

static void json_frames(struct cmt_json *j, const struct cmt_stack_sym *s) {
    char buf[32];
    cmt_json_array(j, "frames");
    for (size_t i = 0; i < s->n; i++) {
        const struct cmt_sym_frame *fr = &s->frames[i];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "function", fr->function);
        cmt_json_str(j, "file", fr->file);
        if (fr->file && fr->line) cmt_json_i64(j, "line", fr->line);
        else cmt_json_null(j, "line");
        cmt_json_str(j, "module", fr->module);
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fr->address);
        cmt_json_str(j, "address", buf);
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fr->offset);
        cmt_json_str(j, "offset", buf);
        cmt_json_bool(j, "inlined", fr->inlined);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

static void json_stack_bytes(struct cmt_json *j, struct cmt_analysis *a, size_t proc, const struct cmt_stack_bytes *v, size_t n) {
    cmt_json_array(j, "top");
    for (size_t s = 0; s < n && s < a->opts.top_n; s++) {
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "bytes", v[s].bytes);
        cmt_json_u64(j, "allocations", v[s].allocations);
        struct cmt_stack_sym st = cmt_analysis_stack(a, proc, v[s].stack);
        json_frames(j, &st);
        cmt_stack_sym_free(&st);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
}

void cmt_report_json(struct cmt_analysis *a, FILE *f) {
    struct cmt_json jj, *j = &jj;
    char u[48];
    cmt_json_init(j, f, 1);
    cmt_json_object(j, NULL);
    cmt_json_str(j, "tool", "cumemtrack");
    cmt_json_u64(j, "format_version", 1);
    cmt_json_object(j, "summary");
    cmt_json_u64(j, "leaked_bytes", a->leaked_bytes);
    cmt_json_u64(j, "leaked_allocations", a->leaked_allocations);
    cmt_json_u64(j, "leak_sites", a->nleaks);
    cmt_json_u64(j, "suppressed_bytes", a->suppressed_bytes);
    cmt_json_u64(j, "ooms", a->nooms);
    cmt_json_u64(j, "anomalies", total_anomalies(a));
    cmt_json_u64(j, "processes", a->nprocs);
    cmt_json_object_end(j);
    cmt_json_array(j, "processes");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", p->hdr.pid);
        cmt_json_u64(j, "ppid", p->hdr.ppid);
        cmt_json_str(j, "host", p->hdr.host);
        if (p->hdr.rank >= 0) cmt_json_i64(j, "rank", p->hdr.rank);
        else cmt_json_null(j, "rank");
        if (p->hdr.world_size >= 0) cmt_json_i64(j, "world_size", p->hdr.world_size);
        else cmt_json_null(j, "world_size");
        cmt_json_str(j, "job_id", p->hdr.job_id[0] ? p->hdr.job_id : NULL);
        cmt_json_str(j, "command", p->command);
        cmt_json_str(j, "exe", p->hdr.exe);
        cmt_json_str(j, "exit", p->exit);
        if (p->replay.have_exit) cmt_json_i64(j, "exit_status", p->replay.exit_status);
        else cmt_json_null(j, "exit_status");
        cmt_json_str(j, "dump", p->path);
        cmt_json_bool(j, "truncated", p->truncated);
        cmt_json_u64(j, "writers", p->writers);
        cmt_json_u64(j, "events", p->replay.events);
        cmt_json_object(j, "counters");
        static const char *const cn[] = {
#define CN(id, name) name,
            CMT_COUNTERS(CN)
#undef CN
        };
        for (unsigned k = 0; k < CMT_CTR_COUNT; k++) cmt_json_u64(j, cn[k], p->hdr.counters[k]);
        cmt_json_object_end(j);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "devices");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "ordinal", d->ordinal);
            cmt_json_str(j, "name", d->has_info ? d->name : NULL);
            cmt_json_str(j, "uuid", d->has_info ? (cmt_uuid_format(d->uuid, u), u) : NULL);
            cmt_json_str(j, "pci_bus_id", d->has_info ? d->pci : NULL);
            cmt_json_u64(j, "total_bytes", d->total);
            cmt_json_u64(j, "allocations", d->allocations);
            cmt_json_u64(j, "frees", d->frees);
            cmt_json_u64(j, "peak_bytes", d->peak);
            cmt_json_i64(j, "peak_time_ns", d->peak_time);
            cmt_json_u64(j, "leaked_bytes", d->leaked_bytes);
            cmt_json_u64(j, "leaked_allocations", d->leaked_allocations);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    uint64_t hl = 0, hp = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        hl += a->procs[i].replay.host_leaked;
        hp += a->procs[i].replay.host_peak;
    }
    cmt_json_object(j, "host");
    cmt_json_u64(j, "leaked_bytes", hl);
    cmt_json_u64(j, "peak_bytes", hp);
    cmt_json_object_end(j);
    cmt_json_array(j, "imported");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nimported; k++) {
            int64_t dev = r->imported[k].device;
            size_t first = 0;
            while (r->imported[first].device != dev) first++;
            if (first < k) continue;
            uint64_t n = 0, open = 0, bytes = 0;
            for (size_t m = k; m < r->nimported; m++)
                if (r->imported[m].device == dev) {
                    n++;
                    if (r->imported[m].open) {
                        open++;
                        bytes += r->imported[m].bytes;
                    }
                }
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "device", dev);
            cmt_json_u64(j, "imports", n);
            cmt_json_u64(j, "open", open);
            cmt_json_u64(j, "open_bytes", bytes);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "leaks");
    for (size_t i = 0; i < a->nleaks && i < a->opts.top_n; i++) {
        const struct cmt_rleak *l = &a->leaks[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", a->procs[l->proc].hdr.pid);
        cmt_json_i64(j, "device", l->leak->device);
        cmt_json_str(j, "uuid", l->uuid);
        cmt_json_str(j, "kind", cmt_kind_name(l->leak->kind) ? cmt_kind_name(l->leak->kind) : "unknown");
        cmt_json_u64(j, "bytes", l->leak->bytes);
        cmt_json_u64(j, "requested_bytes", l->leak->requested);
        cmt_json_u64(j, "allocations", l->leak->allocations);
        cmt_json_str(j, "at", cmt_leak_at_name(l->leak->at));
        json_frames(j, &l->stack);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "peak");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            if (!d->peak) continue;
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "device", d->ordinal);
            cmt_json_str(j, "uuid", d->has_info ? (cmt_uuid_format(d->uuid, u), u) : NULL);
            cmt_json_u64(j, "bytes", d->peak);
            cmt_json_i64(j, "time_ns", d->peak_time);
            json_stack_bytes(j, a, i, d->peak_top, d->npeak_top);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "oom");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->nooms; k++) {
            const struct cmt_oom *o = &r->ooms[k];
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "device", o->device);
            cmt_json_str(j, "uuid", dev_uuid(r, o->device, u));
            const char *an = cmt_replay_api_name(r, o->api);
            cmt_json_str(j, "api", an);
            cmt_json_u64(j, "requested_bytes", o->requested);
            cmt_json_i64(j, "time_ns", o->time_ns);
            cmt_json_u64(j, "live_bytes", o->live_bytes);
            cmt_json_object(j, "live_by_uuid");
            for (size_t s = 0; s < o->nlive; s++) {
                const char *uu = dev_uuid(r, o->live_dev[s], u);
                char key[64];
                if (!uu) snprintf(key, sizeof key, "ordinal:%lld", (long long)o->live_dev[s]);
                cmt_json_u64(j, uu ? uu : key, o->live_bytes_dev[s]);
            }
            cmt_json_object_end(j);
            struct cmt_stack_sym st = cmt_analysis_stack(a, i, o->stack);
            json_frames(j, &st);
            cmt_stack_sym_free(&st);
            json_stack_bytes(j, a, i, o->top, o->ntop);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    cmt_json_object(j, "imbalance");
    cmt_json_array(j, "gpus");
    for (size_t g = 0; g < a->ngpus; g++) {
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", a->gpus[g].uuid);
        cmt_json_str(j, "name", a->gpus[g].name);
        cmt_json_str(j, "pci_bus_id", a->gpus[g].pci);
        cmt_json_u64(j, "peak_bytes", a->gpus[g].peak_bytes);
        cmt_json_u64(j, "leaked_bytes", a->gpus[g].leaked_bytes);
        cmt_json_u64(j, "processes", a->gpus[g].processes);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    if (a->peak_max_over_mean > 0) cmt_json_double(j, "peak_max_over_mean", a->peak_max_over_mean);
    else cmt_json_null(j, "peak_max_over_mean");
    cmt_json_str(j, "outlier_uuid", a->outlier >= 0 ? a->gpus[a->outlier].uuid : NULL);
    cmt_json_str(j, "verdict", a->verdict);
    cmt_json_object_end(j);
    cmt_ranks_json(a, j);
    cmt_markers_json(a, j);
    cmt_pools_json(a, j);
    cmt_json_object(j, "anomalies");
    for (int k = 0; k < CMT_AN_COUNT; k++) cmt_json_u64(j, cmt_anomaly_names[k], a->anomalies[k]);
    cmt_json_object_end(j);
    cmt_json_array(j, "suppressions");
    for (size_t k = 0; a->opts.suppressions && k < a->opts.suppressions->n; k++) {
        const struct cmt_suppression *s = &a->opts.suppressions->v[k];
        cmt_json_object(j, NULL);
        cmt_json_str(j, "pattern", s->pattern);
        cmt_json_u64(j, "leaks", s->leaks);
        cmt_json_u64(j, "bytes", s->bytes);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
    cmt_json_finish(j);
}

/* Frame printers shared with the other report sections (cmt_markers.c, ...). */
void cmt_report_text_frames(FILE *f, const struct cmt_stack_sym *s, const char *indent) { text_frames(f, s, indent); }
void cmt_report_json_frames(struct cmt_json *j, const struct cmt_stack_sym *s) { json_frames(j, s); }

int cmt_common_option(const char *cmd, int c, const char *arg, struct cmt_report_opts *ro,
                      struct cmt_suppressions *supp, size_t *top) {
    char err[1024];
    switch (c) {
    case 't': {
        char *end;
        long v = strtol(arg, &end, 10);
        if (!*arg || *end || v < 1 || v > 1000000) {
            cmt_msg("%s: --top needs a positive number, not '%s'", cmd, arg);
            return -1;
        }
        *(top ? top : &ro->top_n) = (size_t)v;
        return 1;
    }
    case 's':
        if (cmt_suppress_load(supp, arg, err, sizeof err) != 0) {
            cmt_msg("%s", err);
            return -1;
        }
        ro->suppressions = supp;
        return 1;
    case 'n': ro->no_symbols = 1; return 1;
    case 'd': ro->debug_dir = arg; return 1;
    default: return 0;
    }
}

int cmt_load_dumps(struct cmt_analysis *a, const struct cmt_report_opts *ro, char **args, int nargs) {
    char **paths, err[1024];
    size_t np;
    if (cmt_expand_paths(args, nargs, &paths, &np, err, sizeof err) != 0) {
        cmt_msg("%s", err);
        memset(a, 0, sizeof *a);
        return 3;
    }
    int rc = cmt_analysis_load(a, ro, paths, np);
    if (rc) cmt_msg("%s", a->err);
    cmt_free_paths(paths, np);
    return rc;
}
