/*
 * cmt_html.c — the self-contained HTML report. See cmt_html.h. The C side writes the page
 * skeleton, the CSS, the data (JSON, escaped for a script element) and the drawing script; the
 * script builds every chart as SVG elements and every text with textContent.
 */
#include "render_html.h"

#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json.h"

/* ---------------------------------------------------------------- stack table */

struct stab {
    struct cmt_analysis *a;
    uint64_t *keys; /* (proc+1) << 44 ^ stack id, 0: empty */
    uint32_t *idx;
    size_t cap, n;
    struct cmt_json *j; /* where the "stacks" array is being written */
    uint64_t *order_proc, *order_id;
    size_t ocap;
};

static uint64_t skey(size_t proc, uint64_t id) { return ((uint64_t)(proc + 1) << 44) ^ id; }

/* index of (proc, stack id) in the stacks table, adding it; -1 for no stack */
static long stab_get(struct stab *s, size_t proc, uint64_t id) {
    if (!id) return -1;
    if (s->n * 2 >= s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        uint64_t *nk = calloc(nc, sizeof *nk);
        uint32_t *ni = calloc(nc, sizeof *ni);
        if (!nk || !ni) {
            free(nk);
            free(ni);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->keys[i]) continue;
            size_t h = (s->keys[i] * 0x9e3779b97f4a7c15ull >> 20) & (nc - 1);
            while (nk[h]) h = (h + 1) & (nc - 1);
            nk[h] = s->keys[i];
            ni[h] = s->idx[i];
        }
        free(s->keys);
        free(s->idx);
        s->keys = nk;
        s->idx = ni;
        s->cap = nc;
    }
    uint64_t k = skey(proc, id);
    size_t h = (k * 0x9e3779b97f4a7c15ull >> 20) & (s->cap - 1);
    while (s->keys[h]) {
        if (s->keys[h] == k) return s->idx[h];
        h = (h + 1) & (s->cap - 1);
    }
    if (s->n == s->ocap) {
        size_t nc = s->ocap ? s->ocap * 2 : 256;
        uint64_t *np = realloc(s->order_proc, nc * sizeof *np);
        if (!np) return -1;
        s->order_proc = np;
        uint64_t *ni = realloc(s->order_id, nc * sizeof *ni);
        if (!ni) return -1;
        s->order_id = ni;
        s->ocap = nc;
    }
    s->keys[h] = k;
    s->idx[h] = (uint32_t)s->n;
    s->order_proc[s->n] = proc;
    s->order_id[s->n] = id;
    return (long)s->n++;
}

static void stab_free(struct stab *s) {
    free(s->keys);
    free(s->idx);
    free(s->order_proc);
    free(s->order_id);
}

static void json_stack_ref(struct cmt_json *j, const char *key, long v) {
    if (v < 0) cmt_json_null(j, key);
    else cmt_json_i64(j, key, v);
}

/* ---------------------------------------------------------------- data */

/* microseconds since the earliest process start (the script turns them into seconds) */
static int64_t rel(const struct cmt_analysis *a, size_t proc, int64_t t_from_start, int64_t base) {
    return (a->procs[proc].hdr.start_realtime_ns - base + t_from_start) / 1000;
}

static void uuid_of(const struct cmt_replay *r, int64_t dev, char *buf, size_t cap) {
    if (!cmt_replay_uuid(r, dev, buf)) snprintf(buf, cap, "device %lld (no uuid)", (long long)dev);
}

struct pt {
    int64_t t;
    uint64_t v;
};

static int cmp_pt(const void *x, const void *y) {
    const struct pt *a = x, *b = y;
    return a->t < b->t ? -1 : a->t > b->t;
}

static void write_series(struct cmt_json *j, struct cmt_analysis *a, const struct cmt_tl *tl, const struct cmt_tl_series *s,
                         struct stab *st, int64_t base) {
    const struct cmt_process *p = &a->procs[s->proc];
    cmt_json_object(j, NULL);
    cmt_json_u64(j, "proc", s->proc);
    cmt_json_i64(j, "dev", s->device);
    cmt_json_u64(j, "peak", s->peak);
    cmt_json_i64(j, "peak_t", rel(a, s->proc, s->peak_t, base));
    json_stack_ref(j, "peak_stack", stab_get(st, s->proc, s->peak_top_stack));
    cmt_json_u64(j, "peak_stack_bytes", s->peak_top_bytes);
    /* flat [t, bytes, stack, stack_bytes, ...] in time order */
    cmt_json_array(j, "pts");
    int64_t lastt = -1;
    uint64_t lastv = 0;
    for (size_t i = 0; i < tl->nbuckets; i++) {
        const struct cmt_tl_bucket *b = &s->b[i];
        if (!b->has) continue;
        struct pt v[3] = {{b->tmin, b->min}, {b->tmax, b->max}, {b->tlast, b->last}};
        qsort(v, 3, sizeof *v, cmp_pt);
        long sr = stab_get(st, s->proc, b->top_stack);
        for (int k = 0; k < 3; k++) {
            /* points at the same time are all kept (a coarse clock gives many): only exact
             * repeats go, so the bucket's max is always drawn */
            if (v[k].t == lastt && v[k].v == lastv) continue;
            lastt = v[k].t;
            lastv = v[k].v;
            cmt_json_i64(j, NULL, rel(a, s->proc, v[k].t, base));
            cmt_json_u64(j, NULL, v[k].v);
            if (sr < 0) cmt_json_i64(j, NULL, -1);
            else cmt_json_i64(j, NULL, sr);
            cmt_json_u64(j, NULL, b->top_bytes);
        }
    }
    /* to the end of the process */
    int64_t end = p->replay.last_time - p->hdr.start_clock_ns;
    if (end > s->tlast) {
        cmt_json_i64(j, NULL, rel(a, s->proc, end, base));
        cmt_json_u64(j, NULL, s->last);
        cmt_json_i64(j, NULL, -1);
        cmt_json_u64(j, NULL, 0);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
}

static void write_frames(struct cmt_json *j, const struct cmt_stack_sym *s) {
    cmt_json_array(j, NULL);
    for (size_t i = 0; i < s->n; i++) {
        const struct cmt_sym_frame *f = &s->frames[i];
        const char *b = strrchr(f->module, '/');
        b = b ? b + 1 : f->module;
        char line[1200];
        if (f->function && f->file)
            snprintf(line, sizeof line, "%.500s  %.500s:%d%s", f->function, f->file, f->line, f->inlined ? " (inlined)" : "");
        else if (f->function)
            snprintf(line, sizeof line, "%.500s  (%.300s+0x%llx)", f->function, b, (unsigned long long)f->offset);
        else
            snprintf(line, sizeof line, "%.300s+0x%llx", b, (unsigned long long)f->offset);
        cmt_json_str(j, NULL, line);
    }
    cmt_json_array_end(j);
}

static void write_folded(struct cmt_json *j, const char *key, struct cmt_analysis *a, int peak) {
    struct cmt_fold *v;
    size_t n;
    cmt_json_array(j, key);
    if (cmt_fold_collect(a, peak, &v, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            cmt_json_array(j, NULL);
            cmt_json_str(j, NULL, v[i].stack);
            cmt_json_u64(j, NULL, v[i].bytes);
            cmt_json_array_end(j);
        }
        cmt_fold_free(v, n);
    }
    cmt_json_array_end(j);
}

static void write_data(struct cmt_json *j, struct cmt_analysis *a, const struct cmt_tl *tl, size_t top) {
    struct stab st = {0};
    st.a = a;
    char u[64];
    int64_t base = 0;
    for (size_t i = 0; i < a->nprocs; i++)
        if (!i || a->procs[i].hdr.start_realtime_ns < base) base = a->procs[i].hdr.start_realtime_ns;
    uint64_t anomalies = 0;
    for (int k = 0; k < CMT_AN_COUNT; k++)
        if (k != CMT_AN_CAPTURED_ALLOCATIONS) anomalies += a->anomalies[k];
    cmt_json_object(j, NULL);
    cmt_json_object(j, "summary");
    cmt_json_u64(j, "leaked_bytes", a->leaked_bytes);
    cmt_json_u64(j, "leaked_allocations", a->leaked_allocations);
    cmt_json_u64(j, "leak_sites", a->nleaks);
    cmt_json_u64(j, "suppressed_bytes", a->suppressed_bytes);
    cmt_json_u64(j, "ooms", a->nooms);
    cmt_json_u64(j, "anomalies", anomalies);
    cmt_json_u64(j, "processes", a->nprocs);
    cmt_json_str(j, "verdict", a->verdict);
    cmt_json_i64(j, "start_unix_ms", base / 1000000);
    cmt_json_object_end(j);
    cmt_json_object(j, "anomalies");
    for (int k = 0; k < CMT_AN_COUNT; k++)
        if (a->anomalies[k]) cmt_json_u64(j, cmt_anomaly_names[k], a->anomalies[k]);
    cmt_json_object_end(j);
    cmt_json_array(j, "processes");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_process *p = &a->procs[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "pid", p->hdr.pid);
        cmt_json_i64(j, "rank", p->hdr.rank);
        cmt_json_str(j, "host", p->hdr.host);
        cmt_json_str(j, "command", p->command);
        cmt_json_str(j, "exit", p->exit);
        cmt_json_str(j, "dump", p->path);
        uint64_t pk = 0, lk = 0;
        for (size_t k = 0; k < p->replay.ndevs; k++) {
            pk += p->replay.devs[k].peak;
            lk += p->replay.devs[k].leaked_bytes;
        }
        cmt_json_u64(j, "peak", pk);
        cmt_json_u64(j, "leaked", lk);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    /* GPUs: one chart each, series of every process that used it */
    cmt_json_array(j, "gpus");
    unsigned char *done = calloc(tl->nseries + 1, 1);
    for (size_t s0 = 0; done && s0 < tl->nseries; s0++) {
        if (done[s0]) continue;
        const struct cmt_tl_series *s = &tl->series[s0];
        char key[64];
        uuid_of(&a->procs[s->proc].replay, s->device, key, sizeof key);
        int has_uuid = !strncmp(key, "GPU-", 4);
        const struct cmt_devstate *d = cmt_replay_device(&a->procs[s->proc].replay, s->device);
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", key);
        cmt_json_str(j, "name", d && d->has_info ? d->name : "");
        cmt_json_str(j, "pci", d && d->has_info ? d->pci : "");
        cmt_json_u64(j, "total", d ? d->total : 0);
        uint64_t gpeak = 0, gleak = 0;
        for (size_t g = 0; g < a->ngpus; g++)
            if (!strcmp(a->gpus[g].uuid, key)) {
                gpeak = a->gpus[g].peak_bytes;
                gleak = a->gpus[g].leaked_bytes;
            }
        if (!has_uuid && d) {
            gpeak = d->peak;
            gleak = d->leaked_bytes;
        }
        cmt_json_u64(j, "peak", gpeak);
        cmt_json_u64(j, "leaked", gleak);
        cmt_json_array(j, "series");
        for (size_t k = s0; k < tl->nseries; k++) {
            char k2[64];
            if (done[k]) continue;
            uuid_of(&a->procs[tl->series[k].proc].replay, tl->series[k].device, k2, sizeof k2);
            if (strcmp(k2, key) || (!has_uuid && k != s0)) continue;
            done[k] = 1;
            write_series(j, a, tl, &tl->series[k], &st, base);
        }
        cmt_json_array_end(j);
        cmt_json_array(j, "ooms");
        for (size_t m = 0; m < tl->nmarks; m++) {
            const struct cmt_tl_mark *mk = &tl->marks[m];
            if (mk->kind != CMT_TL_OOM || mk->device < 0) continue;
            uuid_of(&a->procs[mk->proc].replay, mk->device, u, sizeof u);
            if (strcmp(u, key)) continue;
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "proc", mk->proc);
            cmt_json_i64(j, "t", rel(a, mk->proc, mk->t, base));
            cmt_json_u64(j, "requested", mk->requested);
            cmt_json_u64(j, "live", mk->live);
            cmt_json_str(j, "api", mk->label);
            json_stack_ref(j, "stack", stab_get(&st, mk->proc, mk->stack));
            cmt_json_object_end(j);
        }
        cmt_json_array_end(j);
        cmt_json_object_end(j);
    }
    free(done);
    cmt_json_array_end(j);
    cmt_json_array(j, "markers");
    for (size_t m = 0; m < tl->nmarks; m++) {
        const struct cmt_tl_mark *mk = &tl->marks[m];
        if (mk->kind != CMT_TL_MARKER) continue;
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "proc", mk->proc);
        cmt_json_i64(j, "t", rel(a, mk->proc, mk->t, base));
        cmt_json_str(j, "label", mk->label ? mk->label : "");
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "host_ooms"); /* OOMs of host allocations: listed, not charted */
    for (size_t m = 0; m < tl->nmarks; m++) {
        const struct cmt_tl_mark *mk = &tl->marks[m];
        if (mk->kind != CMT_TL_OOM || mk->device >= 0) continue;
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "proc", mk->proc);
        cmt_json_i64(j, "t", rel(a, mk->proc, mk->t, base));
        cmt_json_u64(j, "requested", mk->requested);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "leaks");
    for (size_t i = 0; i < a->nleaks && i < top; i++) {
        const struct cmt_rleak *l = &a->leaks[i];
        cmt_json_object(j, NULL);
        cmt_json_u64(j, "bytes", l->leak->bytes);
        cmt_json_u64(j, "allocs", l->leak->allocations);
        cmt_json_str(j, "kind", cmt_kind_name(l->leak->kind) ? cmt_kind_name(l->leak->kind) : "?");
        cmt_json_u64(j, "pid", a->procs[l->proc].hdr.pid);
        cmt_json_i64(j, "rank", a->procs[l->proc].hdr.rank);
        cmt_json_i64(j, "dev", l->leak->device);
        cmt_json_str(j, "uuid", l->uuid);
        cmt_json_str(j, "at", cmt_leak_at_name(l->leak->at));
        json_stack_ref(j, "stack", stab_get(&st, l->proc, l->leak->stack));
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_array(j, "peaks");
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct cmt_replay *r = &a->procs[i].replay;
        for (size_t k = 0; k < r->ndevs; k++) {
            const struct cmt_devstate *d = &r->devs[k];
            if (!d->peak) continue;
            cmt_json_object(j, NULL);
            cmt_json_u64(j, "pid", a->procs[i].hdr.pid);
            cmt_json_i64(j, "rank", a->procs[i].hdr.rank);
            cmt_json_i64(j, "dev", d->ordinal);
            uuid_of(r, d->ordinal, u, sizeof u);
            cmt_json_str(j, "uuid", u);
            cmt_json_u64(j, "bytes", d->peak);
            cmt_json_i64(j, "t", rel(a, i, d->peak_time - a->procs[i].hdr.start_clock_ns, base));
            cmt_json_array(j, "top");
            for (size_t s = 0; s < d->npeak_top && s < top; s++) {
                cmt_json_object(j, NULL);
                cmt_json_u64(j, "bytes", d->peak_top[s].bytes);
                cmt_json_u64(j, "allocs", d->peak_top[s].allocations);
                json_stack_ref(j, "stack", stab_get(&st, i, d->peak_top[s].stack));
                cmt_json_object_end(j);
            }
            cmt_json_array_end(j);
            cmt_json_object_end(j);
        }
    }
    cmt_json_array_end(j);
    cmt_json_object(j, "imbalance");
    cmt_json_str(j, "verdict", a->verdict);
    cmt_json_array(j, "gpus");
    for (size_t g = 0; g < a->ngpus; g++) {
        cmt_json_object(j, NULL);
        cmt_json_str(j, "uuid", a->gpus[g].uuid);
        cmt_json_str(j, "name", a->gpus[g].name);
        cmt_json_str(j, "pci", a->gpus[g].pci);
        cmt_json_u64(j, "peak", a->gpus[g].peak_bytes);
        cmt_json_u64(j, "leaked", a->gpus[g].leaked_bytes);
        cmt_json_bool(j, "outlier", a->outlier == (int)g);
        cmt_json_object_end(j);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
    write_folded(j, "flame_leaks", a, 0);
    write_folded(j, "flame_peak", a, 1);
    /* last: every stack referenced above, symbolized */
    cmt_json_array(j, "stacks");
    for (size_t i = 0; i < st.n; i++) {
        struct cmt_stack_sym s = cmt_analysis_stack(a, st.order_proc[i], st.order_id[i]);
        write_frames(j, &s);
        cmt_stack_sym_free(&s);
    }
    cmt_json_array_end(j);
    cmt_json_object_end(j);
    stab_free(&st);
}

/* ---------------------------------------------------------------- page */

static void html_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        }
    }
}

static const char html_css[] =
    ":root{--fg:#1d2330;--mut:#5b6472;--bg:#f6f7f9;--card:#fff;--line:#dde1e7;--acc:#2563eb;--bad:#dc2626}\n"
    "*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}\n"
    "header{background:#111827;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px;font-weight:600}\n"
    "header .sub{color:#aab3c2;font-size:12px;margin-top:2px;word-break:break-all}\n"
    "main{padding:16px 24px;max-width:1600px;margin:0 auto}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:0 0 16px}\n"
    "h2{font-size:16px;margin:0 0 10px}h3{font-size:14px;margin:8px 0 4px}\n"
    ".cards{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:16px}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:150px}\n"
    ".card .v{font-size:22px;font-weight:650}.card .k{color:var(--mut);font-size:12px;text-transform:uppercase;letter-spacing:.04em}\n"
    ".card.bad .v{color:var(--bad)}.verdict{color:var(--mut);margin:4px 0 0}\n"
    ".chart{position:relative}.chart svg{display:block;width:100%;overflow:visible}\n"
    ".legend{display:flex;gap:14px;flex-wrap:wrap;font-size:12px;color:var(--mut);margin:2px 0 4px}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}\n"
    ".tip{position:absolute;pointer-events:none;background:rgba(17,24,39,.95);color:#fff;font-size:12px;padding:8px 10px;border-radius:6px;max-width:560px;display:none;z-index:5;white-space:nowrap;overflow:hidden}\n"
    ".tip .fr{color:#cbd5e1;font-family:ui-monospace,monospace;font-size:11px}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}\n"
    "th{color:var(--mut);font-weight:600;font-size:12px}td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
    "details summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:12px}details ol{margin:4px 0 4px 0;padding-left:22px;font-family:ui-monospace,monospace;font-size:12px;color:#374151}\n"
    ".mono{font-family:ui-monospace,monospace;font-size:12px}.muted{color:var(--mut)}\n"
    ".ice text{font-size:11px;fill:#111;pointer-events:none}.ice rect{stroke:#fff;stroke-width:.5;cursor:pointer}\n"
    ".grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}@media(max-width:1000px){.grid2{grid-template-columns:1fr}}\n"
    "#cmt-errors{color:var(--bad)}\n";

/* The drawing script. Everything the data contains is put into the page with textContent or as
 * SVG attribute values set through setAttribute: never parsed as HTML. */
static const char html_js[] =
    "(function(){'use strict';\n"
    "var D=JSON.parse(document.getElementById('cmt-data').textContent);\n"
    "(function(){var u=function(x){return x/1e6;};D.gpus.forEach(function(g){g.series.forEach(function(s){s.peak_t=u(s.peak_t);for(var i=0;i<s.pts.length;i+=4)s.pts[i]=u(s.pts[i]);});g.ooms.forEach(function(o){o.t=u(o.t);});});\n"
    " D.markers.forEach(function(m){m.t=u(m.t);});D.host_ooms.forEach(function(m){m.t=u(m.t);});D.peaks.forEach(function(p){p.t=u(p.t);});})();\n"
    "var NS='http://www.w3.org/2000/svg';\n"
    "var COL=['#2563eb','#16a34a','#d97706','#9333ea','#0891b2','#db2777','#65a30d','#7c3aed','#0d9488','#ea580c'];\n"
    "function el(t,a,p){var e=document.createElement(t);if(a)for(var k in a){if(k==='text')e.textContent=a[k];else e.setAttribute(k,a[k]);}if(p)p.appendChild(e);return e;}\n"
    "function sv(t,a,p){var e=document.createElementNS(NS,t);if(a)for(var k in a){if(k==='text')e.textContent=a[k];else e.setAttribute(k,a[k]);}if(p)p.appendChild(e);return e;}\n"
    "function hs(b){var u=['B','KiB','MiB','GiB','TiB','PiB'],i=0,v=b;if(v<1024)return v+' B';while(v>=1024&&i<5){v/=1024;i++;}return (v<10?v.toFixed(2):v<100?v.toFixed(1):v.toFixed(0))+' '+u[i];}\n"
    "function nice(r){if(!(r>0))return 1;var m=Math.pow(10,Math.floor(Math.log10(r))),n=r/m;return (n<1.5?1:n<2.25?2:n<3.5?2.5:n<7.5?5:10)*m;}\n"
    "function ts(s){return s===0?'0':s<1?+(s*1000).toFixed(3)+' ms':s<120?+s.toFixed(3)+' s':+(s/60).toFixed(2)+' min';}\n"
    "function pl(p){var r=D.processes[p];return (r.rank>=0?'rank '+r.rank+' ':'')+'pid '+r.pid;}\n"
    "function frames(i){return i===null||i===undefined||i<0?[]:(D.stacks[i]||[]);}\n"
    "function stackDetails(i,p){var f=frames(i),d=el('details',null,p);var s=el('summary',{text:f.length?f[Math.min(f.length-1,firstUser(f))]:'(no stack recorded)'},d);if(!f.length){s.className='muted';return d;}var o=el('ol',null,d);f.forEach(function(x){el('li',{text:x},o);});return d;}\n"
    "function firstUser(f){for(var i=0;i<f.length;i++){if(!/^(cu|cuda)[A-Z]|^fr_|^__|^_start|^\\[|\\+0x/.test(f[i]))return i;}return 0;}\n"
    "var root=document.getElementById('cmt-root');\n"
    /* summary cards */
    "var S=D.summary,cards=el('div',{'class':'cards'},root);\n"
    "function card(k,v,bad){var c=el('div',{'class':'card'+(bad?' bad':'')},cards);el('div',{'class':'v',text:v},c);el('div',{'class':'k',text:k},c);}\n"
    "card('leaked',hs(S.leaked_bytes),S.leaked_bytes>0);card('leak sites',String(S.leak_sites),S.leak_sites>0);\n"
    "card('OOM errors',String(S.ooms),S.ooms>0);card('processes',String(S.processes));card('GPUs',String(D.gpus.length));\n"
    "card('anomalies',String(S.anomalies),S.anomalies>0);\n"
    "if(S.start_unix_ms){var st=new Date(S.start_unix_ms);document.getElementById('cmt-start').textContent='started '+st.toISOString().replace('T',' ').replace(/\\.\\d+Z$/,' UTC');}\n"
    /* GPU charts */
    "var tmax=0;D.gpus.forEach(function(g){g.series.forEach(function(s){var n=s.pts.length;if(n)tmax=Math.max(tmax,s.pts[n-4]);});g.ooms.forEach(function(o){tmax=Math.max(tmax,o.t);});});\n"
    "D.markers.forEach(function(m){tmax=Math.max(tmax,m.t);});if(tmax<=0)tmax=1e-3;var XS=nice(tmax/8);tmax=Math.ceil(tmax*1.0001/XS)*XS;\n"
    "var gs=el('section',null,root);el('h2',{text:'Live device memory over time'},gs);\n"
    "if(!D.gpus.length)el('p',{'class':'muted',text:'No device memory recorded.'},gs);\n"
    "D.gpus.forEach(function(g,gi){chart(gs,g,gi);});\n"
    "function chart(sec,g,gi){\n"
    " var h=el('h3',null,sec);h.textContent=g.uuid+(g.name?'  \\u2014  '+g.name:'')+(g.pci?'  ('+g.pci+')':'');\n"
    " var lg=el('div',{'class':'legend'},sec);\n"
    " g.series.forEach(function(s,i){var sp=el('span',null,lg);el('i',{style:'background:'+COL[i%COL.length]},sp);sp.appendChild(document.createTextNode(pl(s.proc)+' (device '+s.dev+'), peak '+hs(s.peak)));});\n"
    " var sp0=el('span',null,lg);sp0.appendChild(document.createTextNode('GPU peak (sum) '+hs(g.peak)+(g.total?' of '+hs(g.total):'')+', leaked '+hs(g.leaked)));\n"
    " var box=el('div',{'class':'chart'},sec),W=Math.max(600,(box.clientWidth||1200)),H=230,L=74,R=16,T=22,B=28;\n"
    " var ymax=1;g.series.forEach(function(s){ymax=Math.max(ymax,s.peak);});g.ooms.forEach(function(o){ymax=Math.max(ymax,o.live);});\n"
    " var un=Math.pow(1024,Math.max(0,Math.floor(Math.log(ymax)/Math.log(1024)))),ys=nice(ymax*1.08/un/4)*un;ymax=Math.ceil(ymax*1.08/ys)*ys;var xs=XS;\n"
    " var svg=sv('svg',{viewBox:'0 0 '+W+' '+H,height:H,'class':'gpu-chart','data-gpu':g.uuid},box);\n"
    " function X(t){return L+(W-L-R)*t/tmax;}function Y(v){return T+(H-T-B)*(1-v/ymax);}\n"
    " for(var v=0;v<=ymax+ys/2;v+=ys){var y=Y(v);sv('line',{x1:L,x2:W-R,y1:y,y2:y,stroke:'#e5e7eb'},svg);sv('text',{x:L-6,y:y+4,'text-anchor':'end','font-size':11,fill:'#6b7280',text:hs(Math.round(v))},svg);}\n"
    " for(var t=0;t<=tmax*1.0001;t+=xs){var x=X(t);sv('line',{x1:x,x2:x,y1:H-B,y2:H-B+4,stroke:'#9ca3af'},svg);sv('text',{x:x,y:H-B+16,'text-anchor':'middle','font-size':11,fill:'#6b7280',text:ts(t)},svg);}\n"
    " sv('line',{x1:L,x2:W-R,y1:H-B,y2:H-B,stroke:'#9ca3af'},svg);\n"
    " var mine={};g.series.forEach(function(s){mine[s.proc]=1;});var marks=D.markers.filter(function(m){return mine[m.proc];});\n"
    " marks.forEach(function(m){var x=X(m.t);sv('line',{x1:x,x2:x,y1:T,y2:H-B,stroke:'#9ca3af','stroke-dasharray':'3,3','class':'marker'},svg);var nr=x>W-R-140,tt=sv('text',{x:nr?x-3:x+3,y:T-6,'text-anchor':nr?'end':'start','font-size':10,fill:'#6b7280',text:m.label.length>24?m.label.slice(0,23)+'\\u2026':m.label},svg);sv('title',{text:m.label+' ('+pl(m.proc)+', '+ts(m.t)+')'},tt);});\n"
    " if(g.total&&g.total<ymax){var yt=Y(g.total);sv('line',{x1:L,x2:W-R,y1:yt,y2:yt,stroke:'#dc2626','stroke-dasharray':'6,3','stroke-width':1},svg);sv('text',{x:W-R,y:yt-4,'text-anchor':'end','font-size':10,fill:'#dc2626',text:'capacity '+hs(g.total)},svg);}\n"
    " g.series.forEach(function(s,i){var p=s.pts,d='',c=COL[i%COL.length];if(!p.length)return;d='M'+X(p[0]).toFixed(1)+' '+Y(p[1]).toFixed(1);\n"
    "  for(var j=4;j<p.length;j+=4){d+='H'+X(p[j]).toFixed(1)+'V'+Y(p[j+1]).toFixed(1);}\n"
    "  var area=d+'V'+Y(0).toFixed(1)+'H'+X(p[0]).toFixed(1)+'Z';sv('path',{d:area,fill:c,'fill-opacity':0.08,stroke:'none'},svg);\n"
    "  sv('path',{d:d,fill:'none',stroke:c,'stroke-width':1.6,'class':'series'},svg);\n"
    "  var px=X(s.peak_t),py=Y(s.peak);sv('circle',{cx:px,cy:py,r:4.5,fill:c,stroke:'#fff','stroke-width':1.5,'class':'peak'},svg);\n"
    "  sv('text',{x:Math.min(px+7,W-R-90),y:Math.max(py-7,T+10),'font-size':11,'font-weight':600,fill:c,text:'peak '+hs(s.peak)},svg);});\n"
    " g.ooms.forEach(function(o){var x=X(o.t),y=Y(o.live);sv('line',{x1:x,x2:x,y1:T,y2:H-B,stroke:'#dc2626','stroke-width':1.2},svg);\n"
    "  sv('path',{d:'M'+x+' '+(y-9)+'L'+(x-6)+' '+(y+2)+'L'+(x+6)+' '+(y+2)+'Z',fill:'#dc2626','class':'oom'},svg);\n"
    "  sv('text',{x:x+4,y:T+10,'font-size':10,'font-weight':600,fill:'#dc2626',text:'OOM'},svg);});\n"
    " var cur=sv('line',{x1:0,x2:0,y1:T,y2:H-B,stroke:'#111827','stroke-width':1,visibility:'hidden'},svg);\n"
    " var tip=el('div',{'class':'tip'},box);\n"
    " function at(s,t){var p=s.pts,lo=0,hi=p.length/4-1;if(hi<0||t<p[0])return -1;while(lo<hi){var m=(lo+hi+1)>>1;if(p[m*4]<=t)lo=m;else hi=m-1;}return lo;}\n"
    " svg.addEventListener('mousemove',function(ev){var r=svg.getBoundingClientRect(),sx=(ev.clientX-r.left)*W/r.width;if(sx<L||sx>W-R){tip.style.display='none';cur.setAttribute('visibility','hidden');return;}\n"
    "  var t=(sx-L)/(W-L-R)*tmax;cur.setAttribute('x1',sx);cur.setAttribute('x2',sx);cur.setAttribute('visibility','visible');\n"
    "  tip.textContent='';el('div',{text:'t = '+ts(t)},tip);var best=null;\n"
    "  g.series.forEach(function(s,i){var k=at(s,t);if(k<0)return;var p=s.pts,v=p[k*4+1];el('div',{text:pl(s.proc)+': '+hs(v)+' live'},tip).style.color=COL[i%COL.length];if(p[k*4+2]>=0&&(!best||v>best.v))best={v:v,st:p[k*4+2],sb:p[k*4+3]};});\n"
    "  g.ooms.forEach(function(o){if(Math.abs(X(o.t)-sx)<6)el('div',{text:'OOM: '+(o.api||'allocation')+' of '+hs(o.requested)+' failed with '+hs(o.live)+' live'},tip).style.color='#fca5a5';});\n"
    "  marks.forEach(function(m){if(Math.abs(X(m.t)-sx)<4)el('div',{text:'marker: '+m.label},tip);});\n"
    "  if(best){el('div',{text:'top stack ('+hs(best.sb)+'):'},tip);frames(best.st).slice(0,8).forEach(function(f){el('div',{'class':'fr',text:'  '+f},tip);});}\n"
    "  tip.style.display='block';var bw=box.clientWidth||W,px=(ev.clientX-r.left);tip.style.left=(px+16+320>bw?Math.max(0,px-336):px+16)+'px';tip.style.top=(ev.clientY-r.top+12)+'px';});\n"
    " svg.addEventListener('mouseleave',function(){tip.style.display='none';cur.setAttribute('visibility','hidden');});\n"
    "}\n"
    /* imbalance */
    "var ib=el('section',null,root);el('h2',{text:'Imbalance across GPUs and ranks'},ib);el('p',{'class':'verdict',text:D.imbalance.verdict},ib);\n"
    "var g2=el('div',{'class':'grid2'},ib);\n"
    "bars(g2,'Peak per GPU',D.imbalance.gpus.map(function(g){return {l:g.uuid.slice(0,13)+'\\u2026 '+(g.pci||''),v:g.peak,b:g.outlier,t:g.uuid+' '+g.name};}));\n"
    "bars(g2,'Peak per rank / process',D.processes.map(function(p,i){return {l:pl(i)+(p.host?' @'+p.host:''),v:p.peak,t:p.command||''};}));\n"
    "function bars(p,title,rows){var d=el('div',null,p);el('h3',{text:title},d);if(!rows.length){el('p',{'class':'muted',text:'none'},d);return;}\n"
    " var mx=1,mean=0;rows.forEach(function(r){mx=Math.max(mx,r.v);mean+=r.v;});mean/=rows.length;var W=620,rh=22,L=200,H=rows.length*rh+24;\n"
    " var s=sv('svg',{viewBox:'0 0 '+W+' '+H,height:H,'class':'bars'},d);\n"
    " rows.forEach(function(r,i){var y=i*rh+4,w=(W-L-90)*r.v/mx;sv('text',{x:L-6,y:y+14,'text-anchor':'end','font-size':11,fill:'#374151',text:r.l},s);\n"
    "  var b=sv('rect',{x:L,y:y+3,width:Math.max(1,w),height:rh-8,rx:3,fill:r.b||(rows.length>1&&r.v>=1.2*mean)?'#dc2626':'#60a5fa'},s);sv('title',{text:r.t+': '+hs(r.v)},b);\n"
    "  sv('text',{x:L+w+6,y:y+14,'font-size':11,fill:'#374151',text:hs(r.v)},s);});\n"
    " var xm=L+(W-L-90)*mean/mx;sv('line',{x1:xm,x2:xm,y1:0,y2:H-20,stroke:'#111827','stroke-dasharray':'4,3'},s);sv('text',{x:xm,y:H-6,'text-anchor':'middle','font-size':10,fill:'#111827',text:'mean '+hs(Math.round(mean))},s);}\n"
    /* tables */
    "var lt=el('section',null,root);el('h2',{text:'Leaks'+(S.leak_sites>D.leaks.length?' (top '+D.leaks.length+' of '+S.leak_sites+')':'')},lt);\n"
    "if(!D.leaks.length)el('p',{'class':'muted',text:'No leaks.'},lt);else{var tb=el('table',{id:'leak-table'},lt),hr=el('tr',null,el('thead',null,tb));\n"
    " ['bytes','allocations','kind','where','live','stack'].forEach(function(h){el('th',{text:h},hr);});var bd=el('tbody',null,tb);\n"
    " D.leaks.forEach(function(l){var r=el('tr',null,bd);el('td',{'class':'n',text:hs(l.bytes)},r);el('td',{'class':'n',text:String(l.allocs)},r);el('td',{text:l.kind},r);\n"
    "  el('td',{'class':'mono',text:(l.dev>=0?'device '+l.dev+(l.uuid?' '+l.uuid:''):'host')+', '+(l.rank>=0?'rank '+l.rank+' ':'')+'pid '+l.pid},r);el('td',{text:l.at},r);stackDetails(l.stack,el('td',null,r));});}\n"
    "var pt=el('section',null,root);el('h2',{text:'Peaks: what was live at each device\\u2019s peak'},pt);\n"
    "if(!D.peaks.length)el('p',{'class':'muted',text:'No device memory recorded.'},pt);else{var tb2=el('table',{id:'peak-table'},pt),hr2=el('tr',null,el('thead',null,tb2));\n"
    " ['peak','device','when','live then','allocations','stack'].forEach(function(h){el('th',{text:h},hr2);});var bd2=el('tbody',null,tb2);\n"
    " D.peaks.forEach(function(p){p.top.forEach(function(s,i){var r=el('tr',null,bd2);el('td',{'class':'n',text:i?'':hs(p.bytes)},r);el('td',{'class':'mono',text:i?'':'device '+p.dev+' '+p.uuid+', '+(p.rank>=0?'rank '+p.rank+' ':'')+'pid '+p.pid},r);\n"
    "  el('td',{'class':'n',text:i?'':ts(p.t)},r);el('td',{'class':'n',text:hs(s.bytes)},r);el('td',{'class':'n',text:String(s.allocs)},r);stackDetails(s.stack,el('td',null,r));});});}\n"
    /* icicles */
    "var fs=el('section',null,root);el('h2',{text:'Icicle graphs (outermost frame on top; click to zoom, click the top bar to zoom out)'},fs);\n"
    "icicle(fs,'Leaked bytes',D.flame_leaks,'ice-leaks');icicle(fs,'Bytes live at the peak',D.flame_peak,'ice-peak');\n"
    "function icicle(p,title,folded,id){var d=el('div',{id:id},p);el('h3',{text:title},d);if(!folded.length){el('p',{'class':'muted',text:'nothing'},d);return;}\n"
    " var rt={n:'all',v:0,c:{}};folded.forEach(function(f){var n=rt;n.v+=f[1];f[0].split(';').forEach(function(x){var c=n.c[x];if(!c)c=n.c[x]={n:x,v:0,c:{}};c.v+=f[1];n=c;});});\n"
    " var box=el('div',null,d);function draw(z){box.textContent='';var W=Math.max(600,box.clientWidth||1200),rh=18,maxd=0;\n"
    "  (function dep(n,k){maxd=Math.max(maxd,k);for(var c in n.c)dep(n.c[c],k+1);})(z,0);\n"
    "  var svg=sv('svg',{viewBox:'0 0 '+W+' '+((maxd+1)*rh+2),height:(maxd+1)*rh+2,'class':'ice'},box);\n"
    "  (function put(n,x,w,k){if(w<0.5)return;var hu=0;for(var i=0;i<n.n.length;i++)hu=(hu*31+n.n.charCodeAt(i))>>>0;\n"
    "   var g=sv('g',null,svg),r=sv('rect',{x:x,y:k*rh,width:w,height:rh-1,fill:k?'hsl('+(10+hu%40)+','+(70+hu%20)+'%,'+(58+hu%14)+'%)':'#cbd5e1'},g);\n"
    "   sv('title',{text:n.n+'  '+hs(n.v)+' ('+(100*n.v/z.v).toFixed(1)+'%)'},r);\n"
    "   if(w>36){var lab=n.n+' '+hs(n.v),mx=Math.floor((w-6)/6.4);sv('text',{x:x+3,y:k*rh+13,text:lab.length>mx?lab.slice(0,Math.max(0,mx-1))+'\\u2026':lab},g);}\n"
    "   r.addEventListener('click',function(){draw(n===z&&z.parent?z.parent:n);});\n"
    "   var cx=x,ks=Object.keys(n.c).sort(function(a,b){return n.c[b].v-n.c[a].v;});ks.forEach(function(c){n.c[c].parent=n;var cw=w*n.c[c].v/n.v;put(n.c[c],cx,cw,k+1);cx+=cw;});})(z,0,W,0);}\n"
    " (function par(n){for(var c in n.c){n.c[c].parent=n;par(n.c[c]);}})(rt);draw(rt);}\n"
    /* processes, anomalies */
    "var ps=el('section',null,root);el('h2',{text:'Processes'},ps);var tb3=el('table',null,ps),h3=el('tr',null,el('thead',null,tb3));\n"
    "['process','host','exit','peak','leaked','command','dump'].forEach(function(h){el('th',{text:h},h3);});var bd3=el('tbody',null,tb3);\n"
    "D.processes.forEach(function(p,i){var r=el('tr',null,bd3);el('td',{text:pl(i)},r);el('td',{text:p.host},r);el('td',{text:p.exit},r);el('td',{'class':'n',text:hs(p.peak)},r);el('td',{'class':'n',text:hs(p.leaked)},r);el('td',{'class':'mono',text:p.command||''},r);el('td',{'class':'mono',text:p.dump},r);});\n"
    "var ak=Object.keys(D.anomalies);if(ak.length){var as=el('section',null,root);el('h2',{text:'Anomalies'},as);var ul=el('ul',null,as);ak.forEach(function(k){el('li',{text:k+': '+D.anomalies[k]},ul);});}\n"
    "document.body.setAttribute('data-rendered','ok');el('div',{id:'cmt-render-ok',hidden:'hidden'},document.body);\n"
    "})();\n";

int cmt_report_html(struct cmt_analysis *a, const struct cmt_tl *tl, size_t top, FILE *f) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return 3;
    struct cmt_json j;
    cmt_json_init(&j, m, 0);
    write_data(&j, a, tl, top ? top : 10);
    cmt_json_finish(&j);
    if (fclose(m) != 0) {
        free(buf);
        return 3;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<title>cumemtrack report",
          f);
    if (a->nprocs) {
        fputs(": ", f);
        html_escape(f, a->procs[0].command && a->procs[0].command[0] ? a->procs[0].command : a->procs[0].path);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header><h1>cumemtrack report</h1><div class=\"sub\">", html_css);
    for (size_t i = 0; i < a->nprocs && i < 8; i++) {
        if (i) fputs(" &middot; ", f);
        html_escape(f, a->procs[i].path);
    }
    if (a->nprocs > 8) fprintf(f, " &middot; and %zu more", a->nprocs - 8);
    fputs(" &middot; <span id=\"cmt-start\"></span></div></header>\n<main>\n"
          "<noscript><p>This report draws its charts with JavaScript; enable it for this file.</p></noscript>\n"
          "<div id=\"cmt-errors\"></div>\n<div id=\"cmt-root\"></div>\n</main>\n"
          "<script>window.onerror=function(msg,src,line){var e=document.getElementById('cmt-errors');"
          "e.setAttribute('data-error','1');e.textContent+='script error: '+msg+' (line '+line+') ';};</script>\n"
          "<script type=\"application/json\" id=\"cmt-data\">",
          f);
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (c == '<') fputs("\\u003c", f);
        else if (c == '>') fputs("\\u003e", f);
        else if (c == '&') fputs("\\u0026", f);
        else fputc(c, f);
    }
    free(buf);
    fprintf(f, "</script>\n<script>\n%s</script>\n</body></html>\n", html_js);
    return 0;
}
