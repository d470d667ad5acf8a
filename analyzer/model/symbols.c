/*
 * symbols.c — libdwfl-based symbolizer. See symbols.h. One Dwfl per distinct module file,
 * reported at base 0 so that the file address (return address - 1 - load bias) is queried.
 */
#include "symbols.h"

#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

struct str_ent {
    UT_hash_handle hh;
    char s[];
};

struct addr_ent {
    uint64_t addr;
    size_t n;
    struct cmt_sym_frame f[CMT_SYM_MAX_INLINE];
    UT_hash_handle hh;
};

struct smod {
    char *key; /* path + "\n" + build-id hex */
    Dwfl *dwfl;
    Dwfl_Module *mod;
    const char *path; /* interned module path */
    struct addr_ent *cache;
    UT_hash_handle hh;
};

struct cmt_symbolizer {
    int enabled;
    char *debug_dir;
    char *debuginfo_path;
    Dwfl_Callbacks cb;
    struct smod *mods;
    struct str_ent *strs;
    char *(*demangle)(const char *, char *, size_t *, int *);
};

static const char *intern(struct cmt_symbolizer *s, const char *str) {
    if (!str) return NULL;
    struct str_ent *e;
    HASH_FIND_STR(s->strs, str, e);
    if (e) return e->s;
    size_t n = strlen(str);
    e = malloc(sizeof *e + n + 1);
    if (!e) return NULL;
    memset(&e->hh, 0, sizeof e->hh);
    memcpy(e->s, str, n + 1);
    int oom = 0;
    HASH_ADD_KEYPTR(hh, s->strs, e->s, n, e);
    (void)oom;
    return e->s;
}

struct cmt_symbolizer *cmt_sym_new(int enabled, const char *debug_dir) {
    struct cmt_symbolizer *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->enabled = enabled;
    if (!enabled) return s;
    unsetenv("DEBUGINFOD_URLS"); /* never fetch anything */
    elf_version(EV_CURRENT);
    s->debug_dir = debug_dir ? strdup(debug_dir) : NULL;
    /* debuginfo_path for .gnu_debuglink lookups: ":.debug:/usr/lib/debug[:DIR]" */
    size_t n = 64 + (debug_dir ? strlen(debug_dir) : 0);
    s->debuginfo_path = malloc(n);
    if (s->debuginfo_path)
        snprintf(s->debuginfo_path, n, "%s%s:.debug:/usr/lib/debug", debug_dir ? debug_dir : "", debug_dir ? ":" : "");
    s->cb.find_elf = dwfl_build_id_find_elf;
    s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
    s->cb.section_address = dwfl_offline_section_address;
    s->cb.debuginfo_path = &s->debuginfo_path;
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (h) *(void **)&s->demangle = dlsym(h, "__cxa_demangle");
    return s;
}

void cmt_sym_free(struct cmt_symbolizer *s) {
    if (!s) return;
    struct smod *m, *mt;
    HASH_ITER(hh, s->mods, m, mt) {
        HASH_DEL(s->mods, m);
        struct addr_ent *a, *at;
        HASH_ITER(hh, m->cache, a, at) {
            HASH_DEL(m->cache, a);
            free(a);
        }
        if (m->dwfl) dwfl_end(m->dwfl);
        free(m->key);
        free(m);
    }
    struct str_ent *e, *et;
    HASH_ITER(hh, s->strs, e, et) {
        HASH_DEL(s->strs, e);
        free(e);
    }
    free(s->debug_dir);
    free(s->debuginfo_path);
    free(s);
}

static int file_build_id_matches(const char *file, const uint8_t *id, size_t idlen) {
    if (!idlen) return 1;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    int ok = 0;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf) {
        const void *bid;
        ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
        ok = n > 0 && (size_t)n == idlen && !memcmp(bid, id, idlen);
        elf_end(elf);
    }
    close(fd);
    return ok;
}

static int exists(const char *p) {
    return access(p, R_OK) == 0;
}

/* Finds the file to read for module m into buf; returns 0 when none. */
static int locate(struct cmt_symbolizer *s, const struct cmt_module *m, char *buf, size_t cap) {
    char hex[2 * 64 + 1] = "";
    size_t idlen = m->build_id_len < 64 ? m->build_id_len : 64;
    for (size_t i = 0; i < idlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
    const char *dirs[2] = {s->debug_dir, "/usr/lib/debug"};
    if (idlen >= 2) {
        for (int i = 0; i < 2; i++) {
            if (!dirs[i]) continue;
            snprintf(buf, cap, "%s/.build-id/%.2s/%s.debug", dirs[i], hex, hex + 2);
            if (exists(buf)) return 1;
        }
    }
    if (s->debug_dir && m->path[0]) { /* DIR/basename, e.g. an unstripped copy */
        const char *b = strrchr(m->path, '/');
        snprintf(buf, cap, "%s/%s", s->debug_dir, b ? b + 1 : m->path);
        if (exists(buf) && file_build_id_matches(buf, m->build_id, m->build_id_len)) return 1;
    }
    if (m->path[0] && exists(m->path) && file_build_id_matches(m->path, m->build_id, m->build_id_len)) {
        snprintf(buf, cap, "%s", m->path);
        return 1;
    }
    return 0;
}

static struct smod *get_mod(struct cmt_symbolizer *s, const struct cmt_module *m) {
    size_t klen = strlen(m->path) + 2 * m->build_id_len + 2;
    char *key = malloc(klen);
    if (!key) return NULL;
    char *p = key + sprintf(key, "%s\n", m->path);
    for (size_t i = 0; i < m->build_id_len; i++)
        p += sprintf(p, "%02x", m->build_id[i]);
    struct smod *sm;
    HASH_FIND_STR(s->mods, key, sm);
    if (sm) {
        free(key);
        return sm;
    }
    sm = calloc(1, sizeof *sm);
    if (!sm) {
        free(key);
        return NULL;
    }
    sm->key = key;
    sm->path = intern(s, m->path[0] ? m->path : "[unknown]");
    char file[4096];
    if (s->enabled && locate(s, m, file, sizeof file)) {
        sm->dwfl = dwfl_begin(&s->cb);
        if (sm->dwfl) {
            dwfl_report_begin(sm->dwfl);
            sm->mod = dwfl_report_elf(sm->dwfl, m->path[0] ? m->path : file, file, -1, 0, false);
            dwfl_report_end(sm->dwfl, NULL, NULL);
            if (!sm->mod) {
                dwfl_end(sm->dwfl);
                sm->dwfl = NULL;
            }
        }
    }
    HASH_ADD_KEYPTR(hh, s->mods, sm->key, strlen(sm->key), sm);
    return sm;
}

static const char *demangled(struct cmt_symbolizer *s, const char *name) {
    if (!name) return NULL;
    if (s->demangle && name[0] == '_' && name[1] == 'Z') {
        int st = 0;
        char *d = s->demangle(name, NULL, NULL, &st);
        if (d && st == 0) {
            const char *r = intern(s, d);
            free(d);
            return r;
        }
        free(d);
    }
    return intern(s, name);
}

static const char *die_name(Dwarf_Die *die) {
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a)) n = dwarf_formstring(&a);
    if (!n && dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) n = dwarf_formstring(&a);
    if (!n && dwarf_attr_integrate(die, DW_AT_name, &a)) n = dwarf_formstring(&a);
    return n;
}

/* Fills frames for file address a in module sm. */
static size_t resolve_in(struct cmt_symbolizer *s, struct smod *sm, Dwarf_Addr a, struct cmt_sym_frame *f, size_t max) {
    GElf_Off off;
    GElf_Sym sym;
    const char *symname = dwfl_module_addrinfo(sm->mod, a, &off, &sym, NULL, NULL, NULL);
    const char *file = NULL;
    int line = 0;
    Dwfl_Line *dl = dwfl_module_getsrc(sm->mod, a);
    if (dl) file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
    size_t n = 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(sm->mod, a, &bias);
    Dwarf_Die *scopes = NULL;
    int ns = cu ? dwarf_getscopes(cu, a - bias, &scopes) : 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (cu && dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = NULL;
    for (int i = 0; i < ns && n + 1 < max; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
        f[n].function = demangled(s, die_name(&scopes[i]));
        f[n].file = intern(s, file);
        f[n].line = line;
        f[n].inlined = tag == DW_TAG_inlined_subroutine;
        n++;
        if (tag == DW_TAG_subprogram) break;
        /* the caller's location is where this inlined call sits */
        Dwarf_Attribute at;
        Dwarf_Word cf = 0, cl = 0;
        if (dwarf_attr(&scopes[i], DW_AT_call_file, &at)) dwarf_formudata(&at, &cf);
        if (dwarf_attr(&scopes[i], DW_AT_call_line, &at)) dwarf_formudata(&at, &cl);
        file = files && cf < nfiles ? dwarf_filesrc(files, cf, NULL, NULL) : NULL;
        line = (int)cl;
    }
    free(scopes);
    if (n && !f[n - 1].function && symname) f[n - 1].function = demangled(s, symname);
    if (n && f[n - 1].inlined) { /* no subprogram scope found: the symbol table names the caller */
        f[n].function = demangled(s, symname);
        f[n].file = intern(s, file);
        f[n].line = line;
        f[n].inlined = 0;
        n++;
    }
    if (!n) {
        f[0].function = demangled(s, symname);
        f[0].file = intern(s, file);
        f[0].line = line;
        f[0].inlined = 0;
        n = 1;
    }
    return n;
}

static bool mapped_at(const struct cmt_module *m, uint64_t epoch) {
    return m->loaded_at <= epoch && (!m->unloaded_at || m->unloaded_at > epoch);
}

size_t cmt_sym_resolve(struct cmt_symbolizer *s, const struct cmt_module *mods, size_t nmods, uint64_t epoch,
                       uint64_t addr, struct cmt_sym_frame *out, size_t max) {
    if (!max) return 0;
    uint64_t q = addr ? addr - 1 : 0; /* a return address points after the call */
    const struct cmt_module *m = NULL;
    /* first the modules mapped at epoch, then (none covers it) any, the last loaded first */
    for (size_t i = 2 * nmods; i-- > 0 && !m;) {
        if (i >= nmods && !mapped_at(&mods[i - nmods], epoch)) continue;
        const struct cmt_module *c = &mods[i % nmods];
        for (uint32_t k = 0; k < c->nseg; k++) {
            uint64_t lo = c->base + c->segs[k].vaddr;
            if (q >= lo && q - lo < c->segs[k].memsz) {
                m = c;
                break;
            }
        }
    }
    memset(out, 0, sizeof *out);
    out->address = addr;
    out->module = "[unknown]";
    if (!m) return 1;
    struct smod *sm = s ? get_mod(s, m) : NULL;
    out->offset = addr - m->base;
    out->module = sm ? sm->path : "[unknown]";
    if (!sm || !sm->mod) return 1;
    uint64_t fa = q - m->base;
    struct addr_ent *ae;
    HASH_FIND(hh, sm->cache, &fa, sizeof fa, ae);
    if (!ae) {
        ae = calloc(1, sizeof *ae);
        if (!ae) return 1;
        ae->addr = fa;
        ae->n = resolve_in(s, sm, fa, ae->f, CMT_SYM_MAX_INLINE);
        HASH_ADD(hh, sm->cache, addr, sizeof ae->addr, ae);
    }
    size_t n = ae->n < max ? ae->n : max;
    for (size_t i = 0; i < n; i++) {
        out[i] = ae->f[i];
        out[i].module = sm->path;
        out[i].address = addr;
        out[i].offset = addr - m->base;
    }
    return n;
}
