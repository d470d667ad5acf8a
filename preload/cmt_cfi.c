/*
 * cmt_cfi.c — see cmt_cfi.h. Only the forms libunwind's x86-64 fast trace takes as standard
 * frames are returned as CMT_CFI_STEP; anything else (a CFA expression, a signal frame, a register
 * rule for rsp, rbp kept in another register, an encoding not handled here) is CMT_CFI_NONE.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "cmt_cfi.h"
#include "cmt_internal.h"

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16
#define STATE_DEPTH 8

enum { R_SAME, R_UNDEF, R_OFFSET, R_OTHER };

struct rule {
    uint8_t how;
    int64_t off;
};

struct state {
    int cfa_reg, cfa_expr;
    int64_t cfa_off;
    struct rule bp, sp, ra;
    int sp_set;
};

struct cur {
    const uint8_t *p, *end;
    int ok;
};

static uint64_t uleb(struct cur *c) {
    uint64_t v = 0;
    for (unsigned shift = 0; c->ok; shift += 7) {
        if (c->p >= c->end || shift > 63) {
            c->ok = 0;
            break;
        }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    return v;
}

static int64_t sleb(struct cur *c) {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
        if (c->p >= c->end || shift > 63) {
            c->ok = 0;
            return 0;
        }
        b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~0ull << shift;
    return (int64_t)v;
}

static uint64_t fixed(struct cur *c, size_t n) {
    uint64_t v = 0;
    if (!c->ok || (size_t)(c->end - c->p) < n) {
        c->ok = 0;
        return 0;
    }
    memcpy(&v, c->p, n); /* little-endian */
    c->p += n;
    return v;
}

/* A pointer encoded per DW_EH_PE enc (absolute, pc-relative or relative to datarel). */
static uintptr_t encoded(struct cur *c, uint8_t enc, uintptr_t datarel) {
    if (enc == 0xff) return 0; /* omitted */
    uintptr_t at = (uintptr_t)c->p, v;
    switch (enc & 0x0f) {
    case 0x00:
        v = (uintptr_t)fixed(c, 8);
        break;
    case 0x01:
        v = (uintptr_t)uleb(c);
        break;
    case 0x02:
        v = (uintptr_t)fixed(c, 2);
        break;
    case 0x03:
        v = (uintptr_t)fixed(c, 4);
        break;
    case 0x04:
        v = (uintptr_t)fixed(c, 8);
        break;
    case 0x09:
        v = (uintptr_t)sleb(c);
        break;
    case 0x0a:
        v = (uintptr_t)(int64_t)(int16_t)fixed(c, 2);
        break;
    case 0x0b:
        v = (uintptr_t)(int64_t)(int32_t)fixed(c, 4);
        break;
    case 0x0c:
        v = (uintptr_t)fixed(c, 8);
        break;
    default:
        c->ok = 0;
        return 0;
    }
    switch (enc & 0x70) {
    case 0x00:
        break;
    case 0x10:
        v += at;
        break;
    case 0x30:
        v += datarel;
        break;
    default:
        c->ok = 0;
        return 0;
    }
    return v; /* 0x80 (indirect) is only met for the personality, which is skipped */
}

static void set_rule(struct state *s, uint64_t reg, uint8_t how, int64_t off) {
    struct rule r = {how, off};
    if (reg == REG_RBP) s->bp = r;
    if (reg == REG_RSP) {
        s->sp = r;
        s->sp_set = 1;
    }
    if (reg == REG_RA) s->ra = r;
}

/* Runs call frame instructions [c) from location loc while the row stays at or below target;
 * init: the CIE's state (for DW_CFA_restore), NULL while running the CIE's own instructions. */
static int run(struct cur *c, struct state *s, const struct state *init, uintptr_t loc, uintptr_t target,
               uint64_t code_align, int64_t data_align, uint8_t fde_enc) {
    struct state stack[STATE_DEPTH];
    int depth = 0;
    while (c->ok && c->p < c->end) {
        uint8_t op = *c->p++;
        uint64_t reg = op & 0x3f, delta = 0;
        switch (op >> 6) {
        case 1:
            delta = reg * code_align;
            goto advance;
        case 2:
            set_rule(s, reg, R_OFFSET, (int64_t)uleb(c) * data_align);
            continue;
        case 3:
            if (!init) return 0;
            if (reg == REG_RBP) s->bp = init->bp;
            if (reg == REG_RSP) s->sp = init->sp, s->sp_set = init->sp_set;
            if (reg == REG_RA) s->ra = init->ra;
            continue;
        }
        switch (op) {
        case 0x00:
            break;   /* nop */
        case 0x01: { /* set_loc */
            uintptr_t to = encoded(c, fde_enc, 0);
            if (!init || to < loc) return 0;
            delta = to - loc;
            goto advance;
        }
        case 0x02:
            delta = fixed(c, 1) * code_align;
            goto advance;
        case 0x03:
            delta = fixed(c, 2) * code_align;
            goto advance;
        case 0x04:
            delta = fixed(c, 4) * code_align;
            goto advance;
        case 0x05:
            reg = uleb(c), set_rule(s, reg, R_OFFSET, (int64_t)uleb(c) * data_align);
            break;
        case 0x06: /* restore_extended */
            reg = uleb(c);
            if (!init) return 0;
            if (reg == REG_RBP) s->bp = init->bp;
            if (reg == REG_RSP) s->sp = init->sp, s->sp_set = init->sp_set;
            if (reg == REG_RA) s->ra = init->ra;
            break;
        case 0x07:
            set_rule(s, uleb(c), R_UNDEF, 0);
            break;
        case 0x08:
            set_rule(s, uleb(c), R_SAME, 0);
            break;
        case 0x09:
            reg = uleb(c), uleb(c), set_rule(s, reg, R_OTHER, 0);
            break;
        case 0x0a:
            if (depth == STATE_DEPTH) return 0;
            stack[depth++] = *s;
            break;
        case 0x0b:
            if (!depth) return 0;
            *s = stack[--depth]; /* the CFA rule with the registers', as libunwind does */
            break;
        case 0x0c:
            s->cfa_reg = (int)uleb(c), s->cfa_off = (int64_t)uleb(c), s->cfa_expr = 0;
            break;
        case 0x0d:
            s->cfa_reg = (int)uleb(c), s->cfa_expr = 0;
            break;
        case 0x0e:
            s->cfa_off = (int64_t)uleb(c);
            break;
        case 0x0f: { /* def_cfa_expression */
            uint64_t n = uleb(c);
            if ((uint64_t)(c->end - c->p) < n) return 0;
            c->p += n;
            s->cfa_expr = 1;
            break;
        }
        case 0x10:   /* expression */
        case 0x16: { /* val_expression */
            reg = uleb(c);
            uint64_t n = uleb(c);
            if ((uint64_t)(c->end - c->p) < n) return 0;
            c->p += n;
            set_rule(s, reg, R_OTHER, 0);
            break;
        }
        case 0x11:
            reg = uleb(c), set_rule(s, reg, R_OFFSET, sleb(c) * data_align);
            break;
        case 0x12:
            s->cfa_reg = (int)uleb(c), s->cfa_off = sleb(c) * data_align, s->cfa_expr = 0;
            break;
        case 0x13:
            s->cfa_off = sleb(c) * data_align;
            break;
        case 0x14:
            reg = uleb(c), uleb(c), set_rule(s, reg, R_OTHER, 0);
            break;
        case 0x15:
            reg = uleb(c), sleb(c), set_rule(s, reg, R_OTHER, 0);
            break;
        case 0x2e:
            uleb(c);
            break; /* GNU_args_size */
        case 0x2f:
            reg = uleb(c), set_rule(s, reg, R_OFFSET, -(int64_t)uleb(c) * data_align);
            break;
        default:
            return 0;
        }
        continue;
    advance:
        if (!init) return 0; /* a CIE does not advance */
        if (loc + delta > target) return c->ok;
        loc += delta;
    }
    return c->ok;
}

#if defined(__x86_64__)
/* glibc 2.35's _dl_find_object (lock-free), looked up at run time so that the tracer still loads
 * on glibc 2.34; without it, dl_iterate_phdr (the loader's lock, as libunwind's own lookups) */
static void *_Atomic find_object; /* _dl_find_object, NULL: none */
static _Atomic int find_state;    /* 0 not looked up, 1 done */

/* The bytes of an object's unwinding data may be read only inside the PT_LOAD segment that holds
 * its .eh_frame_hdr (.eh_frame lies in the same one): lengths and offsets in a corrupt or hostile
 * library could point anywhere, gaps between segments included (PROT_NONE), and a fault here would
 * crash the tracked program. */
struct seg {
    uintptr_t lo, hi;
};

/* The PT_LOAD segment of (phdr, n, bias) that holds p ({0, 0}: none). */
static struct seg seg_of(const ElfW(Phdr) * phdr, size_t n, uintptr_t bias, uintptr_t p) {
    for (size_t i = 0; i < n; i++) {
        uintptr_t lo = bias + phdr[i].p_vaddr;
        if (phdr[i].p_type == PT_LOAD && p >= lo && p - lo < phdr[i].p_memsz) return (struct seg){lo, lo + phdr[i].p_memsz};
    }
    return (struct seg){0, 0};
}

struct phdr_query {
    uintptr_t pc;
    const uint8_t *hdr;
    struct seg seg;
};

static int phdr_visit(struct dl_phdr_info *info, size_t size, void *arg) {
    struct phdr_query *q = arg;
    (void)size;
    const uint8_t *hdr = NULL;
    int in = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->pc >= lo && q->pc - lo < ph->p_memsz) in = 1;
        if (ph->p_type == PT_GNU_EH_FRAME) hdr = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    }
    if (!in) return 0;
    q->hdr = hdr;
    if (hdr) q->seg = seg_of(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, (uintptr_t)hdr);
    return 1;
}

/* The .eh_frame_hdr of the object that holds pc (NULL: none, or no segment holds it), *seg the
 * segment it lies in. */
static const uint8_t *eh_frame_hdr(uintptr_t pc, struct seg *seg) {
#ifdef DLFO_EH_SEGMENT_TYPE
    if (!atomic_load_explicit(&find_state, memory_order_acquire)) {
        if (cmt_real_dlsym) atomic_store(&find_object, cmt_real_dlsym(RTLD_DEFAULT, "_dl_find_object"));
        atomic_store_explicit(&find_state, 1, memory_order_release);
    }
    void *f = atomic_load_explicit(&find_object, memory_order_relaxed);
    if (f) {
        struct dl_find_object fo;
        if (((int (*)(void *, struct dl_find_object *))f)((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame ||
            !fo.dlfo_link_map)
            return NULL;
        /* the program headers, as the ELF header at the start of the object's mapping says (both
         * lie in its first PT_LOAD segment) */
        const ElfW(Ehdr) *eh = fo.dlfo_map_start;
        uintptr_t start = (uintptr_t)fo.dlfo_map_start, end = (uintptr_t)fo.dlfo_map_end;
        if (end - start < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
            eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > end - start ||
            (end - start - eh->e_phoff) / sizeof(ElfW(Phdr)) < eh->e_phnum)
            return NULL;
        *seg = seg_of((const ElfW(Phdr) *)(start + eh->e_phoff), eh->e_phnum, fo.dlfo_link_map->l_addr,
                      (uintptr_t)fo.dlfo_eh_frame);
        return seg->hi ? fo.dlfo_eh_frame : NULL;
    }
#endif
    struct phdr_query q = {pc, NULL, {0, 0}};
    dl_iterate_phdr(phdr_visit, &q);
    *seg = q.seg;
    return q.seg.hi ? q.hdr : NULL;
}
#endif

/* [p, p + n) lies in seg */
static int in_seg(const struct seg *seg, const uint8_t *p, uint64_t n) {
    uintptr_t a = (uintptr_t)p;
    return a >= seg->lo && a <= seg->hi && n <= seg->hi - a;
}

struct cmt_cfi_rule cmt_cfi_rule(uintptr_t ra) {
    struct cmt_cfi_rule none = {CMT_CFI_NONE, 0, 0, 0, 0};
#if defined(__x86_64__)
    uintptr_t pc = ra - 1;
    struct seg seg;
    const uint8_t *hdr = ra ? eh_frame_hdr(pc, &seg) : NULL;
    if (!hdr || !in_seg(&seg, hdr, 20)) return none;
    if (hdr[0] != 1 || hdr[3] != 0x3b) return none; /* version 1, table: datarel sdata4 */
    struct cur c = {hdr + 4, hdr + 4 + 16, 1};
    encoded(&c, hdr[1], (uintptr_t)hdr);
    uint64_t count = encoded(&c, hdr[2], (uintptr_t)hdr);
    if (!c.ok || !count || count > (seg.hi - (uintptr_t)c.p) / 8) return none; /* the table in the segment */
    const int32_t *tab = (const int32_t *)c.p;
    uint64_t lo = 0, hi = count; /* the last entry whose start is <= pc */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)hdr + (intptr_t)tab[2 * mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    if ((uintptr_t)hdr + (intptr_t)tab[2 * lo] > pc) return none;
    const uint8_t *fde = hdr + tab[2 * lo + 1];
    uint32_t flen, cie_off, clen;
    if (!in_seg(&seg, fde, 8)) return none;
    memcpy(&flen, fde, 4);
    memcpy(&cie_off, fde + 4, 4);
    /* an FDE holds its CIE pointer and more; a CIE its id and version */
    if (flen < 8 || flen == 0xffffffffu || cie_off == 0 || !in_seg(&seg, fde, 4 + (uint64_t)flen)) return none;
    const uint8_t *cie = fde + 4 - cie_off;
    if (!in_seg(&seg, cie, 4)) return none;
    memcpy(&clen, cie, 4);
    if (clen < 5 || clen == 0xffffffffu || !in_seg(&seg, cie, 4 + (uint64_t)clen)) return none;
    struct cur k = {cie + 8, cie + 4 + clen, 1}; /* after length and CIE id */
    uint8_t version = (uint8_t)fixed(&k, 1);
    const char *aug = (const char *)k.p;
    size_t alen = strnlen(aug, (size_t)(k.end - k.p));
    if (!k.ok || alen == (size_t)(k.end - k.p) || (version != 1 && version != 3)) return none;
    k.p += alen + 1;
    uint64_t code_align = uleb(&k);
    int64_t data_align = sleb(&k);
    uint64_t ra_reg = version == 1 ? fixed(&k, 1) : uleb(&k);
    uint8_t fde_enc = 0, has_z = aug[0] == 'z';
    if (has_z) {
        uint64_t n = uleb(&k);
        if (!k.ok || (uint64_t)(k.end - k.p) < n) return none;
        struct cur a = {k.p, k.p + n, 1};
        for (size_t i = 1; i < alen && a.ok; i++) {
            if (aug[i] == 'R')
                fde_enc = (uint8_t)fixed(&a, 1);
            else if (aug[i] == 'L')
                fixed(&a, 1);
            else if (aug[i] == 'P')
                encoded(&a, (uint8_t)(fixed(&a, 1) & 0x7f), 0);
            else
                return none; /* 'S' (a signal frame) or unknown */
        }
        if (!a.ok) return none;
        k.p += n;
    } else if (alen) {
        return none;
    }
    if (!k.ok || ra_reg != REG_RA) return none;
    struct state init = {.cfa_reg = -1, .bp = {R_SAME, 0}, .sp = {R_SAME, 0}, .ra = {R_OTHER, 0}};
    if (!run(&k, &init, NULL, 0, 0, code_align, data_align, fde_enc)) return none;
    struct cur f = {fde + 8, fde + 4 + flen, 1};
    uintptr_t begin = encoded(&f, fde_enc, 0), range = encoded(&f, fde_enc & 0x0f, 0);
    if (!f.ok || pc < begin || pc - begin >= range) return none;
    if (has_z) {
        uint64_t n = uleb(&f);
        if (!f.ok || (uint64_t)(f.end - f.p) < n) return none;
        f.p += n;
    }
    struct state s = init;
    if (!run(&f, &s, &init, begin, pc, code_align, data_align, fde_enc)) return none;
    if (s.ra.how == R_UNDEF) return (struct cmt_cfi_rule){CMT_CFI_LAST, 0, 0, 0, 0};
    if (s.cfa_expr || (s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP) || s.ra.how != R_OFFSET || s.ra.off != -8 ||
        s.sp_set || (s.bp.how != R_SAME && s.bp.how != R_OFFSET) || s.cfa_off > (1 << 28) || s.cfa_off < -(1 << 28) ||
        s.bp.off > (1 << 14) || s.bp.off < -(1 << 14))
        return none;
    return (struct cmt_cfi_rule){CMT_CFI_STEP, s.cfa_reg == REG_RBP, s.bp.how == R_OFFSET, (int32_t)s.cfa_off,
                                 (int32_t)s.bp.off};
#else
    (void)ra;
    return none;
#endif
}
