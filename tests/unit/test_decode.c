/*
 * test_decode.c — prints every record the analyzer's reader decodes from a dump, every field of
 * struct cmt_event on one line (but the file offset, which depends on the block layout), so that
 * tests/cases/analyzer_fastpath.sh can compare the reader's two ALLOC/FREE decoders (the fast one,
 * taken when a whole record fits before the end of its block, and the checked one) on the same
 * records laid out in big and in small blocks. It also checks that an ALLOC, FREE or RETRACK
 * carries nothing past its own fields (the fast path clears the others lazily), and prints with
 * each PYCODE whether the reader kept its definition (cmt_dump_pycode).
 * With --hot it reads through cmt_dump_next_hot (the replay's look-ahead queue: ALLOC/FREE decoded
 * into the caller's slot), the slot filled with 0xa5 bytes before every call, and prints the same
 * lines (an event in the slot: its fields up to result, the rest zero), then "hot N" on stderr: how
 * many events came in the slot. With --run it reads as the replay does: runs of records through
 * cmt_dump_next_hot_run into a ring of 32 slots (0xa5 bytes before every call; each run starts
 * where the last ended and asks for 1 to 24 records in turn, or up to the ring's end), cmt_dump_next_hot
 * when a run takes none; "hot N" then counts the events decoded by runs, "runs N" the runs.
 * Usage: test_decode [--hot|--run] DUMP. Exit 0; 1 when the dump is corrupt (the reader's message on
 * stderr, after the records before it); 4 when an ALLOC/FREE/RETRACK has a stray field; 3 unreadable.
 */
#include <stdio.h>
#include <string.h>

#include "reader.h"

static unsigned long long u(uint64_t v) {
    return (unsigned long long)v;
}

/* 1 when every field past result is zero (what an ALLOC, FREE or RETRACK must look like) */
static int cold_clear(const struct cmt_event *e) {
    return !e->id && !e->nframes && !e->npy && !e->first_line && !e->total && !e->str1 && !e->str2 && !e->str1_len &&
           !e->str2_len && !e->handle && !e->op && !e->heap && !e->pool && !e->location_type && !e->location_id &&
           !e->exit_how && !e->exit_status && !e->err && !e->version && !e->live && !e->threshold && !e->caller &&
           !e->base && !e->nseg && !e->payload && !e->payload_len;
}

#define RUN_RING 32

/* Prints one event as the replay sees it: e, or an event in a slot (its fields up to result). */
static int show(struct cmt_dump *d, const struct cmt_event *e, int in_slot);

int main(int argc, char **argv) {
    char err[512];
    int hot = argc == 3 && !strcmp(argv[1], "--hot"), run = argc == 3 && !strcmp(argv[1], "--run");
    if (argc != 2 + (hot || run)) return 2;
    struct cmt_dump *d = cmt_dump_open(argv[argc - 1], err, sizeof err);
    if (!d) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    const struct cmt_event *e;
    static struct cmt_event slot, ring[RUN_RING];
    unsigned long long nhot = 0, nruns = 0;
    size_t at = 0, ask = 0;
    int rc, stray = 0;
    for (;;) {
        if (run) {
            memset(ring, 0xa5, sizeof ring);
            size_t max = 1 + ask++ % 24;
            if (max > RUN_RING - at) max = RUN_RING - at;
            size_t got = cmt_dump_next_hot_run(d, &ring[at], max);
            if (got > max) fprintf(stderr, "a run of %zu records asked for %zu\n", got, max), stray = 1;
            for (size_t i = 0; i < got; i++, at = (at + 1) % RUN_RING)
                stray |= show(d, &ring[at], 1);
            nhot += got;
            nruns += got > 0;
            if (got) continue;
        }
        if (hot || run) {
            memset(&slot, 0xa5, sizeof slot);
            rc = cmt_dump_next_hot(d, &slot, &e);
        } else {
            rc = cmt_dump_next(d, &e);
        }
        if (rc <= 0) break;
        nhot += hot && e == &slot;
        stray |= show(d, e, e == &slot);
    }
    if (rc < 0) fprintf(stderr, "%s\n", cmt_dump_error(d));
    if (hot || run) fprintf(stderr, "hot %llu\n", nhot);
    if (run) fprintf(stderr, "runs %llu\n", nruns);
    cmt_dump_close(d);
    return rc < 0 ? 1 : stray ? 4 : 0;
}

static int show(struct cmt_dump *d, const struct cmt_event *e, int in_slot) {
    struct cmt_event shown;
    int stray = 0;
    if (in_slot) { /* only the fields up to result are the event's */
        if (e->type != CMT_REC_ALLOC && e->type != CMT_REC_FREE)
            fprintf(stderr, "record seq %llu: type %u in the slot\n", u(e->seq), e->type), stray = 1;
        memset(&shown, 0, sizeof shown);
        memcpy(&shown, e, CMT_EVENT_HOT_SIZE);
        e = &shown;
    }
    printf("%u w%u seq=%llu t=%lld api=%llu kind=%llu flags=%llu dev=%lld ptr=%llu size=%llu granted=%llu "
           "stack=%llu ctx=%llu result=%llu id=%llu n=%u npy=%u line=%llu total=%llu s1=%.*s s2=%.*s h=%llu "
           "op=%llu heap=%llu pool=%llu lt=%llu li=%lld how=%llu st=%lld err=%lld ver=%llu live=%llu "
           "thr=%llu caller=%lld base=%llu nseg=%u plen=%zu",
           e->type, e->writer, u(e->seq), (long long)e->time_ns, u(e->api), u(e->kind), u(e->flags),
           (long long)e->device, u(e->ptr), u(e->size), u(e->granted), u(e->stack), u(e->ctx), u(e->result), u(e->id),
           e->nframes, e->npy, u(e->first_line), u(e->total), (int)e->str1_len, e->str1 ? e->str1 : "",
           (int)e->str2_len, e->str2 ? e->str2 : "", u(e->handle), u(e->op), u(e->heap), u(e->pool),
           u(e->location_type), (long long)e->location_id, u(e->exit_how), (long long)e->exit_status, (long long)e->err,
           u(e->version), u(e->live), u(e->threshold), (long long)e->caller, u(e->base), e->nseg, e->payload_len);
    for (uint32_t i = 0; i < e->nframes; i++)
        printf(" 0x%llx", u(e->frames[i]));
    if (e->type == CMT_REC_PYCODE) /* the reader keeps each definition it returned */
        printf(" known=%d", cmt_dump_pycode(d, e->id) != NULL);
    printf("\n");
    if ((e->type == CMT_REC_ALLOC || e->type == CMT_REC_FREE || e->type == CMT_REC_RETRACK) && !cold_clear(e)) {
        fprintf(stderr, "record seq %llu (type %u): a field past result is set\n", u(e->seq), e->type);
        stray = 1;
    }
    return stray;
}
