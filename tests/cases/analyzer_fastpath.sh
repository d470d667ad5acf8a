#!/usr/bin/env bash
# The reader's fast ALLOC/FREE decoder (analyzer/read/reader.c fast_record: unchecked varints when a
# whole record of the longest encoding fits before the end of its block, the other fields of the
# event cleared lazily) decodes exactly what the checked decoder does. The same records (two
# writers; values of every varint length up to 10 bytes: 64-bit pointers and contexts, negative
# devices, granted 0, sequence and time gaps; STACK, INFO and MARKER records in between, which set
# the fields an ALLOC must not carry) are written with 64 KiB blocks (nearly every record takes the
# fast path) and with 256-byte blocks (most records lie within the fast path's room of a block's
# end: the checked path), and tests/unit/test_decode prints every field of every event: the two
# must be the same, line for line, and the same through cmt_dump_next_hot (ALLOC/FREE decoded into
# the caller's slot). Then the failures the fast path hands to the checked decoder
# (an 11-byte varint, an allocation past 2^64) must be reported as the checked decoder reports them.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
T=$CMT_BUILD/tests/unit/test_decode
[ -x "$T" ] || make -s -C "$CMT_ROOT" "build/tests/unit/test_decode" >&2 || fail "cannot build test_decode"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# records.script: deterministic pseudo-random records (awk's rand with a fixed seed)
awk 'BEGIN {
    srand(16)
    h32 = 4294967296
    print "api id=1 name=cuMemAlloc_v2"
    print "api id=2 name=cuMemFree_v2"
    print "stack id=1 0x1000 0x2000"
    seq = 100; t = 1000000
    for (i = 0; i < 3000; i++) {
        w = (i % 7 == 3) ? 2 : 1
        if (w != cw) { print "writer " w; cw = w }
        seq += (rand() < 0.05) ? 1 + int(rand() * 100000000) : 1
        t += (rand() < 0.1) ? int(rand() * 1e12) : 1 + int(rand() * 100)
        st = sprintf(" seq=%.0f t=%.0f", seq, t)
        r = rand()
        # pointers and contexts: every length of varint, up to 2^63 (so ptr + size stays below 2^64);
        # sizes up to 2^57 (the bound of the reader)
        p = sprintf("0x%08x%08x", int(rand() * h32 / (rand() < 0.5 ? 2 : 65536)), int(rand() * h32))
        if (rand() < 0.2) p = sprintf("0x%x", int(rand() * 1000))
        if (r < 0.45) {
            dev = (rand() < 0.1) ? -1 : int(rand() * 3)
            size = (rand() < 0.3) ? sprintf("0x%08x%08x", int(rand() * 33554432), int(rand() * h32)) : int(rand() * 300)
            gr = (rand() < 0.5) ? 0 : size
            ctx = sprintf("0x%08x%08x", int(rand() * h32 / 2), int(rand() * h32))
            print "alloc dev=" dev " ptr=" p " size=" size " granted=" gr " kind=" int(rand() * 6) " stack=" int(rand() * 300) " ctx=" ctx " api=" int(rand() * 200) " flags=" int(rand() * 4) st
            live[n++] = p
        } else if (r < 0.9 && n > 0) {
            k = int(rand() * n)
            print "free dev=" ((rand() < 0.1) ? -2 : int(rand() * 3)) " ptr=" live[k] " api=" int(rand() * 200) " flags=" int(rand() * 4) st
        } else if (r < 0.93) {
            print "retrack dev=0 ptr=" p " size=" int(rand() * 5000) " kind=1 stack=1 result=" int(rand() * 900) st
        } else if (r < 0.96) {
            print "stack id=" 2 + i " 0x" sprintf("%x", 4096 + i) " 0x" sprintf("%x", 8192 + i) st
        } else if (r < 0.97) {
            print "info key=k" i " value=v" i st
        } else if (r < 0.98) {
            print "pycode id=" ++npy " first=" i " file=/f" i ".py name=fn" i st
        } else {
            print "marker label=m" i " flags=1 domain=d" st
        }
    }
    printf("exit clean seq=%.0f t=%.0f\n", seq + 1, t + 1)
}' >records.script || fail "awk"
{ echo "header pid=7"; cat records.script; } >big.script
{ echo "header pid=7 block_size=256"; cat records.script; } >small.script
"$MKDUMP" big.script big.cmt || fail "mkdump big"
"$MKDUMP" small.script small.cmt || fail "mkdump small"
for f in big small; do
    "$T" $f.cmt >$f.out 2>$f.err
    rc=$?
    [ $rc -eq 0 ] || { cat $f.err >&2; fail "test_decode $f.cmt: exit $rc"; }
done
n=$(wc -l <big.out)
[ "$n" -gt 3000 ] || fail "only $n records decoded"
[ "$(grep -c '^1 ' big.out)" -gt 1000 ] || fail "too few ALLOC records decoded"
[ "$(grep -c '^2 ' big.out)" -gt 1000 ] || fail "too few FREE records decoded"
cmp -s big.out small.out || { diff big.out small.out | head -20 >&2; fail "fast and checked decoders differ"; }
echo "$n records decoded the same in 64 KiB and 256-byte blocks"

# same_records MODE NAME: test_decode --MODE on both block sizes gives the checked decoder's records
same_records() {
    for f in big small; do
        "$T" --$1 $f.cmt >$f.$1.out 2>$f.$1.err || { cat $f.$1.err >&2; fail "test_decode --$1 $f.cmt"; }
        cmp -s big.out $f.$1.out || { diff big.out $f.$1.out | head -20 >&2; fail "$2 differs ($f blocks)"; }
    done
}
# cmt_dump_next_hot (the replay's look-ahead queue): ALLOC/FREE decoded into the caller's slot, the
# others (and an ALLOC/FREE that waits while the other writer's records come first) from the
# reader; the same records in the same order, every field up to result written into the slot
same_records hot cmt_dump_next_hot
nhot=$(sed -n 's/^hot //p' big.hot.err)
[ "${nhot:-0}" -gt 1000 ] || fail "only ${nhot:-0} records decoded into the slot (64 KiB blocks)"
echo "cmt_dump_next_hot: the same records, $nhot of them in the slot"
# cmt_dump_next_hot_run (the replay's runs of ALLOC/FREE): the same records, runs of every length
# from 1 to 24 into a ring, across the other writer's records and block ends
same_records run cmt_dump_next_hot_run
nrun=$(sed -n 's/^hot //p' big.run.err)
nruns=$(sed -n 's/^runs //p' big.run.err)
[ "${nrun:-0}" -gt 1000 ] || fail "only ${nrun:-0} records decoded by runs (64 KiB blocks)"
[ "${nruns:-0}" -lt "$nrun" ] || fail "no run of more than one record ($nruns runs, $nrun records)"
echo "cmt_dump_next_hot_run: the same records, $nrun of them in $nruns runs"
# every PYCODE returned, also by cmt_dump_next_hot (its records come past the slot), is kept
[ "$(grep -c ' known=1$' big.hot.out)" -gt 10 ] || fail "too few PYCODE records"
! grep -q ' known=0$' big.out small.out big.hot.out small.hot.out big.run.out small.run.out || fail "a PYCODE returned but not kept"

# a sequence number that does not increase, one past 2^64 - 1 (the record after 2^64 - 1) and a
# time past 2^62 in the middle of a run: the runs leave the record to cmt_dump_next_hot, which
# reports it as cmt_dump_next does (GOOD:FIELDS: how many records come before it, the 4th one's fields)
n=0
for c in "3:seq=12" "4:seq=18446744073709551615" "3:seq=13 t=4611686018427387904"; do
    n=$((n + 1)) good=${c%%:*} bad=${c#*:}
    cat >seqbad.script <<S
header pid=7
alloc dev=0 ptr=0x1000 size=16 stack=1 seq=10
free dev=0 ptr=0x1000 seq=11
alloc dev=0 ptr=0x2000 size=16 stack=1 seq=12
free dev=0 ptr=0x2000 $bad
alloc dev=0 ptr=0x3000 size=16 stack=1
S
    "$MKDUMP" seqbad.script seqbad.cmt || fail "mkdump seqbad $n"
    expect_rc 1 "$T" seqbad.cmt
    mv out.txt seqbad.out && mv err.txt seqbad.err
    [ "$(wc -l <seqbad.out)" -eq "$good" ] || fail "case $n: the records before the bad one are not all there"
    grep -q 'sequence number\|time' seqbad.err || { cat seqbad.err >&2; fail "case $n: not reported"; }
    expect_rc 1 "$T" --run seqbad.cmt
    cmp -s seqbad.out out.txt || { diff seqbad.out out.txt >&2; fail "case $n: --run returned other records"; }
    [ "$(grep -v '^hot \|^runs ' err.txt)" = "$(cat seqbad.err)" ] || { cat err.txt >&2; fail "case $n: --run reports otherwise"; }
    grep -q '^runs [1-9]' err.txt || fail "case $n: the records before the bad one were not read by a run"
done
echo "runs leave a bad sequence number or time to the checked path"

# the replay's queue (replay_dump.c: runs decoded ahead, applied a batch at a time through
# cmt_replay_run_hashed, once the live table has CMT_REPLAY_QUEUE_MIN_SLOTS slots) against applying
# each record in turn: 15 000 live allocations, then random churn on two writers and three devices
# (host memory too) with what leaves the usual path: captured and imported allocations, double and
# unknown frees, RETRACK, STACK (stops the queue), OOM, TEARDOWN of a context, and a clean exit
awk 'BEGIN {
    srand(1616)
    print "header pid=7"
    print "api id=1 name=cuMemAlloc_v2"
    print "api id=2 name=cuMemFree_v2"
    for (s = 1; s <= 40; s++) print "stack id=" s " 0x" sprintf("%x", 4096 * s) " 0x2000"
    nst = 40; n = nf = ni = np = 0
    for (i = 0; i < 15000; i++) alloc()
    for (i = 0; i < 40000; i++) {
        if (rand() < 0.1) print "writer " 1 + int(rand() * 2)
        r = rand()
        if (r < 0.45 && n > 0) free_one()
        else if (r < 0.9) alloc()
        else if (r < 0.92 && nf > 0) print "free dev=0 ptr=" freed[int(rand() * nf)] " api=2"  # double
        else if (r < 0.94) print "free dev=1 ptr=0x" sprintf("%x", 1 + int(rand() * 1e9)) "7 api=2"  # unknown
        else if (r < 0.95 && ni > 0) print "free dev=0 ptr=" imp[int(rand() * ni)] " api=2"  # imported, or unknown
        else if (r < 0.96 && n > 0) { k = int(rand() * n); print "retrack dev=" dv[k] " ptr=" live[k] " size=" 64 * (1 + int(rand() * 64)) " stack=3 ctx=" cx[k] " result=2" }
        else if (r < 0.97) { nst++; print "stack id=" nst " 0x" sprintf("%x", 8192 + nst) " 0x3000" }
        else if (r < 0.975) print "oom dev=" int(rand() * 2) " size=1G stack=2 api=1 result=2"
        else if (r < 0.9755) { c = 1 + int(rand() * 8); print "teardown dev=0 ctx=" c; for (k = 0; k < n; k++) if (cx[k] == c) { drop(k); k-- } }
        else alloc()
    }
    print "exit clean"
}
function alloc(   p, d, f, kd) {
    p = sprintf("0x%x00", ++np * 7 + int(rand() * 7))
    d = rand() < 0.05 ? -1 : int(rand() * 3)
    f = rand() < 0.03 ? 4 : 0
    kd = rand() < 0.02 ? "imported" : "device"
    print "alloc dev=" d " ptr=" p " size=" 256 * (1 + int(rand() * 100)) " kind=" kd " stack=" 1 + int(rand() * nst) " ctx=" (c = 1 + int(rand() * 8)) " api=1 flags=" f
    if (kd == "imported") { imp[ni++] = p; return }
    if (f) return
    live[n] = p; dv[n] = d; cx[n] = c; n++
}
function drop(k) { n--; live[k] = live[n]; dv[k] = dv[n]; cx[k] = cx[n] }
function free_one(   k) {
    k = int(rand() * n)
    print "free dev=" dv[k] " ptr=" live[k] " api=2"
    freed[nf++] = live[k]
    drop(k)
}' >queue.script || fail "awk (queue)"
"$MKDUMP" queue.script queue.cmt || fail "mkdump queue"
RQ=$CMT_BUILD/tests/unit/test_replay_queue
[ -x "$RQ" ] || make -s -C "$CMT_ROOT" "build/tests/unit/test_replay_queue" >&2 || fail "cannot build test_replay_queue"
"$RQ" --queued queue.cmt >queued.out 2>queued.err || { cat queued.err >&2; fail "test_replay_queue --queued"; }
"$RQ" --each queue.cmt >each.out 2>each.err || { cat each.err >&2; fail "test_replay_queue --each"; }
cmp -s queued.out each.out || { diff each.out queued.out | head -20 >&2; fail "the queued replay differs from one record at a time"; }
slots=$(sed -n 's/^live_slots //p' queued.out)
min=$(sed -n 's/^#define CMT_REPLAY_QUEUE_MIN_SLOTS \([0-9]*\).*/\1/p' "$CMT_ROOT/analyzer/model/replay_internal.h")
[ -n "$min" ] && [ "${slots:-0}" -ge $((2 * min)) ] || fail "the live table (${slots:-?} slots) is too small for the queue (${min:-?})"
for w in double_free unknown_free failed_free captured_allocations; do
    grep -q "^anomaly $w [1-9]" queued.out || fail "the queue dump has no $w"
done
grep -q '^oom ' queued.out && grep -q '^imported .* open 0' queued.out && grep -q '^leak .* at 1 ' queued.out &&
    grep -q '^host live [0-9]* peak [1-9]' queued.out || fail "the queue dump misses an OOM, a released import, a teardown leak or host memory"
echo "the queued replay gives the figures of one record at a time ($(wc -l <queued.out) lines)"

# what the fast path hands back to the checked decoder: with 64 KiB blocks the records below take
# the fast path first, with 128-byte blocks (less than its room) the checked one only
for bs in 65536 128; do
    # an ALLOC whose pointer delta (2^62: ten bytes, 80 x9 01) is made 11 bytes long (last byte 81)
    cat >bad.script <<S
header pid=7 block_size=$bs
alloc dev=0 ptr=0x1000 size=16 stack=1
free dev=0 ptr=0x1000
alloc dev=0 ptr=0x4000000000001000 size=16 stack=1
S
    "$MKDUMP" bad.script bad.cmt || fail "mkdump bad ($bs)"
    at=$(od -An -v -tx1 -w1 bad.cmt | awk '{ b[NR] = $1 } END {
        for (i = 1; i + 9 <= NR; i++) {
            ok = 1
            for (k = 0; k < 9; k++) if (b[i + k] != "80") { ok = 0; break }
            if (ok && b[i + 9] == "01") { print i + 8; exit }
        } }')
    [ -n "$at" ] || fail "$bs-byte blocks: the 10-byte pointer delta is not in the dump"
    printf '\201' | dd of=bad.cmt bs=1 seek="$at" conv=notrunc status=none || fail "patching bad.cmt"
    expect_rc 1 "$T" bad.cmt
    [ "$(wc -l <out.txt)" -eq 2 ] || fail "$bs-byte blocks: the records before the bad one are not all there"
    grep -q 'record type 0x01 (writer 1, block at offset [0-9]*): payload does not decode' err.txt ||
        { cat err.txt >&2; fail "$bs-byte blocks: an 11-byte varint in an ALLOC is not reported as undecodable"; }
    # an allocation past 2^64, and one of more than any address space holds (2^57 bytes: a
    # flipped bit; two of them would wrap the live byte counts to 0, and check passed on "0 B leaked")
    for c in "over 0xffffffffffffff00 0x1000 ending past 2^64" "huge 0x1000 0x200000000000001 of more than 2^57 bytes"; do
        read -r name ptr size why <<<"$c"
        printf 'header pid=7 block_size=%s\nalloc dev=0 ptr=%s size=%s stack=1\n' "$bs" "$ptr" "$size" >$name.script
        "$MKDUMP" $name.script $name.cmt || fail "mkdump $name ($bs)"
        expect_rc 1 "$T" $name.cmt
        grep -q "allocation .*$why" err.txt || { cat err.txt >&2; fail "$bs-byte blocks: an allocation $why is not reported"; }
    done
done
echo ok
