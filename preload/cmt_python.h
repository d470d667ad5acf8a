/*
 * cmt_python.h — Python frames: finds CPython in the process (lazily, again after each dlopen),
 * picks the running version's frame layout from one table (cmt_python.c), walks the calling
 * thread's own interpreter frame chain without the GIL, and interns code objects (PYCODE records)
 * and (code, instruction offset) -> line for the STACK records cmt_stacks.c writes.
 */
#ifndef CMT_PYTHON_H
#define CMT_PYTHON_H

#include <stdbool.h>
#include <stdint.h>

/* What the tracer knows of each CPython minor version (x86-64/aarch64 LP64 builds): byte offsets
 * into its structures, -1 where the version has no such field. One entry per version; adding a
 * version is one line, checked by tests/python/layout_check.c against that version's own headers.
 *   minor     3.minor
 *   lasti     how the instruction is found: 1 f_lasti in bytes (PyFrameObject), 2 f_lasti in code
 *             units (PyFrameObject), 0 an instruction pointer (_PyInterpreterFrame)
 *   ts_frame  PyThreadState: frame (<= 3.10), cframe (3.11, 3.12), current_frame (3.13)
 *   cf_cur    _PyCFrame.current_frame when ts_frame is a cframe, else -1
 *   fr_code   frame: f_code (3.13: f_executable); fr_prev: f_back / previous
 *   fr_instr  f_lasti (int), prev_instr (3.11, 3.12) or instr_ptr (3.13)
 *   fr_owner  _PyInterpreterFrame.owner (char); cstack: FRAME_OWNED_BY_CSTACK (an entry shim)
 *   fr_entry  _PyInterpreterFrame.is_entry (3.11)
 *   co_*      PyCodeObject fields; co_code: co_code (bytes, <= 3.10) or co_code_adaptive (3.11+)
 *   u_ascii   sizeof(PyASCIIObject); u_compact sizeof(PyCompactUnicodeObject); u_utf8 its utf8 */
#define CMT_PY_LAYOUTS(X)                                                                          \
    /* minor lasti ts_frame cf_cur fr_code fr_prev fr_instr fr_owner cstack fr_entry               \
       co_filename co_name co_qualname co_code co_firstlineno u_ascii u_compact u_utf8 */          \
    X(8, 1, 24, -1, 32, 24, 104, -1, -1, -1, 104, 112, -1, 48, 40, 48, 72, 56)                     \
    X(9, 1, 24, -1, 32, 24, 104, -1, -1, -1, 104, 112, -1, 48, 40, 48, 72, 56)                     \
    X(10, 2, 24, -1, 32, 24, 96, -1, -1, -1, 104, 112, -1, 48, 40, 48, 72, 56)                     \
    X(11, 0, 56, 8, 32, 48, 56, 69, -1, 68, 112, 120, 128, 184, 72, 48, 72, 56)                    \
    X(12, 0, 56, 0, 0, 8, 56, 70, 3, -1, 112, 120, 128, 192, 68, 40, 56, 48)                       \
    X(13, 0, 72, -1, 0, 8, 56, 70, 3, -1, 112, 120, 128, 200, 68, 40, 56, 48)

struct cmt_py_layout {
    int minor, lasti, ts_frame, cf_cur, fr_code, fr_prev, fr_instr, fr_owner, cstack, fr_entry;
    int co_filename, co_name, co_qualname, co_code, co_firstlineno, u_ascii, u_compact, u_utf8;
};

/* One Python frame as walked (raw: cheap to compare; resolved later when the stack is new). */
struct cmt_pyframe {
    uintptr_t code; /* the PyCodeObject */
    int32_t off;    /* byte offset of the instruction being executed (-1: not started) */
    uint32_t entry; /* 1: the outermost Python frame its eval-loop invocation runs */
};

/* 0 turns Python frames off (CUMEMTRACK_PYTHON=0). */

/* Walks the calling thread's Python frames, innermost first, at most max; returns how many
 * (0: no Python here, or this thread runs none). */
int cmt_python_walk(struct cmt_pyframe *out, int max);
/* True when the return address ip lies in the interpreter's eval loop (_PyEval_EvalFrameDefault).
 */
bool cmt_python_is_eval(uintptr_t ip);
/* The PYCODE id of a walked frame's code object (written when new; 0: no memory) and its line. */
uint32_t cmt_python_code_id(uintptr_t code);
uint32_t cmt_python_line(uintptr_t code, int32_t off);
/* A library was loaded: look for CPython again at the next walk if not found yet. */
void cmt_python_mark_dirty(void);
void cmt_python_fork_child(void);
/* "func (file:line)" of the calling thread's innermost Python frame into buf; false when none. */
bool cmt_python_where(char *buf, unsigned len);

#endif
