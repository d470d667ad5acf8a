/*
 * test_replay_queue.c — the replay of a whole dump (cmt_replay_dump: once the live table is big,
 * runs of records decoded ahead into a queue and applied a batch at a time) gives the figures that
 * applying the records one at a time gives (cmt_dump_next, cmt_replay_event, cmt_replay_finish).
 * Usage: test_replay_queue --queued|--each DUMP: prints the figures (events and times, anomalies,
 * host and per-device counters with the stacks live at each device's peak, leaks, OOMs, imported
 * memory) one per line, then "live_slots N"
 * (the live table's slots at the end: the queue is used from CMT_REPLAY_QUEUE_MIN_SLOTS on).
 * tests/cases/analyzer_fastpath.sh compares the two. Exit 0; 1 when the dump is corrupt.
 */
#include <stdio.h>
#include <string.h>

#include "reader.h"
#include "replay_internal.h"

static unsigned long long u(uint64_t v) {
    return (unsigned long long)v;
}

static void print_figures(const struct cmt_replay *r) {
    printf("events %llu first %lld last %lld oom %llu unmatched %llu\n", u(r->events), (long long)r->first_time,
           (long long)r->last_time, u(r->out_of_memory), u(r->unmatched_records));
    for (int i = 0; i < CMT_AN_COUNT; i++)
        printf("anomaly %s %llu\n", cmt_anomaly_names[i], u(r->anomalies[i]));
    printf("host live %llu peak %llu leaked %llu/%llu allocations %llu frees %llu\n", u(r->host_live), u(r->host_peak),
           u(r->host_leaked), u(r->host_leaked_allocations), u(r->host_allocations), u(r->host_frees));
    for (int64_t ord = 0; ord < 64; ord++) { /* by ordinal: one replay sorts its devices, the other not */
        const struct cmt_devstate *d = cmt_replay_device(r, ord);
        if (!d) continue;
        printf("device %lld allocations %llu frees %llu live %llu/%llu peak %llu at %lld seq %llu leaked %llu/%llu\n",
               (long long)ord, u(d->allocations), u(d->frees), u(d->live), u(d->live_count), u(d->peak),
               (long long)d->peak_time, u(d->peak_seq), u(d->leaked_bytes), u(d->leaked_allocations));
        for (size_t k = 0; k < d->npeak_top; k++) /* the stacks live at its peak */
            printf("  peak stack %llu bytes %llu allocations %llu\n", u(d->peak_top[k].stack), u(d->peak_top[k].bytes),
                   u(d->peak_top[k].allocations));
    }
    for (size_t i = 0; i < r->nleaks; i++) {
        const struct cmt_leak *k = &r->leaks[i];
        printf("leak dev %lld kind %llu stack %llu at %d bytes %llu requested %llu allocations %llu\n",
               (long long)k->device, u(k->kind), u(k->stack), k->at, u(k->bytes), u(k->requested), u(k->allocations));
    }
    for (size_t i = 0; i < r->nooms; i++) {
        const struct cmt_oom *o = &r->ooms[i];
        printf("oom dev %lld requested %llu stack %llu seq %llu live %llu top %zu\n", (long long)o->device,
               u(o->requested), u(o->stack), u(o->seq), u(o->live_bytes), o->ntop);
        for (size_t k = 0; k < o->ntop; k++)
            printf("  stack %llu bytes %llu\n", u(o->top[k].stack), u(o->top[k].bytes));
    }
    for (size_t i = 0; i < r->nimported; i++) {
        const struct cmt_imported *m = &r->imported[i];
        printf("imported dev %lld ptr %llu bytes %llu open %d\n", (long long)m->device, u(m->ptr), u(m->bytes),
               m->open);
    }
    printf("live_slots %zu\n", r->t->live.cap);
}

int main(int argc, char **argv) {
    char err[512];
    if (argc != 3 || (strcmp(argv[1], "--queued") && strcmp(argv[1], "--each"))) return 2;
    struct cmt_dump *d = cmt_dump_open(argv[2], err, sizeof err);
    if (!d) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    struct cmt_replay r;
    if (cmt_replay_init(&r, 0) != 0) return 3;
    int rc = 0;
    if (!strcmp(argv[1], "--queued")) {
        rc = cmt_replay_dump(&r, d);
    } else {
        const struct cmt_event *e;
        while ((rc = cmt_dump_next(d, &e)) > 0)
            cmt_replay_event(&r, e);
        cmt_replay_finish(&r);
    }
    if (rc < 0) {
        fprintf(stderr, "%s\n", cmt_dump_error(d));
    } else {
        print_figures(&r);
    }
    cmt_replay_free(&r);
    cmt_dump_close(d);
    return rc < 0;
}
