# The call-site stack cache (preload/cmt_stacks.c) changes nothing but speed: the same call site
# reached through different outer frames keeps its own stacks, and reports are identical with the
# cache on and off (CUMEMTRACK_STACK_CACHE=0), here and on a training-like loop.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
leaks() { "$CMT_BIN" report --json "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for l in sorted(r["leaks"], key=lambda l: (l["bytes"], [f["function"] or "" for f in l["frames"]])):
    print(l["bytes"], l["allocations"], ";".join(f["function"] or "?" for f in l["frames"]))
for g in r.get("growth", []):
    print("growth", g["bytes_per_marker"], ";".join(f["function"] or "?" for f in g["frames"]))'; }
for sc in 1 0; do
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/a$sc.cmt "$CMT_TESTBIN/unit/stack_alias" >/dev/null \
        || die "stack_alias failed"
    leaks a$sc.cmt >a$sc.txt
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/t$sc.cmt "$CMT_TESTBIN/signals/sig_train" 40 >/dev/null \
        || die "sig_train failed"
    leaks t$sc.cmt >t$sc.txt
done
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
