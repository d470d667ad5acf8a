/*
 * cmt_writer.c — see cmt_writer.h. Layout and encoding: include/cmt_format.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cmt_internal.h"
#include "cmt_procstat.h"
#include "cmt_records.h"
#include "cmt_seq.h"
#include "cmt_wire.h"
#include "cmt_writer.h"


_Atomic int cmt_writer_state;
static struct {
    _Atomic int stopped;
    int fd;
    dev_t dev;
    ino_t ino;
    char path[PATH_MAX];
    struct cmt_file_header *hdr;
    _Atomic uint64_t next_block;
    _Atomic uint32_t next_writer;
    uint64_t early_counters[CMT_MAX_COUNTERS];
    pthread_mutex_t lock;    /* creation */
    pthread_mutex_t fd_lock; /* the descriptor: fallocate, mmap, reopen */
    pthread_key_t thread_key;
    bool key_made;
} dump = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd_lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};
static __thread bool creating; /* this thread is writing the new dump's first records */


static atomic_int warned_stop, warned_create, warned_escape;

const char *cmt_writer_path(void) { return atomic_load(&cmt_writer_state) == CMT_W_OPEN ? dump.path : NULL; }

bool cmt_writer_mine(void) {
    return atomic_load(&cmt_writer_state) == CMT_W_OPEN && dump.hdr && dump.hdr->pid == (uint32_t)getpid();
}

void cmt_counter_add(enum cmt_counter c, uint64_t n) {
    uint64_t *ctr = dump.hdr ? &dump.hdr->counters[c] : &dump.early_counters[c];
    __atomic_fetch_add(ctr, n, __ATOMIC_RELAXED);
}

void cmt_writer_exit_slot(uint32_t v) {
    if (cmt_writer_mine()) __atomic_store_n(&dump.hdr->exit_status, v, __ATOMIC_RELEASE);
}

void cmt_writer_set_stacks_available(bool yes) {
    if (dump.hdr) dump.hdr->stacks_available = yes;
}

static void stop_writing(const char *why, int err) {
    if (atomic_exchange(&dump.stopped, 1)) return;
    cmt_counter_add(CMT_CTR_WRITE_STOPPED, 1);
    cmt_warn_once(&warned_stop, "warning: tracking stopped, the dump %s cannot grow (%s%s%s); "
                  "the application goes on; events from now on are counted as dropped",
                  dump.path, why, err ? ": " : "", err ? strerror(err) : "");
}

/* ---- file creation ---- */

static size_t append(char *dst, size_t at, size_t cap, const char *s) {
    size_t n = strlen(s);
    if (at + n >= cap) n = at < cap - 1 ? cap - 1 - at : 0;
    memcpy(dst + at, s, n);
    dst[at + n] = 0;
    return at + n;
}

/* First of RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID. */
static const char *rank_string(void) {
    static const char *const vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return v;
    }
    return NULL;
}

static int env_int(const char *const *vars, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end == 0 && x >= 0 && x < INT32_MAX) return (int)x;
        }
    }
    return -1;
}

static void expand_template(char *out, size_t cap) {
    char host[256] = "unknown", num[32];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    size_t at = 0;
    out[0] = 0;
    for (const char *s = cmt_cfg.output_template; *s; s++) {
        if (*s != '%' || !s[1]) {
            char one[2] = {*s, 0};
            at = append(out, at, cap, one);
            continue;
        }
        s++;
        switch (*s) {
        case 'h': at = append(out, at, cap, host); break;
        case 'p':
            snprintf(num, sizeof num, "%d", (int)getpid());
            at = append(out, at, cap, num);
            break;
        case 'r': { /* a file name part whatever the variable holds: no '/' or '..' to leave the directory */
            const char *r = rank_string();
            size_t k = 0;
            for (; r && r[k] && k < sizeof num - 1; k++) {
                char c = r[k];
                num[k] =
                    (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ? c : '_';
            }
            num[k] = 0;
            at = append(out, at, cap, k ? num : "x");
            break;
        }
        case '%': at = append(out, at, cap, "%"); break;
        default: {
            char two[3] = {'%', *s, 0};
            at = append(out, at, cap, two);
            cmt_warn_once(&warned_escape, "warning: CUMEMTRACK_OUTPUT=\"%s\": unknown %%%c kept as "
                          "is (known: %%h host, %%p pid, %%r rank, %%%% a percent sign)",
                          cmt_cfg.output_template, *s);
        }
        }
    }
}

/* Field 22 of /proc/self/stat (start time in clock ticks since boot), 0 when unreadable. */
static uint64_t self_start_ticks(void) {
    return cmt_procstat_start_ticks("/proc/self/stat", 0);
}

/* The dump's random id (cmt_format.h IDENTITY): getrandom, else a mix of clocks, pid and an
 * address; never all zero. */
static void fill_dump_id(uint8_t id[16]) {
    long got = syscall(SYS_getrandom, id, 16, 1 /* GRND_NONBLOCK */);
    if (got != 16) {
        struct timespec a, b;
        clock_gettime(CLOCK_REALTIME, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        uint64_t x[2] = {((uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec) ^ ((uint64_t)getpid() << 32),
                         ((uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec) ^ (uint64_t)(uintptr_t)id};
        for (int i = 0; i < 2; i++) { /* splitmix64 finaliser */
            uint64_t z = x[i] + 0x9e3779b97f4a7c15ull;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            x[i] = z ^ (z >> 31);
        }
        memcpy(id, x, 16);
    }
    int zero = 1;
    for (int i = 0; i < 16; i++)
        zero &= id[i] == 0;
    if (zero) id[0] = 1;
}

/* Fills the header of a new dump; the magic last (after a release fence), so a follower that finds
 * the file while this runs sees no dump yet (analyzer/read/reader.h cmt_dump_being_created) rather
 * than a header without its times, host and rank, which it would keep. */
static void fill_header(struct cmt_file_header *h) {
    h->version_major = CMT_VERSION_MAJOR;
    h->version_minor = CMT_VERSION_MINOR;
    h->header_size = CMT_HEADER_SIZE;
    h->block_size = CMT_BLOCK_SIZE;
    h->pid = (uint32_t)getpid();
    h->ppid = (uint32_t)getppid();
    h->clock_id = CMT_CLOCK_MONOTONIC;
    static const char *const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                            "SLURM_PROCID"};
    static const char *const local_vars[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                             "MPI_LOCALRANKID", "SLURM_LOCALID"};
    static const char *const world_vars[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE",
                                             "PMI_SIZE", "SLURM_NTASKS"};
    h->rank = env_int(rank_vars, 5);
    h->local_rank = env_int(local_vars, 4);
    h->world_size = env_int(world_vars, 5);
    h->stack_depth = cmt_cfg.depth;
    struct timespec rt, mono;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    h->start_realtime_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
    h->start_clock_ns = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec;
    h->proc_start_ticks = self_start_ticks();
    fill_dump_id(h->dump_id);
    gethostname(h->host, sizeof h->host - 1);
    const char *job = getenv("SLURM_JOB_ID");
    if (!job || !*job) job = getenv("TORCHELASTIC_RUN_ID");
    if (job) snprintf(h->job_id, sizeof h->job_id, "%s", job);
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    snprintf(h->cuda_visible_devices, sizeof h->cuda_visible_devices, "%s", cvd ? cvd : CMT_UNSET_MARK);
    const char *order = getenv("CUDA_DEVICE_ORDER");
    snprintf(h->cuda_device_order, sizeof h->cuda_device_order, "%s", order ? order : CMT_UNSET_MARK);
    ssize_t n = readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
    if (n < 0) h->exe[0] = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t m = read(fd, h->cmdline, sizeof h->cmdline - 1);
        h->cmdline_len = m > 0 ? (uint32_t)m : 0;
        close(fd);
    }
    atomic_thread_fence(memory_order_release);
    memcpy(h->magic, CMT_MAGIC, 8);
}

static void write_manifest(void) {
    if (!cmt_cfg.manifest[0]) return;
    int fd = open(cmt_cfg.manifest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        cmt_warn("warning: cannot append to the manifest %s: %s", cmt_cfg.manifest, strerror(errno));
        return;
    }
    char line[PATH_MAX + 2];
    int n = snprintf(line, sizeof line, "%s\n", dump.path);
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

static void write_prologue(void) {
    static const char *const syms[CMT_API_COUNT] = {
#define CMT_API_SYM(sym, base, ver, pt, fam, kind, params, args, fill) [CMT_API_##sym] = #sym,
        CMT_HOOKS(CMT_API_SYM)
#undef CMT_API_SYM
    };
    uint8_t buf[CMT_ENC_MAX];
    for (int i = 0; i < CMT_API_COUNT; i++) {
        uint8_t *p = cmt_enc_api_name(buf, (unsigned)i, syms[i]);
        int64_t now = cmt_now();
        cmt_emit_ext(CMT_REC_API_NAME, cmt_seq_def(now), now, buf, (size_t)(p - buf));
    }
    uint8_t *p = cmt_enc_info(buf, "clock", cmt_clock_name());
    int64_t now = cmt_now();
    cmt_emit_ext(CMT_REC_INFO, cmt_seq_def(now), now, buf, (size_t)(p - buf));
}

/* Creates the missing directories above path (mode 0700), as `cumemtrack run` does up front for
 * the parts of the template it can expand (not %p, %r). */
static void make_parents(const char *path) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *last = strrchr(dir, '/');
    if (!last || last == dir) return;
    *last = 0;
    for (char *q = dir + 1;; q++) {
        if (*q != '/' && *q) continue;
        char c = *q;
        *q = 0;
        mkdir(dir, 0700); /* EEXIST and the rest: the open that follows reports what matters */
        *q = c;
        if (!c) break;
    }
}

static bool create_file(void) {
    char base[PATH_MAX];
    expand_template(base, sizeof base);
    int fd = -1;
    bool made_parents = false;
    for (int i = 0; i < 10000 && fd < 0; i++) {
        if (i == 0)
            snprintf(dump.path, sizeof dump.path, "%s", base);
        else
            snprintf(dump.path, sizeof dump.path, "%s.%d", base, i);
        fd = open(dump.path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == ENOENT && !made_parents) {
            made_parents = true;
            make_parents(dump.path);
            i--; /* the same name again */
            continue;
        }
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        cmt_warn_once(&warned_create, "warning: cannot create the dump %s: %s; the application goes "
                      "on untracked (set CUMEMTRACK_OUTPUT to a writable place)",
                      dump.path, strerror(errno));
        return false;
    }
    /* Keep our descriptor away from the low numbers applications juggle. */
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    struct stat st;
    struct rlimit rl;
    int err = 0;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < CMT_HEADER_SIZE)
        err = EFBIG;
    if (!err) err = posix_fallocate(fd, 0, CMT_HEADER_SIZE);
    void *h = MAP_FAILED;
    if (!err) {
        h = mmap(NULL, CMT_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (h == MAP_FAILED) err = errno;
    }
    if (err || fstat(fd, &st) != 0) {
        cmt_warn_once(&warned_create, "warning: cannot write the dump %s: %s; the application goes "
                      "on untracked", dump.path, strerror(err ? err : errno));
        if (h != MAP_FAILED) munmap(h, CMT_HEADER_SIZE);
        close(fd);
        unlink(dump.path);
        return false;
    }
    dump.fd = fd;
    dump.dev = st.st_dev;
    dump.ino = st.st_ino;
    dump.hdr = h;
    fill_header(dump.hdr);
    for (int i = 0; i < CMT_MAX_COUNTERS; i++) dump.hdr->counters[i] = dump.early_counters[i];
    return true;
}

static void thread_exit(void *arg);
bool cmt_writer_ensure_slow(void) {
    int s = atomic_load_explicit(&cmt_writer_state, memory_order_acquire);
    if (CMT_LIKELY(s == CMT_W_OPEN)) return true;
    if (s == CMT_W_FAILED) return false;
    if (creating) return true;
    pthread_mutex_lock(&dump.lock);
    if (atomic_load(&cmt_writer_state) == CMT_W_NONE) {
        if (!dump.key_made) dump.key_made = pthread_key_create(&dump.thread_key, thread_exit) == 0;
        bool ok = create_file();
        if (ok) {
            /* the API names come first: other threads wait on dump.lock until they are written */
            creating = true;
            write_prologue();
            creating = false;
            write_manifest();
        }
        atomic_store_explicit(&cmt_writer_state, ok ? CMT_W_OPEN : CMT_W_FAILED, memory_order_release);
    }
    pthread_mutex_unlock(&dump.lock);
    return atomic_load(&cmt_writer_state) == CMT_W_OPEN;
}

/* The application may have closed or reused our descriptor: check it is still our file. */
static bool fd_is_ours(void) {
    struct stat st;
    if (fstat(dump.fd, &st) == 0 && st.st_dev == dump.dev && st.st_ino == dump.ino) return true;
    int fd = open(dump.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    if (fstat(fd, &st) != 0 || st.st_dev != dump.dev || st.st_ino != dump.ino) {
        close(fd);
        return false;
    }
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    dump.fd = fd; /* the old number belongs to the application now: never close it */
    return true;
}

/* ---- blocks ----
 * Each thread writes into its own staging block: a block of the file mapped once (MAP_SHARED, space
 * reserved with posix_fallocate first, so a full disk never becomes a SIGBUS) and reused, so the
 * hot path never takes a page fault (on virtual machines a fresh page costs tens of microseconds).
 * Its magic is CMT_BLOCK_MAGIC_STAGING. When it is full, its records are copied with pwrite to a
 * new block at the end of the file (body first, then the header with CMT_BLOCK_MAGIC), and the
 * staging block is cleared for the writer's next index. What a crash leaves in a staging block is
 * in the file; a staging block whose (writer, index) also exists as a normal block is a stale
 * copy that readers skip.
 * The copy holds the descriptor lock (dump.fd_lock) for its two pwrites (~15 us for 64 KiB). A
 * thread whose block is full while another thread holds that lock does not wait for it: it sets
 * the full block aside (pending: still a staging block in the file, so a crash loses nothing) and
 * goes on in its spare staging block, taken once, after its first copy. The pending block's copy is
 * tried again, without waiting, every RETRY_BYTES of records (the block's limit t->lim is set that
 * far ahead, so the inline path comes here then); when the next block is full it waits for the
 * lock if it is still busy; at the latest the thread's exit copies it. So a writer has at most two
 * staging blocks, with consecutive indexes.
 * When writing stops (stop_writing: no block for a copy or a new staging block), a thread records
 * nothing more from its next visit to cmt_rec_begin_slow on: its stream in the file ends there
 * without a gap, even if its block still has room for smaller records (a FREE after a dropped ALLOC
 * would read as a double free). Another thread goes on into the room its block has until its own
 * next slow-path visit (its block's end, a checkpoint): the inline path checks nothing more. */
#define RETRY_BYTES 4096
/* Records stop this far before a block's end: room kept for the process's EXIT record, which is
 * written even after writing stopped (cmt_rec_begin_last). */
#define LAST_RESERVE CMT_REC_ROOM(2 * CMT_VARINT_MAX)
static inline uint8_t *records_end(const struct cmt_tls *t) {
    return t->block + CMT_BLOCK_SIZE - LAST_RESERVE;
}

#define MAX_FREE_SLOTS 256
static struct {
    uint8_t *map;
    uint64_t file_block;
} free_slots[MAX_FREE_SLOTS];
static int nfree_slots;

static void note_blocks_used(uint64_t used) {
    uint64_t cur = __atomic_load_n(&dump.hdr->blocks_used, __ATOMIC_RELAXED);
    while (cur < used &&
           !__atomic_compare_exchange_n(&dump.hdr->blocks_used, &cur, used, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* A new block position, or false when the file may not grow (RLIMIT_FSIZE: never SIGXFSZ; then
 * writing stops, unless spare: a spare staging block is only a reserve, see new_block). */
static bool claim_block(uint64_t *idx, off_t *off, bool spare) {
    if (atomic_load_explicit(&dump.stopped, memory_order_relaxed)) return false;
    *idx = atomic_fetch_add(&dump.next_block, 1);
    *off = (off_t)CMT_HEADER_SIZE + (off_t)*idx * CMT_BLOCK_SIZE;
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)*off + CMT_BLOCK_SIZE > rl.rlim_cur) {
        if (!spare) stop_writing("the file-size limit (ulimit -f) is reached", 0);
        return false;
    }
    note_blocks_used(*idx + 1);
    return true;
}

static const char *why_fd(bool ours) {
    return ours ? "no space" : "its descriptor was closed and the file replaced";
}

/* A clear staging block: from the pool, else a new block of the file, mapped. NULL when there is
 * none; then *err != 0 when writing must stop (*why says why; never for a spare). dump.fd_lock held. */
static uint8_t *slot_locked(bool spare, const char **why, int *err) {
    *err = 0;
    if (nfree_slots > 0) return free_slots[--nfree_slots].map;
    uint64_t idx;
    off_t off;
    if (!claim_block(&idx, &off, spare)) return NULL; /* writing stopped, or (a spare) the file may not grow */
    bool ours = fd_is_ours();
    int e = ours ? posix_fallocate(dump.fd, off, CMT_BLOCK_SIZE) : EBADF;
    void *b = MAP_FAILED;
    if (!e) {
        b = mmap(NULL, CMT_BLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, dump.fd, off);
        if (b == MAP_FAILED) e = errno;
    }
    if (e) {
        *why = why_fd(ours);
        *err = spare ? 0 : e;
        return NULL;
    }
    return b;
}

/* A clear staging block for this thread; NULL when writing stopped, or (spare: the reserve for a
 * busy lock) when the file may not grow by one more block, which stops nothing. */
static uint8_t *take_slot(bool spare) {
    const char *why = NULL;
    int err;
    pthread_mutex_lock(&dump.fd_lock);
    uint8_t *b = slot_locked(spare, &why, &err);
    pthread_mutex_unlock(&dump.fd_lock);
    if (!b && err) stop_writing(why, err);
    return b;
}

static void start_content(struct cmt_tls *t, uint64_t seq, int64_t now) {
    struct cmt_block_header *bh = (struct cmt_block_header *)t->block;
    bh->writer = t->writer;
    bh->index = t->block_index;
    bh->tid = (uint32_t)syscall(SYS_gettid);
    bh->base_seq = seq;
    bh->base_time_ns = now;
    __atomic_store_n(&bh->magic, CMT_BLOCK_MAGIC_STAGING, __ATOMIC_RELEASE);
    t->cur = t->block + sizeof *bh;
    t->lim = records_end(t);
    t->last_seq = seq;
    t->last_time = now;
    t->last_ptr = 0;
}

/* CUMEMTRACK_TEST_BUSY=N (tests): every Nth copy that would not wait finds the lock busy. */
static bool test_busy(void) {
    static _Atomic unsigned copies;
    return cmt_cfg.busy_every && atomic_fetch_add(&copies, 1) % cmt_cfg.busy_every == cmt_cfg.busy_every - 1;
}

enum copy_result { COPY_DONE, COPY_BUSY, COPY_STOPPED };
/* Copies the records of staging block b (up to end) to a new block and clears b. wait: waits for
 * the descriptor lock; otherwise COPY_BUSY, having done nothing, when another thread holds it.
 * COPY_STOPPED: writing stopped (the records stay in b, which is in the file). A block without
 * records is only cleared (its index is skipped). */
static enum copy_result copy_block(uint8_t *b, uint8_t *end, bool wait) {
    struct cmt_block_header *bh = (struct cmt_block_header *)b;
    if (end > b + sizeof *bh) {
        if (wait)
            pthread_mutex_lock(&dump.fd_lock);
        else if (test_busy() || pthread_mutex_trylock(&dump.fd_lock) != 0)
            return COPY_BUSY;
        uint64_t idx;
        off_t off;
        bool claimed = claim_block(&idx, &off, false), ours = claimed && fd_is_ours();
        struct cmt_block_header h = *bh;
        h.magic = CMT_BLOCK_MAGIC;
        size_t body = CMT_BLOCK_SIZE - sizeof h;
        ssize_t n = ours ? pwrite(dump.fd, b + sizeof h, body, off + (off_t)sizeof h) : -1;
        int err = n < 0 ? errno : ENOSPC;
        if (n == (ssize_t)body) n = pwrite(dump.fd, &h, sizeof h, off); /* the header last */
        bool ok = n == (ssize_t)sizeof h;
        pthread_mutex_unlock(&dump.fd_lock);
        if (!ok) {
            if (claimed) stop_writing(why_fd(ours), err);
            return COPY_STOPPED;
        }
    }
    __atomic_store_n(&bh->magic, 0, __ATOMIC_RELEASE);
    memset(b + sizeof *bh, 0, (size_t)(end - (b + sizeof *bh)));
    return COPY_DONE;
}

/* Gives a thread's staging blocks back: copied ones (clear) to the pool or unmapped; one whose
 * records could not be copied stays mapped (they are in the file). */
static void release_slots(struct cmt_tls *t) {
    if (!t->block) return;
    bool pend_ok = !t->pending || copy_block(t->pending, t->pending_end, true) == COPY_DONE;
    bool cur_ok = pend_ok && copy_block(t->block, t->cur, true) == COPY_DONE;
    uint8_t *clear[3] = {cur_ok ? t->block : NULL, pend_ok ? t->pending : NULL, t->spare};
    pthread_mutex_lock(&dump.fd_lock);
    for (int i = 0; i < 3; i++)
        if (clear[i] && nfree_slots < MAX_FREE_SLOTS) {
            free_slots[nfree_slots++].map = clear[i];
            clear[i] = NULL;
        }
    pthread_mutex_unlock(&dump.fd_lock);
    for (int i = 0; i < 3; i++)
        if (clear[i]) munmap(clear[i], CMT_BLOCK_SIZE);
    t->block = t->pending = t->pending_end = t->spare = NULL;
    t->cur = t->lim = NULL;
    t->block_index++; /* a record after this (a later destructor's) starts the next index */
}

static void thread_exit(void *arg) {
    (void)arg;
    struct cmt_tls *t = &cmt_tls;
    cmt_seq_thread_exit();
    if (t->gen != atomic_load(&cmt_generation) || atomic_load(&cmt_writer_state) != CMT_W_OPEN) return;
    t->nesting++; /* unconditionally: the thread is ending, whatever it was doing */
    release_slots(t);
    t->nesting--;
}

/* With a block set aside: where the inline path next comes back to try its copy (the block's end
 * at the latest). */
static void pending_checkpoint(struct cmt_tls *t) {
    uint8_t *end = records_end(t);
    t->lim = t->pending && (size_t)(end - t->cur) > RETRY_BYTES ? t->cur + RETRY_BYTES : end;
}

/* The copy of the block set aside (see copy_block for wait); once done, that block is the spare. */
static enum copy_result copy_pending(struct cmt_tls *t, bool wait) {
    enum copy_result r = copy_block(t->pending, t->pending_end, wait);
    if (r == COPY_DONE) {
        t->spare = t->pending;
        t->pending = t->pending_end = NULL;
    }
    return r;
}

/* At a checkpoint: the copy of the block set aside, if the lock is free now (writing stopped:
 * cmt_rec_begin_slow closes the block). */
static void retry_pending(struct cmt_tls *t) {
    if (copy_pending(t, false) != COPY_STOPPED) pending_checkpoint(t);
}

/* The thread's next block, started at (seq, now): the first staging block, or the next index after
 * the current one's copy (or after setting it aside while another thread copies). */
static bool new_block(uint64_t seq, int64_t now) {
    struct cmt_tls *t = &cmt_tls;
    if (t->writer == 0) {
        t->writer = atomic_fetch_add(&dump.next_writer, 1) + 1;
        t->block_index = 0;
        if (dump.key_made) pthread_setspecific(dump.thread_key, (void *)1);
    }
    if (!t->block) {
        if (!(t->block = take_slot(false))) return false;
    } else {
        /* a block set aside last time: its copy first, waiting for the lock if need be */
        if (t->pending && copy_pending(t, true) != COPY_DONE) return false;
        enum copy_result r = copy_block(t->block, t->cur, t->spare == NULL);
        if (r == COPY_STOPPED) return false;
        if (r == COPY_BUSY) {
            t->pending = t->block;
            t->pending_end = t->cur;
            t->block = t->spare;
            t->spare = NULL;
        } else if (!t->spare) {
            t->spare = take_slot(true); /* once per thread; none: the next busy lock is waited for */
        }
        t->block_index++;
    }
    start_content(t, seq, now);
    pending_checkpoint(t);
    return true;
}

uint8_t *cmt_rec_begin_slow(size_t max_payload, uint64_t seq, int64_t now) {
    struct cmt_tls *t = &cmt_tls;
    if (CMT_UNLIKELY(!cmt_writer_ensure())) return NULL;
    if (CMT_UNLIKELY(t->gen != atomic_load_explicit(&cmt_generation, memory_order_relaxed))) {
        /* a forked child: the parent's blocks are not ours */
        memset(t, 0, offsetof(struct cmt_tls, ctx_handle));
        t->pending = t->pending_end = t->spare = NULL;
        t->gen = atomic_load(&cmt_generation);
    }
    size_t need = CMT_REC_ROOM(max_payload);
    if (t->pending && t->lim != records_end(t) && (size_t)(t->lim - t->cur) < need) retry_pending(t);
    if (CMT_UNLIKELY(!t->block || (size_t)(t->lim - t->cur) < need || seq <= t->last_seq || now < t->last_time ||
                     atomic_load_explicit(&dump.stopped, memory_order_relaxed))) {
        /* 0: no sequence number left (cmt_seq.h) */
        if (seq == 0 || atomic_load_explicit(&dump.stopped, memory_order_relaxed) || !new_block(seq, now)) {
            /* Writing stopped: this thread records nothing more, not even a record that would
             * still fit in its block (a FREE is smaller than the ALLOC dropped before it), so
             * its stream ends at its first drop instead of going on with frees whose
             * allocations are missing (the analyzer saw double frees). lim = cur: every later
             * record comes here and is counted as dropped; the inline path is unchanged. */
            if (atomic_load_explicit(&dump.stopped, memory_order_relaxed)) t->lim = t->cur;
            cmt_counter_add(CMT_CTR_DROPPED_EVENTS, 1);
            return NULL;
        }
    }
    return cmt_rec_head(t, seq, now);
}

uint8_t *cmt_rec_begin_last(size_t max_payload, uint64_t seq, int64_t now) {
    struct cmt_tls *t = &cmt_tls;
    size_t need = CMT_REC_ROOM(max_payload);
    if (CMT_LIKELY(!atomic_load_explicit(&dump.stopped, memory_order_relaxed)) || !cmt_writer_open() ||
        t->gen != atomic_load_explicit(&cmt_generation, memory_order_relaxed) || need > LAST_RESERVE)
        return cmt_rec_begin(max_payload, seq, now);
    /* writing stopped: into the room the thread's block kept for it (LAST_RESERVE), or a clear
     * staging block of the pool (an ended thread's) for a thread that has none */
    if (seq == 0 ||
        (t->block ? seq <= t->last_seq || now < t->last_time || (size_t)(t->block + CMT_BLOCK_SIZE - t->cur) < need
                  : !new_block(seq, now))) {
        cmt_counter_add(CMT_CTR_DROPPED_EVENTS, 1);
        return NULL;
    }
    return cmt_rec_head(t, seq, now);
}

void cmt_rec_end_last(uint8_t type, uint8_t *end) {
    cmt_rec_end(type, end);
    struct cmt_tls *t = &cmt_tls;
    if (atomic_load_explicit(&dump.stopped, memory_order_relaxed)) t->lim = t->cur; /* nothing after it */
}

void cmt_emit_ext(uint8_t type, uint64_t seq, int64_t now, const uint8_t *buf, size_t len) {
    uint8_t *p = cmt_rec_begin(len + CMT_VARINT_MAX, seq, now);
    if (!p) return;
    p = cmt_put_varint(p, len);
    memcpy(p, buf, len);
    cmt_rec_end(type, p + len);
}

void cmt_writer_fork_child(void) {
    if (dump.hdr) munmap(dump.hdr, CMT_HEADER_SIZE);
    dump.hdr = NULL;
    if (dump.fd >= 0) close(dump.fd);
    dump.fd = -1;
    pthread_mutex_init(&dump.lock, NULL);
    pthread_mutex_init(&dump.fd_lock, NULL);
    creating = false;
    atomic_store(&cmt_writer_state, CMT_W_NONE);
    atomic_store(&dump.stopped, 0);
    atomic_store(&dump.next_block, 0);
    atomic_store(&dump.next_writer, 0);
    cmt_seq_fork_child();
    memset(dump.early_counters, 0, sizeof dump.early_counters);
    atomic_store(&warned_stop, 0);
    atomic_store(&warned_create, 0);
    /* the parent's staging blocks map the parent's file: never write them again */
    uint8_t *mine[3] = {cmt_tls.block, cmt_tls.pending, cmt_tls.spare};
    for (int i = 0; i < 3; i++)
        if (mine[i]) munmap(mine[i], CMT_BLOCK_SIZE);
    for (int i = 0; i < nfree_slots; i++) munmap(free_slots[i].map, CMT_BLOCK_SIZE);
    nfree_slots = 0;
    memset(&cmt_tls, 0, sizeof cmt_tls);
}
CMT_LIFECYCLE(writer, 10, NULL, cmt_writer_fork_child);
