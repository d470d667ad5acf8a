/*
 * cumemtrack.h — the public API of cumemtrack for applications.
 *
 * cmt_mark(label) records a marker (e.g. "iteration") in the dump with the time and the live
 * device memory at that moment; `cumemtrack report` shows live bytes per device at each marker and
 * finds stacks that grow across markers of the same label. When the tracker is not preloaded the
 * call does nothing: link the tiny forwarding library (build/libcumemtrack_mark.so, -lcumemtrack_mark)
 * rather than defining cmt_mark yourself, since a definition in the executable would shadow the
 * tracker's.
 *
 * From Python:  import ctypes; ctypes.CDLL(None).cmt_mark(b"iteration")   (under cumemtrack run)
 */
#ifndef CUMEMTRACK_H
#define CUMEMTRACK_H

#ifdef __cplusplus
extern "C" {
#endif

void cmt_mark(const char *label);

#ifdef __cplusplus
}
#endif

#endif
