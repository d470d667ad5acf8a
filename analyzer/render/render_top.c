/*
 * render_top.c — `top`'s frame (live.h): per GPU, per process, the top stacks by live bytes and by
 * growth over the window, as plain text (the terminal view and --once) or one JSON document
 * (--json --once, docs/top-schema.json). Only reads the model. Its stacks are the report's: the same
 * frame path (cmt_live_stack), printer (cmt_print_frames) and JSON frame writer (cmt_json_frames).
 */
#include <stdio.h>
#include <string.h>

#include "live.h"
#include "render.h"

#define TOP_FRAMES 4 /* frames shown per stack */

static const char *na_size(int known, uint64_t v, char *buf, size_t cap) {
    if (!known) return "n/a";
    return cmt_human_size(v, buf, cap);
}

/* The last samples of the GPU as a sparkline (UTF-8 block elements), scaled to the device total
 * (or the largest sample when the total is unknown). */
static void sparkline(const struct cmt_live_gpu *G, FILE *f) {
    static const char *const bars[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
    size_t n = G->nspark < CMT_LIVE_SPARK ? G->nspark : CMT_LIVE_SPARK;
    uint64_t top = G->total;
    for (size_t i = 0; !top && i < n; i++)
        if (G->spark[i] > top) top = G->spark[i];
    for (size_t i = 0; i < n; i++) {
        uint64_t v = G->spark[(G->nspark - n + i) % CMT_LIVE_SPARK];
        size_t b = top ? (size_t)((double)v / (double)top * 8 + 0.999) : 0;
        fputs(bars[b > 8 ? 8 : b], f);
    }
}

/* the report's frames (cmt_live_stack), at most TOP_FRAMES: those nearest the user's code
 * (cmt_print_frames, the one rule of every view with room for a few) */
static void stack_lines(struct cmt_live *L, const struct cmt_live_row *r, FILE *f) {
    struct cmt_stack_sym st = cmt_live_stack(L, r->proc, r->stack);
    cmt_print_frames(f, &st, "      ", TOP_FRAMES);
    cmt_stack_sym_free(&st);
}

void cmt_render_top_text(struct cmt_live *L, FILE *f, size_t top) {
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    fprintf(f, "cumemtrack top: %zu process%s, %zu GPU%s, %llu records read, window %gs, driver view: %s\n",
            L->nprocs, L->nprocs == 1 ? "" : "es", L->ngpus, L->ngpus == 1 ? "" : "s", (unsigned long long)L->events,
            L->window_s,
            L->nvml.status == CMT_NVML_READY ? "NVML" : "n/a");
    fprintf(f, "\nGPU\n");
    for (size_t g = 0; g < L->ngpus; g++) {
        const struct cmt_live_gpu *G = &L->gpus[g];
        fprintf(f, "  %s %s %s\n", G->uuid, G->pci[0] ? G->pci : "-", G->name);
        fprintf(f, "    live %s of %s, peak %s, driver used %s of %s", cmt_human_size(G->live, b1, sizeof b1),
                cmt_human_size(G->total, b2, sizeof b2), cmt_human_size(G->peak, b3, sizeof b3),
                na_size(G->driver_known, G->driver_used, b4, sizeof b4),
                na_size(G->driver_known, G->driver_total, b5, sizeof b5));
        if (G->alerts)
            fprintf(f, ", ALERT x%llu (threshold %s)", (unsigned long long)G->alerts,
                    cmt_human_size(G->alert_threshold, b1, sizeof b1));
        fputs("\n    ordinals", f);
        for (size_t i = 0; i < L->nprocs; i++)
            for (size_t k = 0; k < L->procs[i].r.ndevs; k++) {
                char ub[48];
                const char *u = cmt_device_uuid(&L->procs[i].r.devs[k], ub);
                if (u && !strcmp(u, G->uuid))
                    fprintf(f, " %u:%lld", L->procs[i].hdr->pid, (long long)L->procs[i].r.devs[k].ordinal);
            }
        fputs("\n    [", f);
        sparkline(G, f);
        fputs("]\n", f);
        const struct cmt_nvml_gpu *N = cmt_nvml_gpu(&L->nvml, G->uuid);
        for (size_t k = 0; N && N->procs_known && k < N->nprocs; k++) {
            const struct cmt_nvml_proc *np = &L->nvml.procs[N->first_proc + k];
            int tracked = cmt_live_tracks_pid(L, np->pid);
            if (!tracked)
                fprintf(f, "    untracked process %u: %s (driver)\n", np->pid,
                        na_size(np->used_known, np->used_bytes, b1, sizeof b1));
        }
    }
    fprintf(f, "\nPROCESSES\n  %-16s %8s %5s %10s %10s %12s %10s %10s  %s\n", "HOST", "PID", "RANK", "LIVE", "PEAK",
            "RATE/s", "DRIVER", "UNTRACKED", "STATE");
    for (size_t i = 0; i < L->nprocs; i++) {
        const struct cmt_live_proc *p = &L->procs[i];
        char rk[16], rate[40], drv[32], unt[32];
        snprintf(rk, sizeof rk, "%d", p->hdr->rank);
        snprintf(rate, sizeof rate, "%s%s", p->rate < 0 ? "-" : "+",
                 cmt_human_size((uint64_t)(p->rate < 0 ? -p->rate : p->rate), b1, sizeof b1));
        snprintf(drv, sizeof drv, "%s", na_size(p->driver_known, p->driver_bytes, b2, sizeof b2));
        if (p->driver_known && p->driver_bytes >= p->live)
            cmt_human_size(p->driver_bytes - p->live, unt, sizeof unt);
        else
            snprintf(unt, sizeof unt, "n/a");
        fprintf(f, "  %-16.16s %8u %5s %10s %10s %12s %10s %10s  %s%s%s\n", p->hdr->host, p->hdr->pid,
                p->hdr->rank >= 0 ? rk : "-", cmt_human_size(p->live, b3, sizeof b3),
                cmt_human_size(p->peak, b4, sizeof b4), rate, drv, unt, p->corrupt ? "corrupt" : p->state,
                p->corrupt ? ": " : "", p->corrupt ? p->err : "");
    }
    struct cmt_live_row rows[64];
    if (top > 64) top = 64;
    for (int by = 0; by < 2; by++) {
        size_t n = cmt_live_top(L, by, rows, top);
        if (by)
            fprintf(f, "\nTOP STACKS BY GROWTH (last %gs)\n", L->window_s);
        else
            fprintf(f, "\nTOP STACKS BY LIVE BYTES\n");
        if (!n) fputs("  (none)\n", f);
        for (size_t i = 0; i < n; i++) {
            const struct cmt_live_row *r = &rows[i];
            fprintf(f, "  %s live, %s%s over the window, pid %u device %lld\n",
                    cmt_human_size(r->bytes, b1, sizeof b1), r->growth < 0 ? "-" : "+",
                    cmt_human_size((uint64_t)(r->growth < 0 ? -r->growth : r->growth), b2, sizeof b2),
                    L->procs[r->proc].hdr->pid, (long long)r->device);
            stack_lines(L, r, f);
        }
    }
    for (size_t i = 0; i < L->nskipped; i++)
        fprintf(f, "skipped %s\n", L->skipped[i]);
}

static void json_stack(struct cmt_live *L, struct cmt_json *j, const struct cmt_live_row *r) {
    cmt_json_object(j, NULL);
    cmt_json_u64(j, "pid", L->procs[r->proc].hdr->pid);
    cmt_json_str(j, "dump", L->procs[r->proc].path);
    cmt_json_i64(j, "device", r->device);
    cmt_json_u64(j, "stack", r->stack);
    cmt_json_u64(j, "live_bytes", r->bytes);
    cmt_json_i64(j, "growth_bytes", r->growth);
    struct cmt_stack_sym st = cmt_live_stack(L, r->proc, r->stack); /* every frame, as the report's JSON */
    cmt_json_frames(j, &st);
    cmt_stack_sym_free(&st);
    cmt_json_object_end(j);
}

void cmt_render_top_json(struct cmt_live *L, FILE *f, size_t top) {
    struct cmt_json j;
    cmt_json_init(&j, f, 1);
    cmt_json_object(&j, NULL);
    cmt_json_str(&j, "tool", "cumemtrack top");
    cmt_json_double(&j, "window_s", L->window_s);
    cmt_json_u64(&j, "events", L->events);
    cmt_json_bool(&j, "driver_view", L->nvml.status == CMT_NVML_READY);
    if (L->nvml.status != CMT_NVML_READY) cmt_json_str(&j, "driver_view_why", L->nvml.why);
    cmt_json_array(&j, "gpus");
    for (size_t g = 0; g < L->ngpus; g++) {
        const struct cmt_live_gpu *G = &L->gpus[g];
        cmt_json_object(&j, NULL);
        cmt_json_str(&j, "uuid", G->uuid);
        cmt_json_str(&j, "pci_bus_id", G->pci);
        cmt_json_str(&j, "name", G->name);
        cmt_json_u64(&j, "live_bytes", G->live);
        cmt_json_u64(&j, "total_bytes", G->total);
        cmt_json_u64(&j, "peak_bytes", G->peak);
        cmt_json_array(&j, "samples");
        size_t n = G->nspark < CMT_LIVE_SPARK ? G->nspark : CMT_LIVE_SPARK;
        for (size_t i = 0; i < n; i++)
            cmt_json_u64(&j, NULL, G->spark[(G->nspark - n + i) % CMT_LIVE_SPARK]);
        cmt_json_array_end(&j);
        cmt_json_u64(&j, "alerts", G->alerts);
        if (G->alerts)
            cmt_json_u64(&j, "alert_threshold_bytes", G->alert_threshold);
        else
            cmt_json_null(&j, "alert_threshold_bytes");
        cmt_json_array(&j, "ordinals");
        for (size_t i = 0; i < L->nprocs; i++)
            for (size_t k = 0; k < L->procs[i].r.ndevs; k++) {
                char ub[48];
                const char *u = cmt_device_uuid(&L->procs[i].r.devs[k], ub);
                if (!u || strcmp(u, G->uuid)) continue;
                cmt_json_object(&j, NULL);
                cmt_json_u64(&j, "pid", L->procs[i].hdr->pid);
                cmt_json_i64(&j, "ordinal", L->procs[i].r.devs[k].ordinal);
                cmt_json_object_end(&j);
            }
        cmt_json_array_end(&j);
        if (G->driver_known) {
            cmt_json_u64(&j, "driver_used_bytes", G->driver_used);
            cmt_json_u64(&j, "driver_total_bytes", G->driver_total);
        } else {
            cmt_json_null(&j, "driver_used_bytes");
            cmt_json_null(&j, "driver_total_bytes");
        }
        cmt_json_array(&j, "untracked_processes");
        const struct cmt_nvml_gpu *N = cmt_nvml_gpu(&L->nvml, G->uuid);
        for (size_t k = 0; N && N->procs_known && k < N->nprocs; k++) {
            const struct cmt_nvml_proc *np = &L->nvml.procs[N->first_proc + k];
            int tracked = cmt_live_tracks_pid(L, np->pid);
            if (tracked) continue;
            cmt_json_object(&j, NULL);
            cmt_json_u64(&j, "pid", np->pid);
            if (np->used_known)
                cmt_json_u64(&j, "driver_bytes", np->used_bytes);
            else
                cmt_json_null(&j, "driver_bytes");
            cmt_json_object_end(&j);
        }
        cmt_json_array_end(&j);
        cmt_json_object_end(&j);
    }
    cmt_json_array_end(&j);
    cmt_json_array(&j, "processes");
    for (size_t i = 0; i < L->nprocs; i++) {
        const struct cmt_live_proc *p = &L->procs[i];
        cmt_json_object(&j, NULL);
        cmt_json_str(&j, "dump", p->path);
        cmt_json_str(&j, "host", p->hdr->host);
        cmt_json_u64(&j, "pid", p->hdr->pid);
        cmt_json_i64(&j, "rank", p->hdr->rank);
        cmt_json_u64(&j, "live_bytes", p->live);
        cmt_json_u64(&j, "peak_bytes", p->peak);
        cmt_json_double(&j, "growth_bytes_per_s", p->rate);
        cmt_json_str(&j, "state", p->corrupt ? "corrupt" : p->state);
        if (p->corrupt) cmt_json_str(&j, "error", p->err);
        if (p->driver_known) {
            cmt_json_u64(&j, "driver_bytes", p->driver_bytes);
            cmt_json_i64(&j, "untracked_bytes", (int64_t)(p->driver_bytes - p->live));
        } else {
            cmt_json_null(&j, "driver_bytes");
            cmt_json_null(&j, "untracked_bytes");
        }
        cmt_json_object_end(&j);
    }
    cmt_json_array_end(&j);
    struct cmt_live_row rows[64];
    if (top > 64) top = 64;
    for (int by = 0; by < 2; by++) {
        size_t n = cmt_live_top(L, by, rows, top);
        cmt_json_array(&j, by ? "top_growth" : "top_live");
        for (size_t i = 0; i < n; i++)
            json_stack(L, &j, &rows[i]);
        cmt_json_array_end(&j);
    }
    cmt_json_array(&j, "skipped");
    for (size_t i = 0; i < L->nskipped; i++)
        cmt_json_str(&j, NULL, L->skipped[i]);
    cmt_json_array_end(&j);
    cmt_json_object_end(&j);
    cmt_json_finish(&j);
}
