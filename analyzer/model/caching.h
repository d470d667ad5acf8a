/*
 * caching.h — caching allocators recognized from the frames of an allocation's stack: what such an
 * allocator still holds at exit is its cache, not a leak verdict. Built in (one table in caching.c):
 * PyTorch (c10::cuda::CUDACachingAllocator's DeviceCachingAllocator, in libc10_cuda; not its uncached
 * path nor its cudaMallocAsync backend), PyTorch's pool of library handles (cuBLAS and the like,
 * whose workspaces it keeps), CuPy's memory pools, RAPIDS RMM pool
 * resources, the XLA/TensorFlow BFC allocator, each a POSIX extended regex over the (demangled)
 * function names of native frames; plus the user's --caching-allocator REGEX, matched against the
 * function, file and module of every frame (Python frames included) and named by the regex itself.
 */
#ifndef CMT_CACHING_H
#define CMT_CACHING_H

#include <regex.h>
#include <stddef.h>

#include "symbols.h"

struct cmt_caching_rule {
    char *name;    /* "PyTorch", ... or the user's regex */
    char *pattern; /* the regex */
    regex_t re;
    int user;          /* 1: --caching-allocator (matches function, file, module); 0: built in (functions) */
    int holds_buffers; /* 1: it keeps whole buffers in use (PyTorch's handle pool: cuBLAS workspaces);
                        * 0: a cache, whose segments hold blocks nobody outside it knows */
};

struct cmt_caching {
    struct cmt_caching_rule *v;
    size_t n;
};

/* Adds the built-in rules to c (once). Returns 0, or -1 when out of memory. */
int cmt_caching_builtin(struct cmt_caching *c);
/* Adds the user's regex to c. Returns 0, or -1 with "why" in err (a regex that does not compile). */
int cmt_caching_add(struct cmt_caching *c, const char *regex, char *err, size_t errlen);
void cmt_caching_free(struct cmt_caching *c);
/* The first rule (user rules first) that a frame of the stack matches, or NULL. */
const struct cmt_caching_rule *cmt_caching_match_rule(const struct cmt_caching *user, const struct cmt_caching *builtin,
                                                      const struct cmt_sym_frame *frames, size_t n);
/* The name of the first rule (user rules first) that a frame of the stack matches, or NULL. */
const char *cmt_caching_match(const struct cmt_caching *user, const struct cmt_caching *builtin,
                              const struct cmt_sym_frame *frames, size_t n);

#endif
