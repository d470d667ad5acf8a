/* sc_adversarial.c — call stacks built to fool a stack cache: every allocation goes through
 * leaf() (one cuMemAlloc call instruction) from paths whose frames change size under the same call
 * site key (the same return address and stack pointer), with older paths' return addresses left in
 * uninitialised stack memory. Built twice by tests/stackcache/stackcache.mk: plain -O2 (no frame
 * pointers, sibling calls) and -O2 -fno-omit-frame-pointer. Each allocation has its own size (the
 * thread's counter), so that tests/cases/preload_stack_cache_adversarial.sh pairs the allocations
 * of a run with the stack cache on and off exactly. Patterns (argv[1], default "all"):
 *   realign  X1 (512 B of locals), X2 (16 B) and X3 (32 B) call A, whose frame is realigned by a
 *            64-byte-aligned local (X2 and X3 reach leaf at the same stack pointer in most
 *            alignments), first from one call instruction (X2 and X3, then X1), then from their own
 *   alloca   A sized with alloca so that leaf runs at the same stack pointer from Y1 (512 B of
 *            locals) and Y2 (16 B), first from one call instruction, then from their own
 *   recurse  recursion of varying depth, with an alloca frame on some levels
 *   fnptr    the callers through a table of function pointers
 *   longjmp  a path abandoned by longjmp, then another path at the same depth
 *   fiber    ucontext fibers whose stack lies inside the thread's own stack, switching mid-path
 *   signal   allocations from a signal handler (raise, on the thread's stack and on an alternate
 *            signal stack)
 *   threads  four threads running realign, alloca and recurse at once
 *   tail     sibling (tail) calls next to ordinary calls to the same function
 * argv[2]: rounds (default 40). Prints "ok". */
#include <alloca.h>
#include <cuda.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static volatile int sink;
static int rounds = 40;
static __thread size_t next_size;
static __thread void (*volatile pick)(void); /* per thread: the threads run the same patterns */
static CUcontext ctx;

#define NI __attribute__((noinline))

NI static void leaf(void) {
    CUdeviceptr p;
    size_t sz = next_size;
    next_size += 16;
    if (cuMemAlloc(&p, sz) != CUDA_SUCCESS || cuMemFree(p) != CUDA_SUCCESS) sink = 1;
}

/* ---- realigned frames ---- */
NI static void a_aligned(void) {
    _Alignas(64) volatile char buf[64];
    buf[0] = 1;
    leaf();
    sink += buf[0];
}
NI static void x1(void) {
    volatile char loc[512];
    loc[0] = 1;
    a_aligned();
    sink += loc[0];
}
NI static void x2(void) {
    volatile char loc[16];
    loc[0] = 1;
    a_aligned();
    sink += loc[0];
}
NI static void x3(void) {
    volatile char loc[32];
    loc[0] = 1;
    a_aligned();
    sink += loc[0];
}

/* ---- alloca: leaf at the same stack pointer from callers of other frame sizes ---- */
static __thread uintptr_t target;
NI static void a_alloca(void) {
    char here;
    if (!target) target = (uintptr_t)&here - 4096;
    size_t pad = (uintptr_t)&here - target;
    volatile char *p = alloca(pad < 16 ? 16 : pad);
    p[0] = 1;
    leaf();
    sink += p[0];
}
NI static void y1(void) {
    volatile char loc[512];
    loc[0] = 1;
    a_alloca();
    sink += loc[0];
}
NI static void y2(void) {
    volatile char loc[16];
    loc[0] = 1;
    a_alloca();
    sink += loc[0];
}

/* ---- recursion ---- */
NI static void rec(int n, int with_alloca) {
    if (n == 0) {
        leaf();
        return;
    }
    if (with_alloca && n % 2) {
        volatile char *p = alloca(16 * (size_t)n);
        p[0] = 1;
        rec(n - 1, with_alloca);
        sink += p[0];
        return;
    }
    rec(n - 1, with_alloca);
    sink++;
}

/* ---- function pointers ---- */
static void (*const table[])(void) = {x1, x2, x3, y1, y2, a_aligned, a_alloca, leaf};

/* ---- longjmp ---- */
static __thread jmp_buf jb;
NI static void deep_jump(int n) {
    volatile char loc[64];
    loc[0] = 1;
    if (n < 0) return;
    if (n == 0) {
        leaf();
        longjmp(jb, 1);
    }
    deep_jump(n - 1);
    sink += loc[0];
}

/* ---- fibers on the thread's own stack ---- */
static ucontext_t main_uc, fib_uc;
static void fiber_body(void) {
    for (int i = 0;; i++) {
        if (i % 2)
            x1();
        else
            y2();
        swapcontext(&fib_uc, &main_uc);
    }
}

/* ---- signal handlers ---- */
static volatile int sig_path;
static void on_signal(int sig) {
    (void)sig;
    if (sig_path % 3 == 0)
        x1();
    else if (sig_path % 3 == 1)
        y2();
    else
        rec(3, 1);
}
NI static void raise_from(int n) {
    volatile char loc[32];
    loc[0] = 1;
    if (n)
        raise_from(n - 1);
    else
        raise(SIGUSR1);
    sink += loc[0];
}

/* ---- tail calls (sibling calls at -O2 without frame pointers) ---- */
NI static void t_tail(void) {
    sink++;
    a_aligned(); /* a sibling call: t_tail's frame is gone */
}
NI static void t_plain(void) {
    a_aligned();
    sink++;
}

static void run(const char *what) {
    int all = !strcmp(what, "all");
    /* first each caller called from one call instruction (the same return address into run),
     * then from calls of their own */
    if (all || !strcmp(what, "realign"))
        for (int i = 0; i < rounds * 3; i++) { /* X2 and X3 first: they can meet at leaf's sp */
            pick = i < rounds * 2 ? (i % 2 ? x3 : x2) : x1;
            pick();
        }
    if (all || !strcmp(what, "alloca"))
        for (int i = 0; i < rounds * 2; i++) {
            pick = i % 2 ? y2 : y1;
            pick();
        }
    if (all || !strcmp(what, "realign"))
        for (int i = 0; i < rounds * 3; i++) {
            if (i % 3 == 0)
                x1();
            else if (i % 3 == 1)
                x2();
            else
                x3();
        }
    if (all || !strcmp(what, "alloca"))
        for (int i = 0; i < rounds * 2; i++) {
            if (i % 2)
                y2();
            else
                y1();
        }
    if (all || !strcmp(what, "recurse"))
        for (int i = 0; i < rounds * 2; i++)
            rec((i * 7) % 9, i % 2);
    if (all || !strcmp(what, "fnptr"))
        for (int i = 0; i < rounds * 2; i++) {
            pick = table[(i * 5) % (sizeof table / sizeof *table)];
            pick();
        }
    if (all || !strcmp(what, "longjmp"))
        for (volatile int i = 0; i < rounds; i++) {
            if (setjmp(jb) == 0) deep_jump(i % 4 + 1);
            if (i % 2)
                x2();
            else
                y1();
        }
    if (all || !strcmp(what, "tail"))
        for (int i = 0; i < rounds * 2; i++) {
            if (i % 2)
                t_tail();
            else
                t_plain();
        }
}

static void *thread_main(void *arg) {
    next_size = (size_t)(uintptr_t)arg;
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) sink = 1;
    for (int i = 0; i < rounds; i++) {
        run("realign");
        run("alloca");
        if (i % 4 == 0) run("recurse");
    }
    return NULL;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "all";
    if (argc > 2) rounds = atoi(argv[2]);
    next_size = 256;
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    CUdevice dev;
    if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return 1;
    int all = !strcmp(what, "all");
    run(what);
    if (all || !strcmp(what, "fiber")) {
        char fstack[64 * 1024]; /* inside the thread's stack */
        getcontext(&fib_uc);
        fib_uc.uc_stack.ss_sp = fstack;
        fib_uc.uc_stack.ss_size = sizeof fstack;
        fib_uc.uc_link = &main_uc;
        makecontext(&fib_uc, fiber_body, 0);
        for (int i = 0; i < rounds * 2; i++) {
            swapcontext(&main_uc, &fib_uc);
            if (i % 2)
                y1();
            else
                x2();
        }
    }
    if (all || !strcmp(what, "signal")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGUSR1, &sa, NULL);
        for (int i = 0; i < rounds * 2; i++) {
            sig_path = i;
            raise_from(i % 3);
        }
        static char alt[64 * 1024];
        stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
        sigaltstack(&ss, NULL);
        sa.sa_flags = SA_ONSTACK;
        sigaction(SIGUSR1, &sa, NULL);
        for (int i = 0; i < rounds; i++) {
            sig_path = i;
            raise_from(i % 2);
        }
    }
    if (all || !strcmp(what, "threads")) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)((i + 1) * (4u << 20)));
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
    }
    puts("ok");
    return sink == 1;
}
