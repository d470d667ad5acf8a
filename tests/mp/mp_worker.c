/*
 * mp_worker.c — one rank of a fake distributed job (driver API, run over the fake driver under
 * the tracer). Usage: mp_worker PEAK LEAK [WORKERS [WORKER_LEAK]]
 *   every visible device: allocates PEAK bytes in 4 chunks, frees them, then leaks LEAK bytes
 *   on device 0; then forks WORKERS children (data-loader style) that each allocate and leak
 *   WORKER_LEAK*(i+1) bytes on device 0 and exit; the parent waits for them.
 * Prints "rank-pid PID" and one "worker-pid I PID BYTES" line per worker.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, (int)r_);                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void use_device(int d) {
    CUcontext c;
    CK(cuDevicePrimaryCtxRetain(&c, d));
    CK(cuCtxSetCurrent(c));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: mp_worker PEAK LEAK [WORKERS [WORKER_LEAK]]\n");
        return 2;
    }
    size_t peak = strtoull(argv[1], NULL, 0), leak = strtoull(argv[2], NULL, 0);
    int workers = argc > 3 ? atoi(argv[3]) : 0;
    size_t wleak = argc > 4 ? strtoull(argv[4], NULL, 0) : 4096;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("rank-pid %d\n", (int)getpid());
    CK(cuInit(0));
    int n = 0;
    CK(cuDeviceGetCount(&n));
    for (int d = 0; d < n; d++) {
        use_device(d);
        CUdeviceptr p[4];
        for (int i = 0; i < 4; i++) CK(cuMemAlloc(&p[i], peak / 4 ? peak / 4 : 1));
        for (int i = 0; i < 4; i++) CK(cuMemFree(p[i]));
    }
    use_device(0);
    if (leak) {
        CUdeviceptr l;
        CK(cuMemAlloc(&l, leak));
    }
    for (int w = 0; w < workers; w++) {
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid == 0) {
            CK(cuInit(0));
            use_device(0);
            CUdeviceptr q;
            CK(cuMemAlloc(&q, wleak * (size_t)(w + 1)));
            printf("worker-pid %d %d %zu\n", w, (int)getpid(), wleak * (size_t)(w + 1));
            exit(0);
        }
    }
    int st, bad = 0;
    while (wait(&st) > 0) bad |= !WIFEXITED(st) || WEXITSTATUS(st);
    return bad;
}
