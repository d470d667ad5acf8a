# The call-site stack caches (preload/cmt_stacks.c) change nothing but speed: the same call site
# reached through different outer frames keeps its own stacks, and reports are identical with the
# caches on and off (CUMEMTRACK_STACK_CACHE=0: every stack from unw_backtrace), here and on a
# training-like loop; and with 1024 stacks from one call instruction (stack_sites: callers that
# differ at every level, same-size and bigger frames, uninitialised stack memory holding older
# return addresses where another path's slots were, a frame whose size changes on every call),
# every allocation's stack is libunwind's; allocations from a thread-specific-data destructor run
# after the caches' own (stack_thread_exit) are recorded with libunwind's stacks.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
leaks() { "$CMT_BIN" report --json "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for l in sorted(r["leaks"], key=lambda l: (l["bytes"], [f["function"] or "" for f in l["frames"]])):
    print(l["bytes"], l["allocations"], ";".join(f["function"] or "?" for f in l["frames"]))
for g in r.get("growth", []):
    print("growth", g["bytes_per_marker"], ";".join(f["function"] or "?" for f in g["frames"]))'; }
# every ALLOC's stack, each address as module+offset (ASLR differs between the runs)
per_alloc() { "$CMT_BIN" dump "$1" | python3 -c '
import bisect, re, sys
mods, stacks = [], {}
for line in sys.stdin:
    f = line.split()
    if len(f) < 4: continue
    if f[2] == "MODULE_LOAD":
        mods.append((int(re.search(r" base=(0x[0-9a-f]+)", line).group(1), 16),
                     re.search(r" path=\"([^\"]*)\"", line).group(1).rsplit("/", 1)[-1]))
        mods.sort()
    elif f[2] == "STACK":
        stacks[f[3]] = [int(x, 16) for x in f[5:] if x.startswith("0x")]
    elif f[2] == "ALLOC":
        kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
        frames = stacks.get("id=" + kv["stack"], [])
        def name(a):
            i = bisect.bisect_right([m[0] for m in mods], a) - 1
            return "%s+%x" % (mods[i][1], a - mods[i][0])
        print(kv["size"], " ".join(name(a) for a in frames) or "-")'; }
for sc in 1 0; do
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/s$sc.cmt "$CMT_TESTBIN/unit/stack_sites" >/dev/null \
        || die "stack_sites failed"
    per_alloc s$sc.cmt >s$sc.txt
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/a$sc.cmt "$CMT_TESTBIN/unit/stack_alias" >/dev/null \
        || die "stack_alias failed"
    leaks a$sc.cmt >a$sc.txt
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/t$sc.cmt "$CMT_TESTBIN/signals/sig_train" 40 >/dev/null \
        || die "sig_train failed"
    leaks t$sc.cmt >t$sc.txt
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/x$sc.cmt "$CMT_TESTBIN/unit/stack_thread_exit" >/dev/null \
        || die "stack_thread_exit failed"
    per_alloc x$sc.cmt | sort >x$sc.txt
done
[ "$(wc -l <x1.txt)" = 65 ] || die "stack_thread_exit: expected 65 allocations"
grep -q ' -$' x1.txt && die "stack_thread_exit: an allocation without a stack"
diff x0.txt x1.txt || die "stack_thread_exit: the caches changed the stacks"
[ "$(wc -l <s1.txt)" = 7168 ] || die "stack_sites: expected 7168 allocations"
grep -q ' -$' s1.txt && die "stack_sites: an allocation without a stack"
diff s0.txt s1.txt >s.diff || die "stack_sites: the caches gave $(grep -c '^>' s.diff) of 7168 stacks that libunwind does not"
cat a1.txt
diff a0.txt a1.txt || die "stack_alias: the cache changed the stacks"
diff t0.txt t1.txt || die "sig_train: the cache changed the stacks"
# via_a and via_b stay apart, at both depths: 300 = 150 + 150, 200 = 100 + 100
[ "$(wc -l <a1.txt)" = 4 ] || die "expected exactly four leak stacks"
grep -q '^614400 150 alloc_here;via_a;main;' a1.txt || die "via_a depth 0: wrong count"
grep -q '^614400 150 alloc_here;via_a;via_a;main;' a1.txt || die "via_a depth 1: wrong count"
grep -q '^409600 100 alloc_here;via_b;main;' a1.txt || die "via_b depth 0: wrong count"
grep -q '^409600 100 alloc_here;via_b;via_b;main;' a1.txt || die "via_b depth 1: wrong count"
echo PASS
