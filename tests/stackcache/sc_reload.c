/* sc_reload.c PLUGIN1 PLUGIN2 — loads PLUGIN1, allocates 1000 bytes through its plugin_alloc
 * (leaked), closes it, loads PLUGIN2 (normally at the same address) and allocates 2000 bytes through
 * it (leaked), both from the same call instruction. Prints "same base" or "other base". */
#include <cuda.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

static int use(const char *path, size_t n, uintptr_t *base) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*fn)(size_t) = h ? (int (*)(size_t))dlsym(h, "plugin_alloc") : NULL;
    struct link_map *lm = NULL;
    if (!fn || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0) {
        fprintf(stderr, "sc_reload: %s: %s\n", path, dlerror());
        return 1;
    }
    *base = lm->l_addr;
    int r = fn(n);
    dlclose(h);
    return r != CUDA_SUCCESS;
}

int main(int argc, char **argv) {
    uintptr_t b1 = 0, b2 = 0;
    CUdevice dev;
    CUcontext ctx;
    if (argc != 3 || cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return 2;
    /* one call instruction for both: the two stacks have the same return addresses */
    uintptr_t base[2];
    for (int i = 0; i < 2; i++)
        if (use(argv[1 + i], 1000 * (size_t)(i + 1), &base[i])) return 1;
    b1 = base[0];
    b2 = base[1];
    puts(b1 == b2 ? "same base" : "other base");
    return 0;
}
