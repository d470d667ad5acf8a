/*
 * symbols.h — offline symbolization of recorded return addresses with elfutils (libdwfl on
 * the ELF files named by MODULE_LOAD records; never debuginfod). A module's file is located by
 * GNU build-id first (--debug-dir DIR/.build-id/xx/yyyy.debug, /usr/lib/debug/.build-id/...), by
 * its path second (only when its build-id matches, or none was recorded). Results are cached per
 * module and per address; returned strings live as long as the symbolizer.
 */
#ifndef CMT_SYMBOLS_H
#define CMT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define CMT_SYM_MAX_INLINE 8

/* Why a frame is left out of the default views (text, HTML, folded stacks, chains); JSON keeps
 * every frame and names the reason ("hidden"). The rule is analysis.c's (cmt_analysis_stack). */
enum cmt_hide { CMT_SHOW = 0, CMT_HIDE_INTERPRETER, CMT_HIDE_CUDA, CMT_HIDE_STARTUP };

/* One frame of a symbolized stack: native (a return address resolved here) or Python (a code
 * object and line of the dump: function is the qualified name, module NULL). */
struct cmt_sym_frame {
    enum cmt_frame_kind kind;
    int hidden;           /* enum cmt_hide */
    const char *function; /* demangled; NULL when unresolvable */
    const char *file;     /* NULL when unknown */
    int line;             /* 0 when unknown */
    const char *module;   /* module path, "[unknown]" when no module covers the address; NULL: Python */
    uint64_t address;     /* the recorded return address */
    uint64_t offset;      /* address - module load bias (file address), 0 without a module */
    int inlined;          /* 1: an inlined call inside the next frame */
};

struct cmt_symbolizer;

/* enabled 0: only module and offset are filled (--no-symbols). debug_dir may be NULL. */
struct cmt_symbolizer *cmt_sym_new(int enabled, const char *debug_dir);
void cmt_sym_free(struct cmt_symbolizer *s);

/* Resolves a return address of a process whose modules are mods, against the module mapped at
 * that address at point epoch of the module map's history (a stack's cmt_stack.mod_epoch: a
 * library closed later, or loaded at the same address after it, is not the frame's; UINT64_MAX:
 * the modules mapped last); when none was, the last module loaded there. Writes the frames it
 * stands for (inlined calls first, innermost first; at least one, at most max) and returns how
 * many. */
size_t cmt_sym_resolve(struct cmt_symbolizer *s, const struct cmt_module *mods, size_t nmods, uint64_t epoch,
                       uint64_t addr, struct cmt_sym_frame *out, size_t max);

#endif
