// cxx_alloc.cpp — a C++ program under the tracker: device memory allocated from a method in a
// namespace (the report must show the demangled name), and C++ exceptions thrown and caught
// across frames while the tracker is loaded (its libunwind must never capture the host's
// exception unwinding). Prints "caught 100" and exits 0.
#include <cuda.h>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace trainer {
struct Workspace {
    std::vector<CUdeviceptr> held;
    __attribute__((noinline)) void grow(size_t bytes) {
        CUdeviceptr p;
        if (cuMemAlloc(&p, bytes) != CUDA_SUCCESS) throw std::runtime_error("cuMemAlloc failed");
        held.push_back(p);
    }
};
} // namespace trainer

__attribute__((noinline)) static void deep_throw(int depth) {
    if (depth == 0) throw std::runtime_error("expected");
    deep_throw(depth - 1);
}

int main() {
    cuInit(0);
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, 0);
    cuCtxSetCurrent(ctx);
    trainer::Workspace ws;
    int caught = 0;
    for (int i = 0; i < 100; i++) {
        ws.grow(4096);
        try {
            deep_throw(i % 7);
        } catch (const std::runtime_error &) {
            caught++;
        }
        CUdeviceptr tmp;
        cuMemAlloc(&tmp, 512);
        cuMemFree(tmp);
    }
    std::printf("caught %d\n", caught);
    return caught == 100 ? 0 : 1;
}
