/* mid.c — a native library between Python (ctypes) and cudaMalloc, three frames deep, for
 * tests/cases/live_top_python.sh (built -O0: every function keeps its frame). */
#include <stddef.h>

int cudaMalloc(void **p, size_t n);

static void *held[4096];
static size_t nheld;

int mid_c(size_t n) {
    void *p = NULL;
    int rc = cudaMalloc(&p, n);
    if (!rc && nheld < sizeof held / sizeof held[0]) held[nheld++] = p;
    return rc;
}

int mid_b(size_t n) {
    int rc = mid_c(n);
    return rc;
}

int mid_a(size_t n) {
    int rc = mid_b(n);
    return rc;
}
