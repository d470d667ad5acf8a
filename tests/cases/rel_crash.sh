# cmt-test: long
# Crashes: kill -9 at random points of an allocation loop (OOM-killer style: SIGKILL while
# allocating), abort(), SIGSEGV in the application, and death by SIGKILL at memory exhaustion
# under `ulimit -v`. Each time: the application dies exactly as it does untracked (same signal),
# the dump is readable, flagged died, and every allocation the program printed as completed
# (`done PTR BYTES`, fflush'ed after the call returned) is an ALLOC of that pointer and size in it.
# make test: 4 kill -9 trials; make stress (REL_SCALE=stress): 200.
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
trials=$(pick 4 200)
export FAKECUDA_DEVICES=4
exit_of() { "$CMT_BIN" report --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["exit"])'; }
# completed NAME: every `done PTR BYTES` of NAME.out is an ALLOC in NAME.cmt (multiplicity kept),
# and there is at least one (a run that completed nothing checks nothing: a failure);
# with --dropped-ok, the tracker may have dropped (counted) events when it ran out of memory
completed() {
    "$CMT_BIN" dump "$1.cmt" >"$1.txt" || die "$1: dump unreadable"
    "$CMT_BIN" report --json "$1.cmt" >"$1.json" || die "$1: report failed"
    python3 - "$1" "${2:-}" <<'PY' || die "$1: completed allocations missing from the dump, or none to check"
import collections, json, re, sys
name, dropped_ok = sys.argv[1], sys.argv[2] == '--dropped-ok'
want = collections.Counter()
for line in open(name + '.out'):
    w = line.split()
    if len(w) == 3 and w[0] == 'done':
        want[(int(w[1], 16), int(w[2]))] += 1
if not want:
    print('%s: the program completed no allocation: nothing to check' % name)
    sys.exit(1)
got = collections.Counter()
for line in open(name + '.txt'):
    if ' ALLOC ' not in line:
        continue
    f = dict(re.findall(r'(\w+)=(\S+)', line))
    granted = int(f['granted'], 0) or int(f['size'], 0)
    got[(int(f['ptr'], 0), granted)] += 1
missing = sum((want - got).values())
dropped = json.load(open(name + '.json'))['processes'][0]['counters']['dropped_events']
if missing and not (dropped_ok and missing <= dropped):
    print('%d of %d completed allocations missing (dropped %d): %s' % (missing, sum(want.values()), dropped, list((want - got).items())[:5]))
    sys.exit(1)
print('ok %s: %d completed allocations in the dump%s' % (name, sum(want.values()), ' (%d dropped, counted)' % dropped if missing else ''))
PY
    [ "$(exit_of "$1.cmt")" = died ] || die "$1: exit recorded as $(exit_of "$1.cmt"), want died"
}
# kill -9 at random points while allocating in a tight loop
killed=0
for t in $(seq "$trials"); do
    n=kill$t
    rm -f "$n".cmt*
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/$n.cmt "$REL/rel_app" crash loop 1000000000 "$t" >"$n.out" 2>"$n.err" &
    pid=$!
    # wait for the first completed allocation, then a random 0..300 ms
    for _ in $(seq 200); do grep -q done "$n.out" 2>/dev/null && break; sleep 0.02; done
    sleep "0.$(printf %03d $((RANDOM % 300)))"
    kill -9 $pid
    wait $pid 2>/dev/null
    rc=$?
    [ $rc = 137 ] || { cat "$n.err"; die "$n: exit $rc, want 137 (SIGKILL)"; }
    if [ "$REL_SCALE" = stress ]; then completed "$n" >/dev/null; else completed "$n"; fi
    killed=$((killed + $(grep -c '^done' "$n.out")))
    rm -f "$n.txt"
done
echo "ok kill -9: $trials trials, $killed completed allocations all found"
# abort() and SIGSEGV: the same signal as without the tracker
for mode in abort segv; do
    "$REL/rel_app" crash $mode 300 7 >base.out 2>/dev/null; want=$?
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/$mode.cmt "$REL/rel_app" crash $mode 300 7 >"$mode.out" 2>"$mode.err"
    rc=$?
    [ $rc = "$want" ] && [ $rc -gt 128 ] || { cat "$mode.err"; die "$mode: exit $rc, untracked $want"; }
    grep -q ready "$mode.out" || die "$mode: did not run to the crash"
    completed "$mode"
    echo "ok $mode: exit $rc as untracked"
done
# memory exhaustion under ulimit -v, then SIGKILL (as the OOM killer would)
vm=$((600 * 1024))
( ulimit -v $vm; LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/oom.cmt exec "$REL/rel_app" crash oom 50 3 ) >oom.out 2>oom.err
rc=$?
[ $rc = 137 ] || { tail oom.err; die "oom: exit $rc, want 137"; }
grep -q exhausted oom.out || die "oom: memory never ran out"
completed oom --dropped-ok
echo "ok ulimit -v $((vm / 1024)) MiB: $(grep -c '^done' oom.out) allocations before exhaustion, $(warnings oom.err) warning(s)"
[ "$(warnings oom.err)" -le 1 ] || { cat oom.err; die "oom: more than one warning"; }
echo PASS
