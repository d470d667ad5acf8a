/*
 * cmt_modules.c — see cmt_modules.h.
 */
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmt_internal.h"
#include "cmt_records.h"
#include "cmt_modules.h"
#include "cmt_wire.h"
#include "cmt_writer.h"

struct module {
    uint32_t id;
    bool alive, seen;
    uintptr_t base, lo, hi;
    uint64_t name_hash;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct module *mods;
static size_t nmods, capmods;
static uint32_t next_id;
_Atomic int cmt_modules_dirty = 1;
_Atomic uint32_t cmt_modules_unloaded;
static unsigned long long seen_adds, seen_subs; /* dl_iterate_phdr's counters at the last scan */

void cmt_modules_mark_dirty(void) {
    atomic_store_explicit(&cmt_modules_dirty, 1, memory_order_release);
    cmt_gate_close();
}

static uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static size_t build_id(const struct dl_phdr_info *info, const uint8_t **out) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh;
            const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
            const uint8_t *next = desc + ((nh->n_descsz + 3) & ~3u);
            if (next > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz <= 64) {
                *out = desc;
                return nh->n_descsz;
            }
            p = next;
        }
    }
    return 0;
}

static void emit_load(const struct module *m, const struct dl_phdr_info *info, const char *path) {
    const uint8_t *bid = NULL;
    size_t nb = build_id(info, &bid);
    struct cmt_segment seg[CMT_MAX_SEGMENTS];
    unsigned nseg = 0;
    for (int i = 0; i < info->dlpi_phnum && nseg < CMT_MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        seg[nseg++] = (struct cmt_segment){.vaddr = ph->p_vaddr, .memsz = ph->p_memsz, .flags = ph->p_flags};
    }
    cmt_rec_module_load(m->id, info->dlpi_addr, path, bid, nb, seg, nseg);
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        seen_adds = info->dlpi_adds;
        seen_subs = info->dlpi_subs;
    }
    char exe[PATH_MAX];
    const char *path = info->dlpi_name;
    if (!path || !*path) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        path = exe;
    }
    uintptr_t lo, hi;
    cmt_module_range(info, &lo, &hi);
    if (hi == 0) return 0;
    uint64_t nh = str_hash(path);
    for (size_t i = 0; i < nmods; i++) {
        struct module *m = &mods[i];
        if (m->alive && m->base == info->dlpi_addr && m->name_hash == nh && m->lo == lo) {
            m->seen = true;
            return 0;
        }
    }
    if (nmods == capmods) {
        size_t nc = capmods ? capmods * 2 : 64;
        struct module *n = realloc(mods, nc * sizeof *n);
        if (!n) return 0;
        mods = n;
        capmods = nc;
    }
    struct module *m = &mods[nmods++];
    *m = (struct module){
        .id = ++next_id, .alive = true, .seen = true, .base = info->dlpi_addr, .lo = lo, .hi = hi, .name_hash = nh};
    emit_load(m, info, path);
    return 0;
}

void cmt_modules_rescan(void) {
    if (!cmt_writer_ensure()) return;
    pthread_mutex_lock(&lock);
    atomic_store(&cmt_modules_dirty, 0);
    for (size_t i = 0; i < nmods; i++)
        mods[i].seen = false;
    dl_iterate_phdr(scan_one, NULL);
    bool unloaded = false;
    size_t kept = 0;
    for (size_t i = 0; i < nmods; i++) {
        if (mods[i].alive && !mods[i].seen) {
            mods[i].alive = false;
            cmt_rec_module_unload(mods[i].id);
            unloaded = true;
        }
        if (mods[i].alive) mods[kept++] = mods[i]; /* an unloaded one is never looked at again */
    }
    nmods = kept;
    /* code really went away (a dlclose that dropped the last reference, or an unload inside libc):
     * return addresses may now mean other code */
    if (unloaded) atomic_fetch_add_explicit(&cmt_modules_unloaded, 1, memory_order_release);
    pthread_mutex_unlock(&lock);
}

static int peek_counters(struct dl_phdr_info *info, size_t size, void *arg) {
    bool *changed = arg;
    *changed = size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs ||
               info->dlpi_adds != seen_adds || info->dlpi_subs != seen_subs;
    return 1; /* the first module is enough */
}

/* An address in no module (JIT code, say) rescans only when the loader's map changed. */
static bool changed_since_scan(void) {
    bool changed = true;
    dl_iterate_phdr(peek_counters, &changed);
    return changed;
}

void cmt_modules_cover(const void *const *ips, unsigned n) {
    cmt_modules_check();
    bool missing = false;
    pthread_mutex_lock(&lock);
    for (unsigned k = 0; k < n && !missing; k++) {
        uintptr_t a = (uintptr_t)ips[k];
        bool in = false;
        for (size_t i = 0; i < nmods && !in; i++)
            in = mods[i].alive && a >= mods[i].lo && a < mods[i].hi;
        missing = !in;
    }
    pthread_mutex_unlock(&lock);
    if (missing && changed_since_scan()) cmt_modules_rescan();
}

void cmt_modules_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    nmods = 0; /* the child's dump starts a new map */
    next_id = 0;
    atomic_store(&cmt_modules_dirty, 1);
    cmt_gate_close();
}
CMT_LIFECYCLE(modules, 50, NULL, cmt_modules_fork_child);
