#!/usr/bin/env bash
# run_fuzz.sh OUT SECONDS JOBS — `make fuzz`: seeds OUT/seeds with the golden dumps and real dumps
# of the test programs (tracker over the fake driver), then runs OUT/fuzz_report for SECONDS
# (libFuzzer -max_total_time, -rss_limit_mb=2048, -timeout=10) over OUT/corpus. Crashing inputs go
# to OUT/crashes/; copy each to tests/fuzz/regress/NAME.input (.cmt is git-ignored) (rel_fuzz_regress runs them in make test).
# The last lines printed are the figures for docs/reliability.md.
set -u
out=$(mkdir -p "$1" && cd "$1" && pwd) secs=$2 jobs=${3:-1}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/seeds" "$out/corpus" "$out/crashes"
cp "$root"/tests/golden/*.dump "$out/seeds/" 2>/dev/null
cp "$root"/tests/fuzz/regress/* "$out/seeds/" 2>/dev/null
export LD_LIBRARY_PATH=$root/build/tests/fakecuda
tb=$root/build/tests
for p in rt_basic.shared rt_threads.shared rt_capture.shared drv_vmm drv_teardown; do
    [ -x "$tb/progs/$p" ] || continue
    (cd "$out/seeds" && rm -f "real_$p.cmt" && LD_PRELOAD=$root/build/libcumemtrack.so \
        CUMEMTRACK_DEPTH=4 CUMEMTRACK_OUTPUT="$out/seeds/real_$p.cmt" "$tb/progs/$p" >/dev/null 2>&1)
done
(cd "$out/seeds" && rm -f real_stress.cmt && LD_PRELOAD=$root/build/libcumemtrack.so CUMEMTRACK_DEPTH=2 \
    CUMEMTRACK_OUTPUT="$out/seeds/real_stress.cmt" "$tb/rel/rel_app" stress 4 300 1 >/dev/null 2>&1)
echo "fuzz: $(ls "$out/seeds" | wc -l) seeds, $secs s, $jobs job(s)"
start=$(date +%s)
cd "$out"
args=(-max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=262144
      -artifact_prefix="$out/crashes/" -print_final_stats=1)
if [ "$jobs" -gt 1 ]; then args+=(-jobs="$jobs" -workers="$jobs"); fi
./fuzz_report "${args[@]}" corpus seeds 2>&1 | tee fuzz.log | grep -E "^#[0-9]+ +(INITED|DONE)|stat::|ERROR|SUMMARY" 
rc=${PIPESTATUS[0]}
end=$(date +%s)
crashes=$(ls crashes | wc -l)
execs=$(grep -h "stat::number_of_executed_units" fuzz.log fuzz-*.log 2>/dev/null | awk '{s += $2} END {print s + 0}')
echo "fuzz figures: executions $execs, seconds $((end - start)), corpus $(ls corpus | wc -l), crashes $crashes (exit $rc)"
[ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]
