/*
 * cmt_mkdump.c — writes a valid cumemtrack dump (include/cmt_format.h) from a small text script,
 * for the analyzer's golden, corrupt-input and fuzz tests. Usage: cmt_mkdump SCRIPT|- OUT
 *
 * One record per line; '#' starts a comment; values are NAME=VALUE (VALUE may be "quoted", with
 * \" and \\ escapes); numbers take 0x prefixes and K/M/G/KiB/MiB/GiB suffixes. Every record line
 * takes optional seq=N (default: previous seq + 1) and t=NS (default: previous time + 1000).
 *   header pid= ppid= host= rank= local_rank= world= cmd="a b c" exe= job= cvd= order= depth=
 *          stacks= block_size= major= minor= start_real= start_clock= ctr.NAME=N (counter by name)
 *          start_ticks=N (proc_start_ticks) id=HEX (dump_id, up to 32 hex digits; default: a hash of
 *          the script, so one script gives one dump identity)
 *   writer N                  switch to stream N (default 1)
 *   block                     the current writer starts a new block with its next record
 *   zeroblock                 leave one unused (zero) block slot here
 *   pad N                     append N zero blocks at the end (posix_fallocate'd space)
 *   truncate N                cut N bytes off the end of the finished file (a torn copy)
 *   api id= name=             API_NAME record; later api=NAME resolves to id
 *   device ord= uuid=GPU-... name= pci= total=
 *   module id= base= path= buildid=HEX seg=VADDR:MEMSZ:FLAGS ...
 *   unload id=
 *   stack id= ADDR ADDR ... py=CODE:LINE:AT ...   native frames then Python frames, innermost
 *                             first (Python frames and their count only in 2.x dumps)
 *   pycode id= first= file= name=
 *   ctx idx= dev= handle=
 *   alloc dev= ptr= size= granted= kind=NAME|N stack= ctx= api= flags=
 *   retrack (as alloc) result=
 *   free ptr= dev= api= flags=
 *   oom dev= size= stack= api= result=
 *   failed dev= size= stack= api= result=
 *   teardown dev= ctx= api= flags=
 *   exit clean|immediate|exec status=
 *   info key= value=       marker label= flags= domain=     unmatched name= version= flags=
 *   vmm op= ptr= size= handle=    pool handle= type= loc= op=    alert dev= live= threshold= caller=
 *   execfailed errno=
 *   python state= version= text=    PYTHON (2.3)
 *   (header exit_slot=N: the header's exit_status slot, 2.3)
 *   raw type=N hex=HEX        a record with this type and raw payload (ext types get a length)
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmt_format.h"
#include "cmt_wire.h"

#define MAXTOK 300

struct tok {
    char *key, *val; /* key NULL: bare word in val */
};

struct wstate {
    uint32_t id;
    uint8_t *buf; /* current block, block_size bytes; NULL: none open */
    size_t used;
    uint32_t nblocks; /* index of the next block */
    long slot;        /* file slot of the open block */
    uint64_t prev_seq, last_seq;
    int64_t prev_time, last_time;
    uint64_t prev_ptr;
    int force_new;
};

static struct cmt_file_header hdr;
static uint32_t block_size = CMT_BLOCK_SIZE;
static uint8_t **slots;
static size_t nslots, capslots;
static struct wstate writers[256];
static size_t nwriters;
static struct wstate *cur;
static uint64_t g_seq;
static int64_t g_time = 1000000;
static char *api_names[1024];
static int lineno;

static void die(const char *msg, const char *arg) {
    fprintf(stderr, "cmt_mkdump: line %d: %s%s%s\n", lineno, msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static uint64_t num(const char *s) {
    char *end;
    int neg = *s == '-';
    uint64_t v = strtoull(s + neg, &end, 0);
    if (end == s + neg) die("bad number", s);
    uint64_t m = 1;
    if (*end) {
        char c = (char)toupper((unsigned char)*end);
        if (c == 'K') m = 1ull << 10;
        else if (c == 'M') m = 1ull << 20;
        else if (c == 'G') m = 1ull << 30;
        else die("bad number suffix", s);
        if (end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B")) die("bad number suffix", s);
    }
    v *= m;
    return neg ? (uint64_t)(-(int64_t)v) : v;
}

static struct wstate *get_writer(uint32_t id) {
    for (size_t i = 0; i < nwriters; i++)
        if (writers[i].id == id) return &writers[i];
    if (nwriters == 256) die("too many writers", NULL);
    struct wstate *w = &writers[nwriters++];
    memset(w, 0, sizeof *w);
    w->id = id;
    w->slot = -1;
    return w;
}

static long new_slot(uint8_t *content) {
    if (nslots == capslots) {
        capslots = capslots ? capslots * 2 : 16;
        slots = realloc(slots, capslots * sizeof *slots);
        if (!slots) die("out of memory", NULL);
    }
    slots[nslots] = content;
    return (long)nslots++;
}

static void open_block(struct wstate *w) {
    w->buf = calloc(1, block_size);
    if (!w->buf) die("out of memory", NULL);
    w->slot = new_slot(w->buf);
    struct cmt_block_header bh = {CMT_BLOCK_MAGIC, w->id, w->nblocks++, 1000 + w->id, w->last_seq, w->last_time};
    memcpy(w->buf, &bh, sizeof bh);
    w->used = sizeof bh;
    w->prev_seq = w->last_seq;
    w->prev_time = w->last_time;
    w->prev_ptr = 0;
    w->force_new = 0;
}

/* payload builder: ptr fields are encoded against the block state, so a record is built per try */
struct pb {
    uint8_t b[CMT_MAX_STR * 3 + 8192];
    uint8_t *p;
    uint64_t prev_ptr;
};

static void put_v(struct pb *pb, uint64_t v) { pb->p = cmt_put_varint(pb->p, v); }
static void put_z(struct pb *pb, int64_t v) { pb->p = cmt_put_zvarint(pb->p, v); }
static void put_ptr(struct pb *pb, uint64_t v) {
    put_z(pb, (int64_t)(v - pb->prev_ptr));
    pb->prev_ptr = v;
}
static void put_s(struct pb *pb, const char *s) { pb->p = cmt_put_str(pb->p, s ? s : "", CMT_MAX_STR); }
static void put_raw(struct pb *pb, const void *d, size_t n) {
    memcpy(pb->p, d, n);
    pb->p += n;
}

static struct tok toks[MAXTOK];
static int ntok;

static const char *val(const char *key) {
    for (int i = 1; i < ntok; i++)
        if (toks[i].key && !strcmp(toks[i].key, key)) return toks[i].val;
    return NULL;
}
static uint64_t nval(const char *key, uint64_t def) {
    const char *v = val(key);
    return v ? num(v) : def;
}
static uint64_t api_val(void) {
    const char *v = val("api");
    if (!v) return 0;
    if (isdigit((unsigned char)*v)) return num(v);
    for (int i = 0; i < 1024; i++)
        if (api_names[i] && !strcmp(api_names[i], v)) return (uint64_t)i;
    die("unknown api name (declare it with 'api id= name=')", v);
    return 0;
}
static uint64_t kind_val(void) {
    static const char *const names[] = {
#define K(id, name) name,
        CMT_KINDS(K)
#undef K
    };
    const char *v = val("kind");
    if (!v) return 0;
    for (unsigned i = 0; i < CMT_KIND_COUNT; i++)
        if (!strcmp(names[i], v)) return i;
    return num(v);
}
static size_t hexbytes(const char *s, uint8_t *out, size_t max) {
    size_t n = 0;
    while (s && s[0] && s[1]) {
        if (*s == '-') {
            s++;
            continue;
        }
        if (n == max) die("hex string too long", s);
        unsigned x;
        if (sscanf(s, "%2x", &x) != 1) die("bad hex", s);
        out[n++] = (uint8_t)x;
        s += 2;
    }
    return n;
}

static void build(struct pb *pb, unsigned type) {
    switch (type) {
    case CMT_REC_ALLOC:
    case CMT_REC_RETRACK:
        put_v(pb, api_val());
        put_v(pb, kind_val());
        put_v(pb, nval("flags", 0));
        put_z(pb, (int64_t)nval("dev", 0));
        put_ptr(pb, nval("ptr", 0));
        put_v(pb, nval("size", 0));
        put_v(pb, nval("granted", 0));
        put_v(pb, nval("stack", 0));
        put_v(pb, nval("ctx", 0));
        if (type == CMT_REC_RETRACK) put_v(pb, nval("result", 0));
        break;
    case CMT_REC_FREE:
        put_v(pb, api_val());
        put_v(pb, nval("flags", 0));
        put_z(pb, (int64_t)nval("dev", 0));
        put_ptr(pb, nval("ptr", 0));
        break;
    case CMT_REC_OOM:
    case CMT_REC_FAILED:
        put_v(pb, api_val());
        put_z(pb, (int64_t)nval("dev", 0));
        put_v(pb, nval("size", 0));
        put_v(pb, nval("stack", 0));
        put_v(pb, nval("result", 2));
        break;
    case CMT_REC_TEARDOWN:
        put_v(pb, api_val());
        put_z(pb, (int64_t)nval("dev", 0));
        put_v(pb, nval("ctx", 0));
        put_v(pb, nval("flags", 0));
        break;
    case CMT_REC_STACK: {
        uint64_t fr[CMT_MAX_FRAMES + 64];
        size_t n = 0;
        for (int i = 1; i < ntok; i++)
            if (!toks[i].key) {
                if (n == sizeof fr / sizeof fr[0]) die("too many frames", NULL);
                fr[n++] = num(toks[i].val);
            }
        put_v(pb, nval("id", 0));
        put_v(pb, nval("nframes", n));
        for (size_t i = 0; i < n; i++) {
            if (i == 0) put_v(pb, fr[0]);
            else put_z(pb, (int64_t)(fr[i] - fr[i - 1]));
        }
        if (hdr.version_major < 2) break;
        uint64_t py[3 * CMT_MAX_FRAMES];
        size_t npy = 0;
        for (int i = 1; i < ntok; i++) {
            if (!toks[i].key || strcmp(toks[i].key, "py")) continue;
            unsigned long long c, l, a;
            if (sscanf(toks[i].val, "%llu:%llu:%llu", &c, &l, &a) != 3) die("py= wants CODE:LINE:AT", toks[i].val);
            if (npy == CMT_MAX_FRAMES) die("too many Python frames", NULL);
            py[3 * npy] = c, py[3 * npy + 1] = l, py[3 * npy + 2] = a;
            npy++;
        }
        put_v(pb, nval("npy", npy));
        for (size_t i = 0; i < 3 * npy; i++) put_v(pb, py[i]);
        break;
    }
    case CMT_REC_PYCODE:
        put_v(pb, nval("id", 1));
        put_v(pb, nval("first", 1));
        put_s(pb, val("file"));
        put_s(pb, val("name"));
        break;
    case CMT_REC_DEVICE: {
        uint8_t u[16] = {0};
        const char *us = val("uuid");
        if (us && !strncmp(us, "GPU-", 4)) us += 4;
        if (us && hexbytes(us, u, 16) != 16) die("uuid needs 16 bytes", us);
        put_z(pb, (int64_t)nval("ord", 0));
        put_v(pb, nval("total", 0));
        put_raw(pb, u, 16);
        put_s(pb, val("name"));
        put_s(pb, val("pci"));
        break;
    }
    case CMT_REC_CTX:
        put_v(pb, nval("idx", 1));
        put_z(pb, (int64_t)nval("dev", 0));
        put_v(pb, nval("handle", 0));
        break;
    case CMT_REC_EXIT: {
        uint64_t how = CMT_EXIT_CLEAN;
        for (int i = 1; i < ntok; i++)
            if (!toks[i].key) {
                if (!strcmp(toks[i].val, "clean")) how = CMT_EXIT_CLEAN;
                else if (!strcmp(toks[i].val, "immediate")) how = CMT_EXIT_IMMEDIATE;
                else if (!strcmp(toks[i].val, "exec")) how = CMT_EXIT_EXEC;
                else how = num(toks[i].val);
            }
        put_v(pb, how);
        put_z(pb, (int64_t)nval("status", 0));
        break;
    }
    case CMT_REC_MODULE_LOAD: {
        uint8_t bid[64];
        size_t nb = hexbytes(val("buildid"), bid, sizeof bid);
        put_v(pb, nval("id", 0));
        put_v(pb, nval("base", 0));
        put_s(pb, val("path"));
        put_v(pb, nb);
        put_raw(pb, bid, nb);
        int nseg = 0;
        for (int i = 1; i < ntok; i++)
            if (toks[i].key && !strcmp(toks[i].key, "seg")) nseg++;
        put_v(pb, (uint64_t)nseg);
        for (int i = 1; i < ntok; i++)
            if (toks[i].key && !strcmp(toks[i].key, "seg")) {
                char *a = toks[i].val, *b = strchr(a, ':'), *c = b ? strchr(b + 1, ':') : NULL;
                if (!b || !c) die("seg=VADDR:MEMSZ:FLAGS", a);
                *b = *c = 0;
                put_v(pb, num(a));
                put_v(pb, num(b + 1));
                put_v(pb, num(c + 1));
                *b = *c = ':';
            }
        break;
    }
    case CMT_REC_MODULE_UNLOAD:
        put_v(pb, nval("id", 0));
        break;
    case CMT_REC_POOL:
        put_v(pb, nval("handle", 0));
        put_v(pb, nval("type", 1));
        put_z(pb, (int64_t)nval("loc", 0));
        put_v(pb, nval("op", 1));
        break;
    case CMT_REC_UNMATCHED_PROC:
        put_v(pb, nval("version", 0));
        put_v(pb, nval("flags", 0));
        put_s(pb, val("name"));
        break;
    case CMT_REC_VMM_MAP:
        put_v(pb, nval("op", 1));
        put_v(pb, nval("ptr", 0)); /* extension records carry plain addresses */
        put_v(pb, nval("size", 0));
        put_v(pb, nval("handle", 0));
        break;
    case CMT_REC_INFO:
        put_s(pb, val("key"));
        put_s(pb, val("value"));
        break;
    case CMT_REC_MARKER:
        put_s(pb, val("label"));
        put_v(pb, nval("flags", 0));
        put_s(pb, val("domain"));
        break;
    case CMT_REC_ALERT:
        put_z(pb, (int64_t)nval("dev", 0));
        put_v(pb, nval("live", 0));
        put_v(pb, nval("threshold", 0));
        put_v(pb, nval("caller", 0));
        break;
    case CMT_REC_EXEC_FAILED:
        put_z(pb, (int64_t)nval("errno", 0));
        break;
    case CMT_REC_PYTHON:
        put_v(pb, nval("state", 0));
        put_v(pb, nval("version", 0));
        put_s(pb, val("text"));
        break;
    case CMT_REC_API_NAME:
        put_v(pb, nval("id", 0));
        put_s(pb, val("name"));
        break;
    default: {
        uint8_t raw[4096];
        size_t n = hexbytes(val("hex"), raw, sizeof raw);
        put_raw(pb, raw, n);
    }
    }
}

static void emit(unsigned type) {
    uint64_t seq = val("seq") ? num(val("seq")) : g_seq + 1;
    int64_t t = val("t") ? (int64_t)num(val("t")) : g_time + 1000;
    g_seq = seq;
    g_time = t;
    struct wstate *w = cur;
    static struct pb pb;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!w->buf || w->force_new) open_block(w);
        pb.p = pb.b;
        pb.prev_ptr = w->prev_ptr;
        build(&pb, type);
        size_t plen = (size_t)(pb.p - pb.b);
        uint8_t head[40], *h = head;
        *h++ = (uint8_t)type;
        h = cmt_put_varint(h, seq - w->prev_seq);
        h = cmt_put_varint(h, (uint64_t)(t - w->prev_time));
        if (type >= CMT_REC_EXT_FIRST) h = cmt_put_varint(h, plen);
        size_t hl = (size_t)(h - head);
        if (w->used + hl + plen > block_size) {
            if (attempt) die("record larger than a block", NULL);
            w->force_new = 1;
            continue;
        }
        memcpy(w->buf + w->used, head, hl);
        memcpy(w->buf + w->used + hl, pb.b, plen);
        w->used += hl + plen;
        w->prev_ptr = pb.prev_ptr;
        w->prev_seq = w->last_seq = seq;
        w->prev_time = w->last_time = t;
        return;
    }
}

static void tokenize(char *s) {
    ntok = 0;
    while (*s) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s || *s == '#') break;
        if (ntok == MAXTOK) die("too many tokens", NULL);
        struct tok *t = &toks[ntok++];
        char *start = s, *out = s;
        t->key = NULL;
        while (*s && !isspace((unsigned char)*s)) {
            if (*s == '=' && !t->key) {
                *out++ = 0;
                t->key = start;
                s++;
                start = out;
                continue;
            }
            if (*s == '"') {
                s++;
                while (*s && *s != '"') {
                    if (*s == '\\' && s[1]) s++;
                    *out++ = *s++;
                }
                if (*s == '"') s++;
                continue;
            }
            *out++ = *s++;
        }
        if (*s) s++;
        *out = 0;
        t->val = start;
    }
}

static void set_str(char *dst, size_t cap, const char *v) {
    if (v) snprintf(dst, cap, "%s", v);
}

static int have_id;
static uint64_t script_hash = 0xcbf29ce484222325ull; /* FNV-1a over every line */

static void do_header(void) {
    hdr.proc_start_ticks = nval("start_ticks", 0);
    if (val("id")) {
        const char *x = val("id");
        size_t n = strlen(x);
        if (n > 32) die("id: at most 32 hex digits", x);
        memset(hdr.dump_id, 0, sizeof hdr.dump_id);
        for (size_t i = 0; i < n; i++) { /* the last hex digit is the low nibble of byte 15 */
            char c = x[n - 1 - i];
            int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (v < 0) die("id: not hex", x);
            hdr.dump_id[15 - i / 2] |= (uint8_t)(v << (i % 2 ? 4 : 0));
        }
        have_id = 1;
    }
    hdr.pid = (uint32_t)nval("pid", 1234);
    hdr.ppid = (uint32_t)nval("ppid", 1);
    hdr.rank = (int32_t)nval("rank", (uint64_t)-1);
    hdr.local_rank = (int32_t)nval("local_rank", (uint64_t)-1);
    hdr.world_size = (int32_t)nval("world", (uint64_t)-1);
    hdr.stack_depth = (uint32_t)nval("depth", 64);
    hdr.stacks_available = (uint32_t)nval("stacks", 1);
    hdr.version_major = (uint16_t)nval("major", CMT_VERSION_MAJOR);
    hdr.version_minor = (uint16_t)nval("minor", CMT_VERSION_MINOR);
    hdr.exit_status = (uint32_t)nval("exit_slot", 0);
    hdr.start_realtime_ns = (int64_t)nval("start_real", 1700000000000000000ull);
    hdr.start_clock_ns = (int64_t)nval("start_clock", 1000000);
    block_size = (uint32_t)nval("block_size", CMT_BLOCK_SIZE);
    hdr.block_size = block_size;
    set_str(hdr.host, sizeof hdr.host, val("host"));
    set_str(hdr.job_id, sizeof hdr.job_id, val("job"));
    set_str(hdr.cuda_visible_devices, sizeof hdr.cuda_visible_devices, val("cvd") ? val("cvd") : CMT_UNSET_MARK);
    set_str(hdr.cuda_device_order, sizeof hdr.cuda_device_order, val("order"));
    set_str(hdr.exe, sizeof hdr.exe, val("exe"));
    const char *cmd = val("cmd");
    if (cmd) { /* arguments separated by spaces become NUL-separated */
        size_t n = strlen(cmd);
        if (n >= sizeof hdr.cmdline) n = sizeof hdr.cmdline - 1;
        memcpy(hdr.cmdline, cmd, n);
        for (size_t i = 0; i < n; i++)
            if (hdr.cmdline[i] == ' ') hdr.cmdline[i] = 0;
        hdr.cmdline_len = (uint32_t)n + 1;
    }
    static const char *const cnames[] = {
#define C(id, name) name,
        CMT_COUNTERS(C)
#undef C
    };
    for (int i = 1; i < ntok; i++)
        if (toks[i].key && !strncmp(toks[i].key, "ctr.", 4)) {
            int found = 0;
            for (unsigned c = 0; c < CMT_CTR_COUNT; c++)
                if (!strcmp(cnames[c], toks[i].key + 4)) {
                    hdr.counters[c] = num(toks[i].val);
                    found = 1;
                }
            if (!found) die("unknown counter", toks[i].key);
        }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cmt_mkdump SCRIPT|- OUT\n");
        return 2;
    }
    FILE *in = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    memcpy(hdr.magic, CMT_MAGIC, 8);
    hdr.version_major = CMT_VERSION_MAJOR;
    hdr.version_minor = CMT_VERSION_MINOR;
    hdr.header_size = CMT_HEADER_SIZE;
    hdr.block_size = CMT_BLOCK_SIZE;
    hdr.clock_id = CMT_CLOCK_MONOTONIC;
    hdr.rank = hdr.local_rank = hdr.world_size = -1;
    set_str(hdr.cuda_visible_devices, sizeof hdr.cuda_visible_devices, CMT_UNSET_MARK);
    cur = get_writer(1);
    uint64_t pad = 0, cut = 0;
    char line[16384];
    while (fgets(line, sizeof line, in)) {
        lineno++;
        for (const char *c = line; *c; c++)
            script_hash = (script_hash ^ (uint8_t)*c) * 0x100000001b3ull;
        tokenize(line);
        if (!ntok) continue;
        const char *cmd = toks[0].val;
        static const struct {
            const char *name;
            unsigned type;
        } recs[] = {
            {"alloc", CMT_REC_ALLOC},       {"free", CMT_REC_FREE},          {"retrack", CMT_REC_RETRACK},
            {"oom", CMT_REC_OOM},           {"failed", CMT_REC_FAILED},      {"teardown", CMT_REC_TEARDOWN},
            {"stack", CMT_REC_STACK},       {"device", CMT_REC_DEVICE},      {"ctx", CMT_REC_CTX},
            {"exit", CMT_REC_EXIT},         {"module", CMT_REC_MODULE_LOAD}, {"unload", CMT_REC_MODULE_UNLOAD},
            {"pool", CMT_REC_POOL},         {"unmatched", CMT_REC_UNMATCHED_PROC},
            {"vmm", CMT_REC_VMM_MAP},       {"info", CMT_REC_INFO},          {"marker", CMT_REC_MARKER},
            {"alert", CMT_REC_ALERT},       {"execfailed", CMT_REC_EXEC_FAILED},
            {"api", CMT_REC_API_NAME},      {"pycode", CMT_REC_PYCODE},
            {"python", CMT_REC_PYTHON},
        };
        if (!strcmp(cmd, "header")) {
            do_header();
            continue;
        }
        if (!strcmp(cmd, "writer")) {
            if (ntok < 2) die("writer N", NULL);
            cur = get_writer((uint32_t)num(toks[1].val));
            continue;
        }
        if (!strcmp(cmd, "block")) {
            cur->force_new = 1;
            continue;
        }
        if (!strcmp(cmd, "zeroblock")) {
            uint8_t *z = calloc(1, block_size);
            new_slot(z);
            continue;
        }
        if (!strcmp(cmd, "truncate")) {
            cut += ntok > 1 ? num(toks[1].val) : 1;
            continue;
        }
        if (!strcmp(cmd, "pad")) {
            pad += ntok > 1 ? num(toks[1].val) : 1;
            continue;
        }
        if (!strcmp(cmd, "api")) {
            uint64_t id = nval("id", 0);
            if (id < 1024) api_names[id] = strdup(val("name") ? val("name") : "");
        }
        if (!strcmp(cmd, "raw")) {
            emit((unsigned)nval("type", 0x7f));
            continue;
        }
        int done = 0;
        for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
            if (!strcmp(cmd, recs[i].name)) {
                emit(recs[i].type);
                done = 1;
                break;
            }
        if (!done) die("unknown command", cmd);
    }
    if (in != stdin) fclose(in);
    hdr.blocks_used = nslots;
    if (!have_id && (hdr.version_major > 2 || (hdr.version_major == 2 && hdr.version_minor >= 1))) {
        uint64_t h2 = script_hash * 0x9e3779b97f4a7c15ull + 1;
        memcpy(hdr.dump_id, &script_hash, 8);
        memcpy(hdr.dump_id + 8, &h2, 8);
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    fwrite(&hdr, sizeof hdr, 1, out);
    for (size_t i = 0; i < nslots; i++) fwrite(slots[i], block_size, 1, out);
    uint8_t *z = calloc(1, block_size);
    for (uint64_t i = 0; i < pad; i++) fwrite(z, block_size, 1, out);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 2;
    }
    if (cut) {
        uint64_t size = sizeof hdr + (nslots + pad) * (uint64_t)block_size;
        if (truncate(argv[2], (off_t)(cut < size ? size - cut : 0)) != 0) {
            perror(argv[2]);
            return 2;
        }
    }
    return 0;
}
