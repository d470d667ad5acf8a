// fake_torch_caching.cpp — a test double of PyTorch's CUDA allocator, built as libc10_cuda.so: its
// allocating functions carry PyTorch's mangled names and its three paths, chosen as PyTorch 2.x
// chooses them (c10/cuda/CUDACachingAllocator.cpp, CUDAMallocAsyncAllocator.cpp):
//   default: NativeCachingAllocator::malloc -> Native::DeviceCachingAllocator::malloc -> cudaMalloc,
//            every block kept cached (never freed, as a cache holds its segments at exit);
//   PYTORCH_NO_CUDA_MEMORY_CACHING=1: NativeCachingAllocator::allocate -> uncached_allocate ->
//            cudaMalloc, one allocation per tensor, never freed here: tensors still alive (leaks);
//   PYTORCH_ALLOC_CONF (when set, read first) or else PYTORCH_CUDA_ALLOC_CONF naming
//            backend:cudaMallocAsync: CudaMallocAsync::CudaMallocAsyncAllocator
//            ::allocate -> mallocAsync -> cudaMallocAsync, one allocation per tensor, likewise.
// fake_torch_blas_handle: PyTorch's cuBLAS handle pool (at::cuda::getCurrentCUDABlasHandle), whose
// handle's workspace stays allocated at exit; fake_torch_blaslt_workspace: its cuBLASLt workspace
// (through PyTorch's allocator); fake_cublas_create alone: a program's own handle.
// One more entry point, outside that namespace, allocates and drops the pointer: a real leak.
// Driven from Python through ctypes (tests/python/caching_sites.py), so the stacks carry Python
// frames too.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int cudaMalloc(void **p, size_t n);
extern "C" int cudaMallocAsync(void **p, size_t n, void *stream);

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
__attribute__((noinline)) static void *uncached_allocate(size_t n) {
    void *p = nullptr;
    return cudaMalloc(&p, n) == 0 ? p : nullptr;
}
struct NativeCachingAllocator {
    DeviceCachingAllocator device;
    __attribute__((noinline)) void *malloc(size_t n) { return device.malloc(n); }
    __attribute__((noinline)) void *allocate(size_t n) {
        const char *off = getenv("PYTORCH_NO_CUDA_MEMORY_CACHING");
        if (off && *off && strcmp(off, "0") != 0) return uncached_allocate(n);
        return malloc(n);
    }
};
} // namespace Native
namespace CudaMallocAsync {
namespace {
__attribute__((noinline)) void *mallocAsync(size_t n) {
    void *p = nullptr;
    return cudaMallocAsync(&p, n, nullptr) == 0 ? p : nullptr;
}
} // namespace
struct CudaMallocAsyncAllocator {
    __attribute__((noinline)) void *allocate(size_t n) { return mallocAsync(n); }
};
} // namespace CudaMallocAsync
__attribute__((noinline)) void *raw_alloc(size_t n) {
    static Native::NativeCachingAllocator native;
    static CudaMallocAsync::CudaMallocAsyncAllocator async;
    // the device-generic PYTORCH_ALLOC_CONF first when set (as some PyTorch releases read them)
    const char *conf = getenv("PYTORCH_ALLOC_CONF");
    if (!conf || !*conf) conf = getenv("PYTORCH_CUDA_ALLOC_CONF");
    char packed[256] = ""; // blanks skipped, as PyTorch's CUDAAllocatorConfig reads the value
    for (size_t i = 0, k = 0; conf && conf[i] && k + 1 < sizeof packed; i++)
        if (conf[i] != ' ') packed[k++] = conf[i], packed[k] = 0;
    if (strstr(packed, "backend:cudaMallocAsync")) return async.allocate(n);
    return native.allocate(n);
}
} // namespace CUDACachingAllocator
} // namespace cuda
} // namespace c10

// PyTorch's handle pool (aten/src/ATen/cuda/CublasHandlePool.cpp): one cuBLAS handle per thread,
// created on first use and never destroyed; cublasCreate_v2 allocates the handle's workspace.
extern "C" __attribute__((noinline)) int fake_cublas_create(void **workspace, size_t n) {
    return cudaMalloc(workspace, n);
}
namespace at {
namespace cuda {
__attribute__((noinline)) void *getCurrentCUDABlasHandle(size_t workspace) {
    static void *handle_workspace;
    if (!handle_workspace && fake_cublas_create(&handle_workspace, workspace) != 0) return nullptr;
    return handle_workspace;
}
} // namespace cuda
} // namespace at

extern "C" __attribute__((noinline)) void *fake_torch_blas_handle(size_t workspace) {
    return at::cuda::getCurrentCUDABlasHandle(workspace);
}

// The cuBLASLt workspace PyTorch keeps per handle and stream (CublasHandlePool.cpp
// getCUDABlasLtWorkspace), allocated through PyTorch's own allocator: its cache's when caching is
// on, else one allocation the handle pool holds.
namespace at {
namespace cuda {
__attribute__((noinline)) void *getCUDABlasLtWorkspace(size_t n) {
    static void *workspace;
    if (!workspace) workspace = c10::cuda::CUDACachingAllocator::raw_alloc(n);
    return workspace;
}
} // namespace cuda
} // namespace at

extern "C" __attribute__((noinline)) void *fake_torch_blaslt_workspace(size_t n) {
    return at::cuda::getCUDABlasLtWorkspace(n);
}

extern "C" __attribute__((noinline)) void *fake_torch_empty(size_t n) {
    return c10::cuda::CUDACachingAllocator::raw_alloc(n);
}

extern "C" __attribute__((noinline)) int fake_plain_leak(size_t n) {
    void *p = nullptr;
    return cudaMalloc(&p, n); // p dropped: leaked
}
