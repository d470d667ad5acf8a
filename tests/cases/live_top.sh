#!/usr/bin/env bash
# cmt-test: long
# cumemtrack top against the dump of a RUNNING program (tests/progs/drv_hold on the fake driver,
# traced): --once text and --json --once (validated against docs/top-schema.json) at each phase the
# program announces, values checked against what it has done so far; the driver's view through the
# fake NVML (tests/fakenvml: the driver's figure, untracked bytes, a process not tracked at all) and
# "n/a" without NVML; exited and died processes; a directory watched for a dump that appears later.
set -u
. "$(dirname "$0")/e2e_lib.sh.inc"
CMT_BIN=${CMT_BIN:-$CMT_ROOT/build/cumemtrack}
H=$P/drv_hold
NVML_DIR=$CMT_TESTBIN/fakenvml
for f in "$H" "$CMT_LIB" "$CMT_BIN" "$NVML_DIR/libnvidia-ml.so.1"; do [ -e "$f" ] || die "missing $f (make test-programs)"; done
N=12 SZ=1048576
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; die "timeout waiting for $1"; }
json() { # json OUT ARGS...: top --json --once, schema-checked
    local out=$1; shift
    "$CMT_BIN" top --json --once "$@" >"$out" 2>top.err || { cat top.err; die "top --json --once $*"; }
    python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/top-schema.json" "$out" || die "$out: schema"
}
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

mkdir -p job st
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/job/hold.%p.cmt "$H" $N $SZ "$PWD/st" >hold.out 2>hold.err &
pid=$!; pids+=($pid)
wait_for st/phase1
read -r ppid live <st/phase1
[ "$ppid" = "$pid" ] && [ "$live" = $((N * SZ)) ] || die "phase1: $(cat st/phase1)"

# phase 1: N blocks live, the process running
LD_LIBRARY_PATH=/nonexistent "$CMT_BIN" top --once job >t1.txt 2>t1.err || { cat t1.err; die "top --once"; }
cat t1.txt
grep -Eq "^  [^ ]+ +$pid +- +12\.0 MiB +12\.0 MiB .* n/a +n/a +running$" t1.txt || die "process line (phase 1)"
grep -q "live 12.0 MiB of 16.0 GiB, peak 12.0 MiB, driver used n/a of n/a" t1.txt || die "GPU line (phase 1)"
grep -q "ordinals $pid:0" t1.txt || die "ordinals"
grep -A1 "12.0 MiB live" t1.txt | grep -q "first_blocks .*drv_hold.c" || die "top stack by live bytes"
LD_LIBRARY_PATH=/nonexistent json j1.json job
[ "$(q j1.json 'd["processes"][0]["live_bytes"]')" = $((N * SZ)) ] || die "JSON live (phase 1)"
[ "$(q j1.json 'd["processes"][0]["state"]')" = running ] || die "JSON state (phase 1)"
[ "$(q j1.json 'd["gpus"][0]["live_bytes"]')" = $((N * SZ)) ] || die "JSON GPU live (phase 1)"
[ "$(q j1.json 'd["processes"][0]["driver_bytes"]')" = None ] || die "JSON driver without NVML"
[ "$(q j1.json 'd["driver_view"]')" = False ] || die "driver_view without NVML"

# the driver's view (fake NVML): 5 MiB more than tracked for our pid, and a process not tracked
uuid=$(q j1.json 'd["gpus"][0]["uuid"]')
printf '%s %s %s\n%s 4242 3000000\n' "$uuid" "$pid" $((N * SZ + 5 * SZ)) "$uuid" >nvml.state
FAKENVML_STATE=$PWD/nvml.state LD_LIBRARY_PATH=$NVML_DIR:$LD_LIBRARY_PATH json j2.json job
[ "$(q j2.json 'd["driver_view"]')" = True ] || die "driver_view with the fake NVML"
[ "$(q j2.json 'd["processes"][0]["driver_bytes"]')" = $((N * SZ + 5 * SZ)) ] || die "driver bytes"
[ "$(q j2.json 'd["processes"][0]["untracked_bytes"]')" = $((5 * SZ)) ] || die "untracked bytes"
[ "$(q j2.json 'd["gpus"][0]["driver_used_bytes"]')" = $((N * SZ + 5 * SZ + 3000000)) ] || die "driver used"
[ "$(q j2.json '[p["pid"] for p in d["gpus"][0]["untracked_processes"]]')" = "[4242]" ] || die "untracked process"
FAKENVML_STATE=$PWD/nvml.state LD_LIBRARY_PATH=$NVML_DIR:$LD_LIBRARY_PATH "$CMT_BIN" top --once job >t2.txt
grep -Eq " $pid .* 17\.0 MiB +5\.00 MiB +running$" t2.txt || { cat t2.txt; die "driver/untracked columns"; }
grep -q "untracked process 4242: 2.86 MiB (driver)" t2.txt || { cat t2.txt; die "untracked process line"; }

# phase 2: 2N live, the growing stack on top
touch st/go1; wait_for st/phase2
json j3.json job
[ "$(q j3.json 'd["processes"][0]["live_bytes"]')" = $((2 * N * SZ)) ] || die "JSON live (phase 2)"
[ "$(q j3.json '[f["function"] for f in d["top_live"][0]["frames"]][0]')" = first_blocks ] \
    || [ "$(q j3.json '[f["function"] for f in d["top_live"][0]["frames"]][0]')" = growing_blocks ] || die "phase 2 stacks"
[ "$(q j3.json 'sorted(r["live_bytes"] for r in d["top_live"])')" = "[$((N * SZ)), $((N * SZ))]" ] || die "two stacks of N blocks"
# phase 3: the first N freed; the peak stays
touch st/go2; wait_for st/phase3
json j4.json job
[ "$(q j4.json 'd["processes"][0]["live_bytes"]')" = $((N * SZ)) ] || die "JSON live (phase 3)"
[ "$(q j4.json 'd["processes"][0]["peak_bytes"]')" = $((2 * N * SZ)) ] || die "JSON peak (phase 3)"
[ "$(q j4.json 'd["top_live"][0]["frames"][0]["function"]')" = growing_blocks ] || die "phase 3 top stack"
touch st/go3; wait "$pid" || die "drv_hold failed: $(cat hold.err)"
json j5.json job
[ "$(q j5.json 'd["processes"][0]["state"]')" = exited ] || die "state after exit"
[ "$(q j5.json 'd["processes"][0]["live_bytes"]')" = 0 ] || die "live after exit"

# a process killed while it holds memory: died; a dump appearing later in the watched directory
mkdir st2 job2
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/job2/k.%p.cmt "$H" 3 $SZ "$PWD/st2" >k.out 2>k.err &
kp=$!; pids+=($kp)
wait_for st2/phase1
json j6.json job job2
[ "$(q j6.json 'len(d["processes"])')" = 2 ] || die "the second job's dump"
kill -9 "$kp"; wait "$kp" 2>/dev/null
json j7.json job2
[ "$(q j7.json 'd["processes"][0]["state"]')" = died ] || die "state after kill -9"
[ "$(q j7.json 'd["processes"][0]["live_bytes"]')" = $((3 * SZ)) ] || die "live of the killed process"
# usage
"$CMT_BIN" top --json job >/dev/null 2>&1; [ $? = 2 ] || die "--json without --once: usage"
"$CMT_BIN" top -n 0 job >/dev/null 2>&1; [ $? = 2 ] || die "-n 0: usage"
"$CMT_BIN" top --once /nonexistent >/dev/null 2>&1; [ $? = 3 ] || die "missing input: 3"
echo PASS
