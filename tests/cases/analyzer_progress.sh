#!/usr/bin/env bash
# cmt-test: long
# Progress of long analyses: with stderr on a terminal (a pty from script(1)) and reading that takes
# more than a second (a dump on a "slow filesystem": a preloaded open() that waits 2.5 s for files
# named slow*), report/check/flame/diff/timeline print a progress line on stderr (dumps read, events
# replayed, rate), rewritten in place and erased at the end; nothing with --quiet, nothing when
# stderr is not a terminal, and the output is the same either way.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
command -v script >/dev/null || { echo "no script(1)"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
cat >slowopen.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
static void slow(const char *p) {
    const char *b = strrchr(p, '/');
    if (!strncmp(b ? b + 1 : p, "slow", 4)) {
        struct timespec t = {2, 500000000};
        while (nanosleep(&t, &t) != 0) {}
    }
}
#define WRAP(name)                                                                                 \
    int name(const char *p, int fl, ...) {                                                         \
        static int (*real)(const char *, int, ...);                                                \
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name);               \
        va_list ap; va_start(ap, fl); int mode = va_arg(ap, int); va_end(ap);                      \
        slow(p);                                                                                   \
        return real(p, fl, mode);                                                                  \
    }
WRAP(open)
WRAP(open64)
C
cc -shared -fPIC -o slowopen.so slowopen.c -ldl || fail "cc slowopen"
mkdir job
for n in fast slow; do
    python3 - "$n" >$n.script <<'P'
import sys
print(f"header pid={100 if sys.argv[1] == 'fast' else 101} host=n1 cmd=train")
print("device ord=0 uuid=GPU-00000000-0000-0000-0000-0000000000aa name=G pci=0000:10:00.0 total=1G")
t = 1001000
for i in range(70000):
    t += 10
    print(f"alloc dev=0 ptr={0x1000 + i * 0x1000:#x} size=4096 t={t}")
    t += 10
    print(f"free dev=0 ptr={0x1000 + i * 0x1000:#x} t={t}")
print(f"exit clean t={t + 10}")
P
    "$MKDUMP" $n.script job/$n.cmt || fail "mkdump $n"
done
# ontty CMD...: runs CMD with stderr (and stdout) on a pty; what the terminal showed goes to tty.txt
ontty() {
    local q=
    for a in "$@"; do q+=" $(printf '%q' "$a")"; done
    script -qec "env LD_PRELOAD=$PWD/slowopen.so$q" /dev/null >tty.txt 2>&1 </dev/null
}
progress_re='cumemtrack: [0-9]+/2 dumps read, [0-9.]+k? events replayed \([0-9.]+[kM]? events/s\)'
ontty "$CMT_BIN" report --no-symbols -o rep_tty.txt job || { cat tty.txt; fail "report on a tty"; }
grep -Eq "$progress_re" tty.txt || { cat -v tty.txt; fail "no progress line on a terminal"; }
grep -Eq "1/2 dumps read, (1?[0-9]{5}|[0-9.]+k) events replayed" tty.txt || { cat -v tty.txt; fail "progress counts"; }
tail -c 8 tty.txt | grep -q $'\r\033\[K' || { cat -v tty.txt; fail "the progress line is not erased at the end"; }
"$CMT_BIN" report --no-symbols -o rep_plain.txt job 2>plain_err.txt || fail "report"
cmp -s rep_tty.txt rep_plain.txt || fail "the report differs with a progress line"
# not a terminal: nothing, even when slow
LD_PRELOAD=$PWD/slowopen.so "$CMT_BIN" report --no-symbols -o rep_pipe.txt job 2>pipe_err.txt || fail "report (pipe)"
[ -s pipe_err.txt ] && { cat -v pipe_err.txt; fail "progress written to a non-terminal"; }
# --quiet on a terminal: nothing, for every command that reads dumps
cmds=("report --no-symbols -o q.out job" "check --no-symbols job" "flame --no-symbols -o q.out job"
      "timeline --csv -o q.out job" "diff --no-symbols -o q.out job/fast.cmt job")
for cmd in "${cmds[@]}"; do
    ontty "$CMT_BIN" ${cmd%% *} --quiet ${cmd#* } || { cat -v tty.txt; fail "$cmd --quiet"; }
    grep -q "dumps read" tty.txt && { cat -v tty.txt; fail "$cmd --quiet printed progress"; }
    grep -q . tty.txt && [ "${cmd%% *}" != check ] && { cat -v tty.txt; fail "$cmd --quiet wrote to the terminal"; }
done
# and without --quiet every one of them shows it
for cmd in "${cmds[@]:1}"; do
    ontty "$CMT_BIN" $cmd || { cat -v tty.txt; fail "$cmd"; }
    grep -Eq "$progress_re" tty.txt || { cat -v tty.txt; fail "$cmd: no progress line on a terminal"; }
done
echo ok
