/*
 * live.c — the model of running jobs (live.h): follow-mode dumps replayed incrementally, merged
 * per GPU, stack counters with a ring of samples, the driver's view beside ours.
 */
#include "live.h"
#include "analysis.h"
#include "running.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* a stack counter entry: key, bytes now, then ring samples */
struct live_ctr {
    struct cmt_hkey k;
    uint64_t bytes;
    uint64_t ring[];
};

int cmt_live_init(struct cmt_live *L, double window_s, double interval_s, int no_symbols, const char *nvml_lib) {
    memset(L, 0, sizeof *L);
    L->window_s = window_s;
    L->no_symbols = no_symbols;
    double n = interval_s > 0 ? window_s / interval_s : window_s;
    L->ring = n < 1 ? 2 : n > 4094 ? 4096 : (size_t)n + 2;
    L->times = calloc(L->ring, sizeof *L->times);
    cmt_htab_init(&L->stacks, sizeof(struct live_ctr) + L->ring * sizeof(uint64_t), 256);
    L->sym = cmt_sym_new(!no_symbols, NULL);
    if (gethostname(L->host, sizeof L->host - 1) != 0) L->host[0] = 0;
    cmt_nvml_open(&L->nvml, nvml_lib); /* NA is a normal state: the columns say n/a */
    return L->times && L->sym ? 0 : -1;
}

static int known_path(const struct cmt_live *L, const char *path) {
    for (size_t i = 0; i < L->nprocs; i++)
        if (!strcmp(L->procs[i].path, path)) return 1;
    return 0;
}

static void on_change(void *arg, const struct cmt_replay *r, const struct cmt_live_change *c) {
    struct cmt_live *L = arg;
    if (L->observer) L->observer(L->observer_arg, r, c);
    if (c->kind != CMT_CHANGE_STACK || c->device < 0) return;
    int existed;
    struct live_ctr *e = cmt_htab_put(&L->stacks, ((uint64_t)c->proc << 32) | (uint32_t)(c->device + 1), c->stack,
                                      &existed);
    if (e) e->bytes = c->stack_bytes;
}

static int add_dump(struct cmt_live *L, const char *path, char *err, size_t errlen) {
    struct cmt_dump *d = cmt_dump_open_follow(path, err, errlen);
    if (!d) return -1;
    size_t cap = L->nprocs;
    if (cmt_grow((void **)&L->procs, &cap, L->nprocs + 1, sizeof *L->procs) != 0) {
        cmt_dump_close(d);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (L->on_new_proc && L->on_new_proc(L->on_new_proc_arg, L->nprocs, cmt_dump_header(d)) != 0) {
        cmt_dump_close(d);
        snprintf(err, errlen, "%s: too many processes", path);
        return -1;
    }
    struct cmt_live_proc *p = &L->procs[L->nprocs];
    memset(p, 0, sizeof *p);
    p->path = strdup(path);
    p->d = d;
    p->hdr = cmt_dump_header(d);
    p->state = "running";
    p->first_refresh = L->snapshot ? L->refreshes : L->refreshes + 1;
    cmt_replay_init(&p->r, 10);
    p->r.observer = on_change;
    p->r.observer_arg = L;
    p->r.observer_id = L->nprocs;
    L->nprocs++;
    return 0;
}

static void note_skipped(struct cmt_live *L, const char *why) {
    for (size_t i = 0; i < L->nskipped; i++)
        if (!strcmp(L->skipped[i], why)) return;
    char **t = realloc(L->skipped, (L->nskipped + 1) * sizeof *t);
    if (!t) return;
    L->skipped = t;
    if ((L->skipped[L->nskipped] = strdup(why))) L->nskipped++;
}

static void scan_dir(struct cmt_live *L, const char *dir) {
    DIR *dh = opendir(dir);
    if (!dh) return;
    struct dirent *de;
    while ((de = readdir(dh))) {
        if (!strstr(de->d_name, ".cmt")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || known_path(L, path)) continue;
        char err[1024];
        /* a dump being created may not have its header yet: tried again at the next refresh */
        if (add_dump(L, path, err, sizeof err) != 0 && st.st_size >= CMT_HEADER_SIZE && !cmt_dump_being_created(path))
            note_skipped(L, err);
    }
    closedir(dh);
}

int cmt_live_add(struct cmt_live *L, const char *path, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        char **t = realloc(L->dirs, (L->ndirs + 1) * sizeof *t);
        if (!t || !(t[L->ndirs] = strdup(path))) {
            if (t) L->dirs = t;
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        L->dirs = t;
        L->ndirs++;
        return 0;
    }
    if (known_path(L, path)) return 0;
    return add_dump(L, path, err, errlen);
}

/* Whether the dump's process still runs (running.h: same host, same pid and start time, so a
 * reused pid is not taken for it). "unknown" on another host. */
static const char *proc_state_pid(const struct cmt_live *L, const struct cmt_live_proc *p) {
    if (strncmp(p->hdr->host, L->host, sizeof p->hdr->host)) return "unknown";
    return cmt_dump_running(p->hdr) ? "running" : "died";
}

static void read_proc(struct cmt_live *L, struct cmt_live_proc *p) {
    if (p->corrupt) return;
    /* the state before the poll: a process gone by then wrote everything it will write */
    const char *pid_state = proc_state_pid(L, p);
    int final = strcmp(pid_state, "running") != 0;
    if (cmt_dump_poll(p->d, final || L->snapshot) != 0) {
        p->corrupt = 1;
        snprintf(p->err, sizeof p->err, "%s", cmt_dump_error(p->d));
        return;
    }
    const struct cmt_event *ev;
    int rc;
    while ((rc = cmt_dump_next(p->d, &ev)) > 0) {
        if (ev->type == CMT_REC_ALERT) {
            char ub[48];
            const char *u = cmt_replay_uuid(&p->r, ev->device, ub);
            for (size_t g = 0; u && g < L->ngpus; g++)
                if (!strcmp(L->gpus[g].uuid, u)) {
                    L->gpus[g].alerts++;
                    L->gpus[g].alert_threshold = ev->threshold;
                }
        }
        cmt_replay_event(&p->r, ev);
        L->events++;
    }
    if (rc < 0) {
        p->corrupt = 1;
        snprintf(p->err, sizeof p->err, "%s", cmt_dump_error(p->d));
    }
    /* gone without an EXIT record: its end may be in the header's exit slot (2.3) */
    if (final && !p->r.have_exit && !strcmp(pid_state, "died")) cmt_replay_exit_slot(&p->r, cmt_dump_header(p->d));
    /* everything read: the process was gone before this poll (another host: its EXIT was read) */
    p->drained = final && (!strcmp(pid_state, "died") || p->r.have_exit);
    p->state = p->r.have_exit ? "exited" : pid_state;
}

static struct cmt_live_gpu *gpu_of(struct cmt_live *L, const struct cmt_devstate *dv) {
    char ub[48];
    const char *u = cmt_device_uuid(dv, ub);
    if (!u) return NULL;
    for (size_t g = 0; g < L->ngpus; g++)
        if (!strcmp(L->gpus[g].uuid, u)) return &L->gpus[g];
    size_t cap = L->ngpus;
    if (cmt_grow((void **)&L->gpus, &cap, L->ngpus + 1, sizeof *L->gpus) != 0) return NULL;
    struct cmt_live_gpu *G = &L->gpus[L->ngpus++];
    memset(G, 0, sizeof *G);
    snprintf(G->uuid, sizeof G->uuid, "%s", u);
    snprintf(G->name, sizeof G->name, "%s", dv->name);
    snprintf(G->pci, sizeof G->pci, "%s", dv->pci);
    G->total = dv->total;
    return G;
}

void cmt_live_refresh(struct cmt_live *L, double now) {
    L->prev = L->now;
    L->now = now;
    for (size_t i = 0; i < L->ndirs; i++)
        scan_dir(L, L->dirs[i]);
    for (size_t i = 0; i < L->nprocs; i++) {
        /* GPUs first known from DEVICE records: an ALERT names one only after its DEVICE */
        read_proc(L, &L->procs[i]);
        for (size_t k = 0; k < L->procs[i].r.ndevs; k++)
            gpu_of(L, &L->procs[i].r.devs[k]);
    }
    if (L->nvml.status == CMT_NVML_READY) cmt_nvml_refresh(&L->nvml);
    for (size_t g = 0; g < L->ngpus; g++)
        L->gpus[g].live = 0;
    double dt = L->refreshes ? L->now - L->prev : 0;
    for (size_t i = 0; i < L->nprocs; i++) {
        struct cmt_live_proc *p = &L->procs[i];
        p->live_prev = p->live;
        p->live = 0;
        p->driver_known = L->nvml.status == CMT_NVML_READY && p->r.ndevs;
        p->driver_bytes = 0;
        for (size_t k = 0; k < p->r.ndevs; k++) {
            const struct cmt_devstate *dv = &p->r.devs[k];
            p->live += dv->live;
            struct cmt_live_gpu *G = gpu_of(L, dv);
            if (G) G->live += dv->live;
            if (G && dv->peak > G->peak) G->peak = dv->peak;
            uint64_t b = 0;
            if (!G || cmt_nvml_proc_used(&L->nvml, G->uuid, p->hdr->pid, &b) < 0) p->driver_known = 0;
            p->driver_bytes += b;
        }
        p->peak = p->r.gpu_peak; /* exact: the replay's most bytes at one moment, all devices together */
        p->rate = dt > 0 && L->refreshes > p->first_refresh ? ((double)p->live - (double)p->live_prev) / dt : 0;
    }
    for (size_t g = 0; g < L->ngpus; g++) {
        struct cmt_live_gpu *G = &L->gpus[g];
        if (G->live > G->peak) G->peak = G->live;
        G->spark[G->nspark++ % CMT_LIVE_SPARK] = G->live;
        const struct cmt_nvml_gpu *N = cmt_nvml_gpu(&L->nvml, G->uuid);
        G->driver_known = N && N->mem_known;
        G->driver_used = N ? N->used_bytes : 0;
        G->driver_total = N ? N->total_bytes : 0;
    }
    size_t slot = L->refreshes % L->ring;
    L->times[slot] = now;
    for (size_t i = 0; i < L->stacks.cap; i++) {
        struct live_ctr *e = cmt_htab_at(&L->stacks, i);
        if (cmt_hkey_used(&e->k)) e->ring[slot] = e->bytes;
    }
    L->refreshes++;
}

int cmt_live_all_done(const struct cmt_live *L) {
    if (!L->nprocs) return 0;
    for (size_t i = 0; i < L->nprocs; i++)
        if (!L->procs[i].corrupt && !L->procs[i].drained) return 0;
    return 1;
}

static int64_t growth_of(const struct cmt_live *L, const struct live_ctr *e) {
    if (!L->refreshes) return 0;
    size_t have = L->refreshes < L->ring ? L->refreshes : L->ring;
    size_t oldest = (L->refreshes - 1) % L->ring; /* the latest, walking back */
    uint64_t first = L->procs[e->k.a >> 32].first_refresh; /* no sample before its records were read */
    for (size_t n = 1; n < have && L->refreshes - 1 - n >= first; n++) {
        size_t s = (L->refreshes - 1 - n) % L->ring;
        if (L->times[s] < L->now - L->window_s) break;
        oldest = s;
    }
    return (int64_t)(e->bytes - e->ring[oldest]);
}

static int cmp_rows(const struct cmt_live_row *a, const struct cmt_live_row *b, int by_growth) {
    if (by_growth && a->growth != b->growth) return a->growth > b->growth ? -1 : 1;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    if (a->proc != b->proc) return a->proc < b->proc ? -1 : 1;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    return a->stack < b->stack ? -1 : a->stack > b->stack;
}

size_t cmt_live_top(const struct cmt_live *L, int by_growth, struct cmt_live_row *out, size_t max) {
    size_t n = 0;
    for (size_t i = 0; i < L->stacks.cap && max; i++) {
        const struct live_ctr *e = cmt_htab_at(&L->stacks, i);
        if (!cmt_hkey_used(&e->k)) continue;
        struct cmt_live_row r = {(size_t)(e->k.a >> 32), (int64_t)(uint32_t)e->k.a - 1, e->k.b & ~CMT_HKEY_B_MAX, e->bytes,
                                 growth_of(L, e)};
        if (by_growth ? r.growth <= 0 : r.bytes == 0) continue;
        /* insertion into the sorted top max */
        size_t j = n < max ? n++ : max;
        if (j == max) {
            if (cmp_rows(&r, &out[max - 1], by_growth) >= 0) continue;
            j = max - 1;
        }
        while (j > 0 && cmp_rows(&r, &out[j - 1], by_growth) < 0) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = r;
    }
    return n;
}

struct cmt_stack_sym cmt_live_stack(struct cmt_live *L, size_t proc, uint64_t stack) {
    return cmt_stack_symbolize(L->sym, &L->procs[proc].r, stack, &L->out_of_memory);
}

void cmt_live_free(struct cmt_live *L) {
    for (size_t i = 0; i < L->nprocs; i++) {
        struct cmt_live_proc *p = &L->procs[i];
        cmt_replay_free(&p->r);
        cmt_dump_close(p->d);
        free(p->path);
    }
    free(L->procs);
    for (size_t i = 0; i < L->ndirs; i++)
        free(L->dirs[i]);
    free(L->dirs);
    for (size_t i = 0; i < L->nskipped; i++)
        free(L->skipped[i]);
    free(L->skipped);
    free(L->gpus);
    free(L->times);
    cmt_htab_free(&L->stacks);
    if (L->sym) cmt_sym_free(L->sym);
    cmt_nvml_close(&L->nvml);
}

int cmt_live_tracks_pid(const struct cmt_live *L, unsigned pid) {
    for (size_t i = 0; i < L->nprocs; i++)
        if (L->procs[i].hdr->pid == pid) return 1;
    return 0;
}
