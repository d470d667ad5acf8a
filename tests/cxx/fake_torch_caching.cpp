// fake_torch_caching.cpp — a test double of PyTorch's caching allocator, built as libc10_cuda.so:
// its allocating functions carry PyTorch's mangled names (c10::cuda::CUDACachingAllocator::...),
// they call cudaMalloc on the runtime double (tests/fakert) and keep every block cached (never
// freed, as a cache holds its segments at exit). One more entry point, outside that namespace,
// allocates and drops the pointer: a real leak. Driven from Python through ctypes
// (tests/python/caching_sites.py), so the stacks carry Python frames too.
#include <cstddef>
#include <vector>

extern "C" int cudaMalloc(void **p, size_t n);

namespace c10 {
namespace cuda {
namespace CUDACachingAllocator {
namespace Native {
struct DeviceCachingAllocator {
    std::vector<void *> blocks;
    __attribute__((noinline)) void *malloc(size_t n) {
        void *p = nullptr;
        if (cudaMalloc(&p, n) != 0) return nullptr;
        blocks.push_back(p); // cached until exit
        return p;
    }
};
} // namespace Native
__attribute__((noinline)) void *raw_alloc(size_t n) {
    static Native::DeviceCachingAllocator a;
    return a.malloc(n);
}
} // namespace CUDACachingAllocator
} // namespace cuda
} // namespace c10

extern "C" __attribute__((noinline)) void *fake_torch_empty(size_t n) {
    return c10::cuda::CUDACachingAllocator::raw_alloc(n);
}

extern "C" __attribute__((noinline)) int fake_plain_leak(size_t n) {
    void *p = nullptr;
    return cudaMalloc(&p, n); // p dropped: leaked
}
