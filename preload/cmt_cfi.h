/*
 * cmt_cfi.h — the unwinding rule in effect at a return address, read from the DWARF call frame
 * information of the object that holds it (.eh_frame through .eh_frame_hdr's search table, the
 * object found with _dl_find_object, or dl_iterate_phdr before glibc 2.35): what lets the stack caches of cmt_stacks.c
 * prove that a stack they serve is the one libunwind's fast trace would give (it applies the same rules).
 */
#ifndef CMT_CFI_H
#define CMT_CFI_H

#include <stdint.h>

enum {
    CMT_CFI_NONE, /* no rule, or one other than the forms below: such a frame is always unwound */
    CMT_CFI_STEP, /* CFA = (cfa_bp ? rbp : rsp) + cfa_off, return address at CFA - 8, the caller's
                   * rsp = CFA, its rbp at CFA + bp_off (bp_saved) or unchanged */
    CMT_CFI_LAST, /* the return address is undefined: the outermost frame */
};

struct cmt_cfi_rule {
    uint8_t kind, cfa_bp, bp_saved;
    int32_t cfa_off, bp_off;
};

/* The rule at return address ra (looked up at ra - 1, inside the call). Never allocates; takes no
 * lock but the loader's, and that one only where glibc lacks _dl_find_object. */
struct cmt_cfi_rule cmt_cfi_rule(uintptr_t ra);

#endif
