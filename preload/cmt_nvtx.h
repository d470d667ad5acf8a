/*
 * cmt_nvtx.h — the NVTX injection (cmt_nvtx.c): ranges and marks become markers, the memory-heap
 * extension becomes SUBALLOC records.
 */
#ifndef CMT_NVTX_H
#define CMT_NVTX_H

#include <stdbool.h>

/* Reads CUMEMTRACK_NVTX_DOMAINS; offers this library as the NVTX injection (NVTX_INJECTION64_PATH)
 * unless one is already set or for_children is false. */
void cmt_nvtx_setup(bool for_children) __attribute__((visibility("hidden")));

#endif
