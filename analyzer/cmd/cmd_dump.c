/*
 * cmd_dump.c — cumemtrack dump [--raw] DUMP: every record of a dump in merged (sequence) order, one
 * line each, for debugging and end-to-end tests. First a "# " header line (path, pid, version,
 * writers, blocks, truncated), then one line per record:
 *   seq=N t=NS TYPE FIELD=VALUE...
 * with t the record time in ns (clock of the dump), TYPE the record name and these fields:
 *   ALLOC / RETRACK  api=NAME kind=NAME dev=D ptr=0xP size=N granted=N stack=ID ctx=IDX flags=0xF
 *                    (RETRACK adds result=N)
 *   FREE             api=NAME dev=D ptr=0xP flags=0xF
 *   OOM / FAILED     api=NAME dev=D size=N stack=ID result=N
 *   TEARDOWN         api=NAME dev=D ctx=IDX flags=0xF
 *   STACK            id=ID n=N 0xADDR... (innermost first), then when it has Python frames:
 *                    npy=K and K times "QUALNAME" "FILE":LINE@AT (innermost first; AT: the index of
 *                    the native eval-loop frame that ran it, n when beyond; "?" code=ID when the
 *                    PYCODE is missing)
 *   PYCODE           id=ID first_line=N file="..." name="..."
 *   DEVICE           ord=D uuid=GPU-... name="..." pci=... total=N
 *   CTX              idx=IDX dev=D handle=0xH
 *   EXIT             how=clean|exit-immediate|exec|N status=S
 *   MODULE_LOAD      id=ID base=0xB path="..." buildid=HEX seg=0xVADDR:0xMEMSZ:FLAGS...
 *   MODULE_UNLOAD    id=ID
 *   POOL             handle=0xH type=N loc=N op=N
 *   UNMATCHED_PROC   name="..." version=N flags=0xF
 *   VMM_MAP          op=N ptr=0xP size=N handle=0xH
 *   INFO             key="..." value="..."
 *   MARKER           label="..." flags=N domain="..."
 *   ALERT            dev=D live=N threshold=N caller=N
 *   EXEC_FAILED      errno=N
 *   API_NAME         id=ID name="..."
 *   SUBALLOC         op=N heap=0xH ptr=0xP size=N stack=ID name="..."
 *   PYTHON           state=N version=0xV text="..."
 * and last, when the header's exit_status slot is set (2.3): "# exit how=NAME status=S (header)".
 *   EXT_0xNN         len=N (an extension record this reader does not know)
 * api=NAME is the API_NAME of the id (api=N when unnamed); strings are quoted with C escapes.
 * With --raw, api and kind are numbers, and each line ends with " w=WRITER off=OFFSET".
 * Exit: 0, 2 usage, 3 unreadable or corrupt (the records before the fault are printed).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "cli.h"

static const char dump_help[] = "usage: cumemtrack dump [--raw] [-o FILE] DUMP\n"
                                "Prints every record of DUMP in sequence order, one line each: sequence number, time,\n"
                                "record type and its fields (for debugging; see man cumemtrack).\n"
                                "  --raw    numeric api/kind, plus writer and file offset per record\n";

static void qstr(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* api names are collected in a first pass (they are defined before use, but this keeps dump
 * independent of that) */
struct apiname {
    uint64_t id;
    const char *s;
    size_t n;
};

static void api(FILE *f, int raw, const struct apiname *v, size_t nv, uint64_t id) {
    if (!raw)
        for (size_t i = nv; i-- > 0;)
            if (v[i].id == id) {
                fprintf(f, " api=%.*s", (int)v[i].n, v[i].s);
                return;
            }
    fprintf(f, " api=%llu", (unsigned long long)id);
}

static void kind(FILE *f, int raw, uint64_t k) {
    const char *n = cmt_kind_name(k);
    if (raw || !n)
        fprintf(f, " kind=%llu", (unsigned long long)k);
    else
        fprintf(f, " kind=%s", n);
}

int cmt_cmd_dump(int argc, char **argv) {
    static const struct option opts[] = {{"raw", no_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},
                                         {"output", required_argument, 0, 'o'},
                                         {0, 0, 0, 0}};
    int raw = 0, c;
    const char *out = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            raw = 1;
            break;
        case 'o':
            out = optarg;
            break;
        case 'h':
            fputs(dump_help, stdout);
            return 0;
        default:
            cmt_msg("dump: unknown or incomplete option '%s'\n%s", argv[optind - 1], dump_help);
            return 2;
        }
    }
    if (optind != argc - 1) {
        cmt_msg("dump: exactly one DUMP expected\n%s", dump_help);
        return 2;
    }
    char err[1024];
    struct cmt_dump *d = cmt_dump_open(argv[optind], err, sizeof err);
    if (!d) {
        cmt_msg("%s", err);
        return 3;
    }
    struct apiname names[512];
    size_t nn = 0;
    const struct cmt_event *e;
    int rc;
    while ((rc = cmt_dump_next(d, &e)) > 0)
        if (e->type == CMT_REC_API_NAME && nn < 512) names[nn++] = (struct apiname){e->id, e->str1, e->str1_len};
    cmt_dump_rewind(d);
    FILE *f = cmt_open_output(out);
    if (!f) {
        cmt_dump_close(d);
        return 3;
    }
    const struct cmt_file_header *h = cmt_dump_header(d);
    fprintf(f, "# %s pid=%u version=%u.%u writers=%u blocks=%u truncated=%d\n", cmt_dump_path(d), h->pid,
            h->version_major, h->version_minor, cmt_dump_writers(d), cmt_dump_blocks(d), cmt_dump_truncated(d));
    char u[48];
    while ((rc = cmt_dump_next(d, &e)) > 0) {
        const char *tn = cmt_rec_name(e->type);
        fprintf(f, "seq=%llu t=%lld ", (unsigned long long)e->seq, (long long)e->time_ns);
        if (tn)
            fputs(tn, f);
        else
            fprintf(f, "EXT_0x%02x len=%zu", e->type, e->payload_len);
        switch (e->type) {
        case CMT_REC_ALLOC:
        case CMT_REC_RETRACK:
            api(f, raw, names, nn, e->api);
            kind(f, raw, e->kind);
            fprintf(f, " dev=%lld ptr=0x%llx size=%llu granted=%llu stack=%llu ctx=%llu flags=0x%llx",
                    (long long)e->device, (unsigned long long)e->ptr, (unsigned long long)e->size,
                    (unsigned long long)e->granted, (unsigned long long)e->stack, (unsigned long long)e->ctx,
                    (unsigned long long)e->flags);
            if (e->type == CMT_REC_RETRACK) fprintf(f, " result=%llu", (unsigned long long)e->result);
            break;
        case CMT_REC_FREE:
            api(f, raw, names, nn, e->api);
            fprintf(f, " dev=%lld ptr=0x%llx flags=0x%llx", (long long)e->device, (unsigned long long)e->ptr,
                    (unsigned long long)e->flags);
            break;
        case CMT_REC_OOM:
        case CMT_REC_FAILED:
            api(f, raw, names, nn, e->api);
            fprintf(f, " dev=%lld size=%llu stack=%llu result=%llu", (long long)e->device, (unsigned long long)e->size,
                    (unsigned long long)e->stack, (unsigned long long)e->result);
            break;
        case CMT_REC_TEARDOWN:
            api(f, raw, names, nn, e->api);
            fprintf(f, " dev=%lld ctx=%llu flags=0x%llx", (long long)e->device, (unsigned long long)e->ctx,
                    (unsigned long long)e->flags);
            break;
        case CMT_REC_STACK:
            fprintf(f, " id=%llu n=%u", (unsigned long long)e->id, e->nframes);
            for (uint32_t i = 0; i < e->nframes; i++) fprintf(f, " 0x%llx", (unsigned long long)e->frames[i]);
            if (e->npy) fprintf(f, " npy=%u", e->npy);
            for (uint32_t i = 0; i < e->npy; i++) {
                const struct cmt_pycode *pc = cmt_dump_pycode(d, e->py[i].code);
                fputc(' ', f);
                if (pc) {
                    qstr(f, pc->name, pc->name_len);
                    fputc(' ', f);
                    qstr(f, pc->file, pc->file_len);
                } else
                    fprintf(f, "\"?\" code=%llu", (unsigned long long)e->py[i].code);
                fprintf(f, ":%llu@%llu", (unsigned long long)e->py[i].line, (unsigned long long)e->py[i].at);
            }
            break;
        case CMT_REC_PYCODE:
            fprintf(f, " id=%llu first_line=%llu file=", (unsigned long long)e->id, (unsigned long long)e->first_line);
            qstr(f, e->str1, e->str1_len);
            fprintf(f, " name=");
            qstr(f, e->str2, e->str2_len);
            break;
        case CMT_REC_DEVICE:
            cmt_uuid_format(e->uuid, u);
            fprintf(f, " ord=%lld uuid=%s name=", (long long)e->device, u);
            qstr(f, e->str1, e->str1_len);
            fprintf(f, " pci=");
            qstr(f, e->str2, e->str2_len);
            fprintf(f, " total=%llu", (unsigned long long)e->total);
            break;
        case CMT_REC_CTX:
            fprintf(f, " idx=%llu dev=%lld handle=0x%llx", (unsigned long long)e->ctx, (long long)e->device,
                    (unsigned long long)e->handle);
            break;
        case CMT_REC_EXIT: {
            static const char *const hn[] = {NULL, "clean", "exit-immediate", "exec"};
            if (e->exit_how >= 1 && e->exit_how <= 3)
                fprintf(f, " how=%s", hn[e->exit_how]);
            else
                fprintf(f, " how=%llu", (unsigned long long)e->exit_how);
            fprintf(f, " status=%lld", (long long)e->exit_status);
            break;
        }
        case CMT_REC_MODULE_LOAD:
            fprintf(f, " id=%llu base=0x%llx path=", (unsigned long long)e->id, (unsigned long long)e->base);
            qstr(f, e->str1, e->str1_len);
            fprintf(f, " buildid=");
            for (size_t i = 0; i < e->str2_len; i++)
                fprintf(f, "%02x", (unsigned char)e->str2[i]);
            for (uint32_t i = 0; i < e->nseg; i++)
                fprintf(f, " seg=0x%llx:0x%llx:%llu", (unsigned long long)e->segs[i].vaddr,
                        (unsigned long long)e->segs[i].memsz, (unsigned long long)e->segs[i].flags);
            break;
        case CMT_REC_MODULE_UNLOAD:
            fprintf(f, " id=%llu", (unsigned long long)e->id);
            break;
        case CMT_REC_POOL:
            fprintf(f, " handle=0x%llx type=%llu loc=%lld op=%llu", (unsigned long long)e->pool,
                    (unsigned long long)e->location_type, (long long)e->location_id, (unsigned long long)e->op);
            break;
        case CMT_REC_UNMATCHED_PROC:
            fprintf(f, " name=");
            qstr(f, e->str1, e->str1_len);
            fprintf(f, " version=%llu flags=0x%llx", (unsigned long long)e->version, (unsigned long long)e->flags);
            break;
        case CMT_REC_VMM_MAP:
            fprintf(f, " op=%llu ptr=0x%llx size=%llu handle=0x%llx", (unsigned long long)e->op,
                    (unsigned long long)e->ptr, (unsigned long long)e->size, (unsigned long long)e->handle);
            break;
        case CMT_REC_INFO:
            fprintf(f, " key=");
            qstr(f, e->str1, e->str1_len);
            fprintf(f, " value=");
            qstr(f, e->str2, e->str2_len);
            break;
        case CMT_REC_MARKER:
            fprintf(f, " label=");
            qstr(f, e->str1, e->str1_len);
            fprintf(f, " flags=%llu domain=", (unsigned long long)e->flags);
            qstr(f, e->str2, e->str2_len);
            break;
        case CMT_REC_ALERT:
            fprintf(f, " dev=%lld live=%llu threshold=%llu caller=%lld", (long long)e->device,
                    (unsigned long long)e->live, (unsigned long long)e->threshold, (long long)e->caller);
            break;
        case CMT_REC_EXEC_FAILED:
            fprintf(f, " errno=%lld", (long long)e->err);
            break;
        case CMT_REC_SUBALLOC:
            fprintf(f, " op=%llu heap=0x%llx ptr=0x%llx size=%llu stack=%llu name=", (unsigned long long)e->op,
                    (unsigned long long)e->heap, (unsigned long long)e->ptr, (unsigned long long)e->size,
                    (unsigned long long)e->stack);
            qstr(f, e->str1, e->str1_len);
            break;
        case CMT_REC_PYTHON:
            fprintf(f, " state=%llu version=0x%llx text=", (unsigned long long)e->op, (unsigned long long)e->version);
            qstr(f, e->str1, e->str1_len);
            break;
        case CMT_REC_API_NAME:
            fprintf(f, " id=%llu name=", (unsigned long long)e->id);
            qstr(f, e->str1, e->str1_len);
            break;
        default:
            break;
        }
        if (raw) fprintf(f, " w=%u off=%llu", e->writer, (unsigned long long)e->offset);
        fputc('\n', f);
    }
    uint32_t slot = h->version_major == 2 && h->version_minor >= 3 ? h->exit_status : 0;
    if (rc >= 0 && (slot & CMT_EXIT_SLOT_SET)) {
        static const char *const hn[] = {"0", "clean", "exit-immediate", "exec"};
        unsigned how = slot >> 8 & 0xff;
        if (how <= 3)
            fprintf(f, "# exit how=%s status=%u (header)\n", hn[how], slot & 0xff);
        else
            fprintf(f, "# exit how=%u status=%u (header)\n", how, slot & 0xff);
    }
    int orc = cmt_close_output(f, out);
    if (rc < 0) {
        cmt_msg("%s", cmt_dump_error(d));
        cmt_dump_close(d);
        return 3;
    }
    cmt_dump_close(d);
    return orc;
}
