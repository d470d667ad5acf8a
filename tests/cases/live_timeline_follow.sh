#!/usr/bin/env bash
# cumemtrack timeline --follow against a RUNNING traced program (tests/progs/drv_hold): per-event CSV
# rows appear while the program still runs (before it is let go on), the --interval rows (one per GPU
# per interval, nvidia-smi's CSV shape) show its live bytes at each phase, and both end by themselves
# with exit 0 once the program has exited, the last rows at 0 live bytes.
set -u
. "$(dirname "$0")/e2e_lib.sh.inc"
CMT_BIN=${CMT_BIN:-$CMT_ROOT/build/cumemtrack}
H=$P/drv_hold
[ -x "$H" ] || die "missing $H (make test-programs)"
N=5 SZ=1048576
trap 'kill -9 $hp $t1 $t2 2>/dev/null' EXIT
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; die "timeout waiting for $1"; }
# rows_until FILE CMD: waits until the shell test CMD (on FILE's content) holds
# count_ev EVENT: rows of rows.csv whose event column (the 9th) is EVENT
count_ev() { awk -F, -v e="$1" '$9 == e' rows.csv | wc -l; }
until_ok() { for _ in $(seq 600); do eval "$1" && return 0; sleep 0.05; done; cat rows.csv iv.csv; die "never: $1"; }
mkdir job st
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/job/h.%p.cmt "$H" $N $SZ "$PWD/st" >h.out 2>h.err &
hp=$!
wait_for st/phase1
"$CMT_BIN" timeline --follow --csv job >rows.csv 2>rows.err &
t1=$!
"$CMT_BIN" timeline --follow --interval 0.1 job >iv.csv 2>iv.err &
t2=$!
# while the program waits in phase 1: its N allocations are there, one row each
until_ok '[ "$(count_ev alloc)" = $N ]'
tail -n 1 rows.csv | grep -q ",$hp,[0-9]*,0,GPU-[0-9a-f-]*,$((N * SZ)),alloc," || die "phase 1 rows"
until_ok 'tail -n 1 iv.csv | grep -q ", $((N * SZ)), [0-9]*, 1$"'
head -n 1 iv.csv | grep -qx "timestamp, uuid, pci.bus_id, memory.used \[MiB\], memory.total \[MiB\], live_bytes, total_bytes, processes" \
    || die "interval header"
grep -Eq "^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9:]{8}\.[0-9]{3}, GPU-[0-9a-f-]+, 0000:10:00\.0, 5 MiB, 16384 MiB, $((N * SZ)), 17179869184, 1$" iv.csv \
    || { cat iv.csv; die "interval row shape"; }
kill -0 $t1 && kill -0 $t2 || die "a follower ended while the program runs"
touch st/go1; wait_for st/phase2
until_ok '[ "$(count_ev alloc)" = $((2 * N)) ]'
until_ok 'tail -n 1 iv.csv | grep -q ", $((2 * N * SZ)), [0-9]*, 1$"'
touch st/go2 st/go3
wait $hp || die "drv_hold failed"
wait $t1 || { cat rows.err; die "timeline --follow did not end with 0"; }
wait $t2 || { cat iv.err; die "timeline --follow --interval did not end with 0"; }
[ "$(count_ev free)" = $((2 * N)) ] || { cat rows.csv; die "free rows"; }
tail -n 1 rows.csv | grep -q ",0,free," || die "last row"
tail -n 1 iv.csv | grep -q ", 0 MiB, 16384 MiB, 0, 17179869184, 1$" || { cat iv.csv; die "last interval row"; }
# the rows are those of timeline --csv on the finished dump (time, device, live, event)
"$CMT_BIN" timeline --csv job >after.csv || die "timeline --csv"
diff <(cut -d, -f1,4- after.csv) <(cut -d, -f1,4- rows.csv) || die "--follow rows differ from the finished dump's"
"$CMT_BIN" timeline --interval 1 job >/dev/null 2>&1; [ $? = 2 ] || die "--interval without --follow: usage"
"$CMT_BIN" timeline --follow --perfetto job >/dev/null 2>&1; [ $? = 2 ] || die "--follow --perfetto: usage"
echo PASS
