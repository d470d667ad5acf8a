/*
 * dp_skew.c — a data-parallel-like job over 4 GPUs with first-card skew.
 *
 * Usage: dp_skew [DEVICES]   (default 4; fewer when fewer GPUs are visible)
 * Every device gets a model replica (weights), gradients and activations; device 0 also holds a
 * gathered copy of everyone's weights and gradients (what happens when every rank touches
 * cuda:0), so its peak is about 1.8x the others'. Everything is freed: no leak, only skew, which
 * `cumemtrack report` names in its imbalance section (device 0's UUID).
 */
#include "cmt_example.h"

#define DP_MAX 16
#define DP_WEIGHTS CMT_EX_MIB(40)
#define DP_GRADS CMT_EX_MIB(40)
#define DP_ACTS CMT_EX_MIB(20)
#define DP_GATHER CMT_EX_MIB(80) /* device 0 only: 180 MiB against 100 MiB */

struct dp_replica {
    void *weights, *grads, *acts, *gather;
};

int main(int argc, char **argv)
{
    int want = (int)cmt_ex_arg(argc, argv, 1, 4), have = 0;
    CMT_EX_CHECK(cudaGetDeviceCount(&have));
    int n = want < have ? want : have;
    if (n > DP_MAX)
        n = DP_MAX;
    if (n < 1) {
        fprintf(stderr, "dp_skew: no GPU\n");
        return 1;
    }
    struct dp_replica r[DP_MAX] = {{0}};
    for (int d = 0; d < n; d++) {
        CMT_EX_CHECK(cudaSetDevice(d));
        CMT_EX_CHECK(cudaMalloc(&r[d].weights, DP_WEIGHTS));
        CMT_EX_CHECK(cudaMalloc(&r[d].grads, DP_GRADS));
        CMT_EX_CHECK(cudaMalloc(&r[d].acts, DP_ACTS));
    }
    /* the all-gather lands on cuda:0 */
    CMT_EX_CHECK(cudaSetDevice(0));
    CMT_EX_CHECK(cudaMalloc(&r[0].gather, DP_GATHER));
    CMT_EX_CHECK(cudaDeviceSynchronize());
    for (int d = 0; d < n; d++) {
        CMT_EX_CHECK(cudaSetDevice(d));
        CMT_EX_CHECK(cudaFree(r[d].acts));
        CMT_EX_CHECK(cudaFree(r[d].grads));
        CMT_EX_CHECK(cudaFree(r[d].weights));
        if (r[d].gather)
            CMT_EX_CHECK(cudaFree(r[d].gather));
    }
    size_t base = (DP_WEIGHTS + DP_GRADS + DP_ACTS) >> 20;
    printf("dp_skew: %d device%s (of %d wanted, %d visible); each held %zu MiB, device 0 %zu MiB "
           "(%.1fx); everything freed\n",
           n, n == 1 ? "" : "s", want, have, base, base + (DP_GATHER >> 20),
           (double)(base + (DP_GATHER >> 20)) / (double)base);
    return 0;
}
