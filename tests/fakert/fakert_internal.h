/*
 * fakert_internal.h — what the parts of the runtime double share: the driver look-ups of
 * fakert.c (by the generated ids of fakert_procs.h) and its error and context handling.
 */
#ifndef FAKERT_INTERNAL_H
#define FAKERT_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "fakert_procs.h" /* generated: FAKERT_PROC_LIST(X), X(id, "name", version, flags) */

#define FR_EXPORT __attribute__((visibility("default")))

enum fakert_proc_id {
#define FAKERT_ENUM(id, name, ver, flags) id,
    FAKERT_PROC_LIST(FAKERT_ENUM)
#undef FAKERT_ENUM
        FAKERT_NPROC
};

/* The driver entry point of look-up id (NULL when the driver lacks it). */
void *fakert_drv(int id) __attribute__((visibility("hidden")));
/* The calling thread's device's primary context made current (retained at first use). */
cudaError_t fakert_enter(void) __attribute__((visibility("hidden")));
/* A driver result as the runtime's, kept as the last error when it is one. */
cudaError_t fakert_ret(CUresult r) __attribute__((visibility("hidden")));
cudaError_t fakert_fail(cudaError_t e) __attribute__((visibility("hidden")));

#define FR_DRV(name, ver, fl) ((PFN_##name##_v##ver)fakert_drv(P_##name##_##ver##_##fl))
#define FR_ENTER_NEED(name, ver, fl)                                                               \
    do {                                                                                           \
        cudaError_t e_ = fakert_enter();                                                           \
        if (e_ != cudaSuccess)                                                                     \
            return e_;                                                                             \
        if (!fakert_drv(P_##name##_##ver##_##fl))                                                  \
            return fakert_fail(cudaErrorNotSupported);                                             \
    } while (0)

#endif
