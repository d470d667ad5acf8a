# The stack cache never changes a stack (README, "Call stacks"): tests/stackcache/sc_adversarial
# (realigned frames, alloca, recursion, function pointers, longjmp, fibers on the thread's stack,
# signal handlers, threads, tail calls; built without and with frame pointers) records, allocation
# by allocation, the same stack with CUMEMTRACK_STACK_CACHE=1 as with 0 (every stack from
# unw_backtrace), in runs whose environment size moves the initial stack pointer (its alignment
# decides whether two paths meet at the same call-site key).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
# every ALLOC's size and stack, each address as module+offset (ASLR differs between the runs); an
# address in no module (the word libunwind reads past a fiber's first frame: whatever the fiber's
# stack held, another value in each process) reads "?"
per_alloc() { "$CMT_BIN" dump "$1" | python3 -c '
import re, sys
mods, stacks, out = [], {}, []
for line in sys.stdin:
    f = line.split()
    if len(f) < 4: continue
    if f[2] == "MODULE_LOAD":
        base = int(re.search(r" base=(0x[0-9a-f]+)", line).group(1), 16)
        name = re.search(r" path=\"([^\"]*)\"", line).group(1).rsplit("/", 1)[-1]
        for v, n in re.findall(r" seg=(0x[0-9a-f]+):(0x[0-9a-f]+):", line):
            mods.append((base + int(v, 16), base + int(v, 16) + int(n, 16), base, name))
    elif f[2] == "STACK":
        stacks[f[3]] = [int(x, 16) for x in f[5:] if x.startswith("0x")]
    elif f[2] == "ALLOC":
        kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
        def name(a):
            for lo, hi, base, n in mods:
                if lo <= a - 1 < hi: return "%s+%x" % (n, a - base)
            return "?"
        out.append((int(kv["size"]), " ".join(name(a) for a in stacks.get("id=" + kv["stack"], [])) or "-"))
for s, st in sorted(out): print(s, st)'; }
bad=0 runs=0
for prog in sc_adversarial sc_adversarial_fp; do
    for pad in 0 8 16 24 40 56 72 104 136 200; do
        for sc in 0 1; do
            env CMT_PAD="$(printf "%${pad}s" "")" LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc \
                CUMEMTRACK_OUTPUT=$PWD/$prog.$pad.$sc.cmt "$CMT_TESTBIN/stackcache/$prog" all 12 >/dev/null \
                || die "$prog failed"
            per_alloc $prog.$pad.$sc.cmt >$prog.$pad.$sc.txt
        done
        runs=$((runs + 1))
        n=$(wc -l <$prog.$pad.1.txt)
        [ "$n" -gt 1000 ] || die "$prog: only $n allocations"
        grep -q ' -$' $prog.$pad.1.txt && die "$prog: an allocation without a stack"
        if ! diff $prog.$pad.0.txt $prog.$pad.1.txt >$prog.$pad.diff; then
            echo "$prog (environment +$pad bytes): $(grep -c '^>' $prog.$pad.diff) of $n stacks differ from libunwind's"
            bad=$((bad + 1))
        fi
    done
done
[ "$bad" = 0 ] || die "the stack cache changed stacks in $bad of $runs runs"
echo PASS
