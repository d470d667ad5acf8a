/* layout_check.c — checks the CMT_PY_LAYOUTS entry (preload/cmt_python.h) of the CPython whose
 * headers it is compiled against (-I its include dir, Py_BUILD_CORE for the internal ones) with the
 * offsets and sizes the compiler computes from those headers. Exit 0: the entry matches; 1: a field
 * differs (named); 2: the table has no entry for this version. Run by tests/cases/py_frames.sh for
 * every interpreter found. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif

#include "cmt_python.h"

static const struct cmt_py_layout table[] = {
#define E(mi, la, tf, cc, fc, fp, fi, fo, cs, fe, cf, cn, cq, co, cl, ua, uc, uu)                  \
    {mi, la, tf, cc, fc, fp, fi, fo, cs, fe, cf, cn, cq, co, cl, ua, uc, uu},
    CMT_PY_LAYOUTS(E)
#undef E
};

static int bad;
#define EQ(field, want)                                                                            \
    do {                                                                                           \
        if (l->field != (int)(want)) {                                                             \
            printf("3.%d: %s is %d in the table, %d in the headers\n", PY_MINOR_VERSION, #field,   \
                   l->field, (int)(want));                                                         \
            bad = 1;                                                                               \
        }                                                                                          \
    } while (0)

int main(void) {
    const struct cmt_py_layout *l = NULL;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (table[i].minor == PY_MINOR_VERSION) l = &table[i];
    if (!l) {
        printf("3.%d: no entry in CMT_PY_LAYOUTS\n", PY_MINOR_VERSION);
        return 2;
    }
#if PY_VERSION_HEX >= 0x030b0000
    EQ(lasti, 0);
#if PY_VERSION_HEX >= 0x030d0000
    EQ(ts_frame, offsetof(PyThreadState, current_frame));
    EQ(cf_cur, -1);
    EQ(fr_code, offsetof(_PyInterpreterFrame, f_executable));
    EQ(fr_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#else
    EQ(ts_frame, offsetof(PyThreadState, cframe));
    EQ(cf_cur, offsetof(_PyCFrame, current_frame));
    EQ(fr_code, offsetof(_PyInterpreterFrame, f_code));
    EQ(fr_instr, offsetof(_PyInterpreterFrame, prev_instr));
#endif
    EQ(fr_prev, offsetof(_PyInterpreterFrame, previous));
    EQ(fr_owner, offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX >= 0x030c0000
    EQ(cstack, FRAME_OWNED_BY_CSTACK);
    EQ(fr_entry, -1);
#else
    EQ(cstack, -1);
    EQ(fr_entry, offsetof(_PyInterpreterFrame, is_entry));
#endif
    EQ(co_qualname, offsetof(PyCodeObject, co_qualname));
    EQ(co_code, offsetof(PyCodeObject, co_code_adaptive));
#else
    EQ(lasti, PY_VERSION_HEX >= 0x030a0000 ? 2 : 1);
    EQ(ts_frame, offsetof(PyThreadState, frame));
    EQ(cf_cur, -1);
    EQ(fr_code, offsetof(PyFrameObject, f_code));
    EQ(fr_prev, offsetof(PyFrameObject, f_back));
    EQ(fr_instr, offsetof(PyFrameObject, f_lasti));
    EQ(fr_owner, -1);
    EQ(cstack, -1);
    EQ(fr_entry, -1);
    EQ(co_qualname, -1);
    EQ(co_code, offsetof(PyCodeObject, co_code));
#endif
    EQ(co_filename, offsetof(PyCodeObject, co_filename));
    EQ(co_name, offsetof(PyCodeObject, co_name));
    EQ(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
    EQ(u_ascii, sizeof(PyASCIIObject));
    EQ(u_compact, sizeof(PyCompactUnicodeObject));
    EQ(u_utf8, offsetof(PyCompactUnicodeObject, utf8));
    if (!bad) printf("3.%d: layout entry matches the headers\n", PY_MINOR_VERSION);
    return bad;
}
