# cmt-test: long
# Concurrency: 8 threads x OPS random alloc/free of random sizes (1 B .. 4 MiB) over 4 fake devices,
# every family mixed (cudaMalloc, Pitch, Managed, Async, HostAlloc, HostRegister), each free on
# another thread than its allocation (per-thread locked queues). The dump matches the driver's
# ground truth exactly (no lost or doubled event), the report's per-device allocations / frees /
# leaked bytes equal the program's own counts, nothing dropped, no deadlock (time limit).
# Then many short-lived threads (each allocates 3, frees 2, leaks 1, exits): nothing lost.
# make test: 8 x 20 k, 1 trial; make stress (REL_SCALE=stress): 8 x 1 M, 3 trials (seeds).
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
ops=$(pick 20000 1000000)
trials=$(pick 1 3)
limit=$(pick 120 1800)
export FAKECUDA_DEVICES=4
for seed in $(seq "$trials"); do
    n=stress$seed
    start=$SECONDS
    traced "$n" timeout "$limit" "$REL/rel_app" stress 8 "$ops" "$seed" || { cat "$n.err"; die "$n: exit $? (124: deadlock?)"; }
    [ "$(awk '$1 == "rel-ops" { print $2 }' "$n.out")" = $((8 * ops)) ] || die "$n: not every operation ran: $(grep rel-ops "$n.out")"
    ran=$((SECONDS - start))
    check_stream "$n"
    totals "$n"
    [ "$(warnings "$n.err")" = 0 ] || { cat "$n.err"; die "$n: the tracker warned"; }
    echo "ok $n: 8 threads x $ops ops, $(awk '$1 == "expect-alloc" { print $2 }' "$n.out") allocations, ${ran}s traced, dump $(stat -c %s "$n.cmt") bytes"
done
# Sequence numbers are hybrid logical clocks (cmt_format.h ORDERING): with the coarse clock (one
# kernel tick, 1-4 ms) most events of different threads share a time, so only the logical part (the
# pointer-table stripe's clock) orders an allocation before its free on another thread and that
# free before the address's reuse (malloc hands a freed block to the freeing thread again); the
# same exact checks hold, and per address the merged order alternates allocation and free.
CUMEMTRACK_CLOCK=coarse traced coarse timeout "$limit" "$REL/rel_app" stress 8 "$ops" 7 ||
    { cat coarse.err; die "coarse: exit $? (124: deadlock?)"; }
check_stream coarse
totals coarse
"$CMT_BIN" dump coarse.cmt | python3 -c '
import re, sys
live, n, reused, seen = set(), 0, 0, set()
for line in sys.stdin:
    m = re.match(r"seq=\d+ t=\d+ (ALLOC|FREE|RETRACK) .*\bptr=(0x[0-9a-f]+)", line)
    if not m:
        continue
    kind, ptr = m.groups()
    n += 1
    if kind == "FREE":
        assert ptr in live, "a FREE before its ALLOC in the merged order: " + line
        live.discard(ptr)
    else:
        assert ptr not in live, "an ALLOC of a live address in the merged order: " + line
        reused += ptr in seen
        live.add(ptr)
        seen.add(ptr)
assert reused > 0, "no address was reused: the check proves nothing"
print("ok merged order:", n, "events,", reused, "allocations at a reused address")
' || die "coarse: the merged order breaks an allocation/free pair"
echo "ok coarse clock: 8 threads x $ops ops"
waves=$(pick 40 1000)
traced short timeout "$limit" "$REL/rel_app" short "$waves" 16 || { cat short.err; die "short threads: exit $?"; }
check_stream short
totals short
echo "ok short-lived threads: $((waves * 16)) threads, $(awk '$1 == "expect-alloc" { print $2 }' short.out) allocations"
echo PASS
