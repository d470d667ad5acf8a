#!/usr/bin/env bash
# The stacks live at a device's peak (report --json's peak[].top) are those of the moment of the
# peak, in one pass over the dump, also when the peak moves all the time (issue 28: a job that leaks
# sets a new peak on nearly every pair). A synthetic dump with 40 stacks on two GPUs and host memory:
# 3000 allocations, then 20000 random frees, each followed by a replacement one byte bigger (a new
# peak), now and then a smaller one, a zero-byte allocation, or an allocation of a pointer still live
# (it replaces the old one unseen). An awk model of the same records gives the top 10 stacks (bytes,
# allocations) at each device's last new peak; report --json must give the same. Then:
# - a zero-byte allocation made after the peak is not counted among the allocations live at it
#   (the old replay counted it when the next free came before any other new peak);
# - the replay of one record at a time (cmt_replay_event + cmt_replay_finish, as live.c drives it)
#   gives the queued replay's peak snapshots (tests/unit/test_replay_queue: the old one-at-a-time
#   replay had no exact snapshot without cmt_replay_dump's second pass).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# moving.script, and the model's answer in expected.txt: "dev D top K stack S bytes B allocations A"
awk -v EXP=expected.txt 'BEGIN {
    srand(2828)
    print "header pid=9"
    print "api id=1 name=cuMemAlloc_v2"
    print "api id=2 name=cuMemFree_v2"
    print "ctx idx=1 dev=0 handle=0xc0"
    print "ctx idx=2 dev=1 handle=0xc1"
    nst = 40
    for (s = 1; s <= nst; s++) print "stack id=" s " 0x" sprintf("%x", 4096 * s) " 0x2000"
    n = 0; np = 0
    for (i = 0; i < 3000; i++) alloc(-1, 256 * (1 + int(rand() * 8)))
    for (i = 0; i < 20000; i++) {
        r = rand()
        if (r < 0.03 && n > 0) {          # an allocation of a live pointer: replaces it unseen
            k = int(rand() * n)
            gone(k)
            s = 1 + int(rand() * nst)
            print "alloc dev=" dv[k] " ptr=" live[k] " size=" (sz[k] = 100 + int(rand() * 300)) " stack=" (st[k] = s) " ctx=" (dv[k] < 0 ? 0 : dv[k] + 1) " api=1"
            come(k)
        } else if (r < 0.06) {            # zero bytes: no new peak, one more allocation of its stack
            alloc(-1, 0)
        } else if (n > 0) {               # a free, then its replacement: mostly 1 byte bigger
            k = int(rand() * n)
            size = sz[k] + (rand() < 0.9 ? 1 : -int(rand() * 200))
            if (size < 1) size = 1
            d = dv[k]
            print "free dev=" d " ptr=" live[k] " api=2"
            gone(k); drop(k)
            alloc(d, size)
        }
    }
    print "exit clean"
    for (d = 0; d <= 1; d++) {            # the top 10 at the last new peak: bytes desc, then stack id
        m = 0
        for (s = 1; s <= nst; s++) if (pb[d, s] > 0) { ts[++m] = s }
        for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
            if (pb[d, ts[b]] > pb[d, ts[a]] || (pb[d, ts[b]] == pb[d, ts[a]] && ts[b] < ts[a])) { x = ts[a]; ts[a] = ts[b]; ts[b] = x }
        for (a = 1; a <= m && a <= 10; a++)
            printf("dev %d top %d stack %d bytes %d allocations %d\n", d, a, ts[a], pb[d, ts[a]], pc[d, ts[a]]) >EXP
        printf("dev %d peak %d\n", d, peak[d]) >EXP
    }
}
function alloc(d, size,   p, s) {
    if (d == -1) d = rand() < 0.05 ? -1 : int(rand() * 2)
    p = sprintf("0x%x00", ++np)
    s = 1 + int(rand() * nst)
    print "alloc dev=" d " ptr=" p " size=" size " stack=" s " ctx=" (d < 0 ? 0 : d + 1) " api=1"
    live[n] = p; dv[n] = d; sz[n] = size; st[n] = s
    come(n); n++
}
function come(k,   d, s) {                # allocation k is live: counters, then a new peak?
    d = dv[k]; s = st[k]
    if (d < 0) return
    cb[d, s] += sz[k]; cn[d, s]++; lv[d] += sz[k]
    if (lv[d] > peak[d]) { peak[d] = lv[d]; for (t = 1; t <= nst; t++) { pb[d, t] = cb[d, t]; pc[d, t] = cn[d, t] } }
}
function gone(k,   d, s) { d = dv[k]; s = st[k]; if (d < 0) return; cb[d, s] -= sz[k]; cn[d, s]--; lv[d] -= sz[k] }
function drop(k) { n--; live[k] = live[n]; dv[k] = dv[n]; sz[k] = sz[n]; st[k] = st[n] }' >moving.script || fail "awk"
[ "$(grep -c ' top ' expected.txt)" -eq 20 ] || fail "the model found fewer than 10 stacks per device"
"$MKDUMP" moving.script moving.cmt || fail "mkdump moving"
expect_rc 0 "$CMT_BIN" report --json --no-symbols moving.cmt
# the same lines from the report: the stack is the innermost frame's address / 4096
python3 - out.txt >got.txt <<'P' || fail "reading the JSON report"
import json, sys
j = json.load(open(sys.argv[1]))
for d in (0, 1):
    p = [x for x in j["peak"] if x["device"] == d][0]
    for i, t in enumerate(p["top"][:10]):
        print("dev %d top %d stack %d bytes %d allocations %d" % (d, i + 1, int(t["frames"][0]["address"], 16) // 4096,
                                                                 t["bytes"], t["allocations"]))
    print("dev %d peak %d" % (d, p["bytes"]))
P
diff expected.txt got.txt >&2 || fail "the stacks live at the peak differ from the model's"
echo "moving peak: the report's top stacks at both peaks are the model's ($(wc -l <got.txt) lines)"

# a zero-byte allocation after the peak, then a free: one allocation of 100 bytes live at the peak
cat >zero.script <<'S'
header pid=9
stack id=1 0x1000 0x2000
alloc dev=0 ptr=0x1000 size=100 stack=1
alloc dev=0 ptr=0x4000 size=0 stack=1
free dev=0 ptr=0x1000
exit clean
S
"$MKDUMP" zero.script zero.cmt || fail "mkdump zero"
expect_rc 0 "$CMT_BIN" report --json --no-symbols zero.cmt
top=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["peak"][0]["top"]; print(" ".join("%d/%d" % (x["bytes"], x["allocations"]) for x in t))' out.txt)
[ "$top" = "100/1" ] || fail "at the peak: $top (want 100 bytes in 1 allocation: the zero-byte one came after)"
echo "a zero-byte allocation after the peak is not live at it"

# one record at a time (no cmt_replay_dump) gives the same snapshots as the queued replay
RQ=$CMT_BUILD/tests/unit/test_replay_queue
[ -x "$RQ" ] || make -s -C "$CMT_ROOT" "build/tests/unit/test_replay_queue" >&2 || fail "cannot build test_replay_queue"
"$RQ" --queued moving.cmt >queued.out 2>queued.err || { cat queued.err >&2; fail "test_replay_queue --queued"; }
"$RQ" --each moving.cmt >each.out 2>each.err || { cat each.err >&2; fail "test_replay_queue --each"; }
[ "$(grep -c '^  peak stack ' queued.out)" -ge 20 ] || fail "test_replay_queue prints no peak snapshot"
cmp -s queued.out each.out || { diff each.out queued.out | head -20 >&2; fail "one record at a time gives other peak snapshots"; }
echo "one record at a time: the same peak snapshots"
