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
 * cmt_test_begin(name) and cmt_test_end(name) bracket one test of a test runner: a range marker
 * of domain "cumemtrack.test" (NVTX-style push and pop). `cumemtrack report` then shows, per test,
 * the device memory allocated inside the range and still live at its end (caching-allocator
 * holdings apart), its peak and the top leaking stack; `cumemtrack check --per-marker` gates on
 * them. A begin while a test is open ends that test first. The pytest plugin
 * (python/cumemtrack/pytest_plugin.py) and the GoogleTest listener (examples/gtest_listener.cpp)
 * call them around every test.
 *
 * cmt_dump_path() is the path of the dump this process writes (NULL when it writes none yet, or
 * without the tracker): a test runner analyses its own dump with it while it runs.
 *
 * From Python:  import ctypes; ctypes.CDLL(None).cmt_mark(b"iteration")   (under cumemtrack run)
 */
#ifndef CUMEMTRACK_H
#define CUMEMTRACK_H

#ifdef __cplusplus
extern "C" {
#endif

void cmt_mark(const char *label);
void cmt_test_begin(const char *name);
void cmt_test_end(const char *name);
const char *cmt_dump_path(void);

#ifdef __cplusplus
}
#endif

#endif
