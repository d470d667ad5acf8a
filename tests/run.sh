#!/usr/bin/env bash
# Runs every test case in tests/cases/ (executable *.sh; exit 0 pass, 77 skip, else fail), each
# under a time limit, with a scratch directory in $CMT_TMP. Prints "N passed, N failed, N skipped"
# last. Usage: tests/run.sh [NAME-PATTERN]
#
# Cases run CMT_TEST_JOBS at a time (default: twice the CPUs, at least 2; most cases wait on
# child processes, pipes and sleeps more than they compute). A case whose first 12 lines hold
# "cmt-test: serial" (timing windows, a whole-machine load) runs alone, after the others; one
# whose first lines hold "cmt-test: long" (tens of seconds) starts before the rest.
# Each result line is printed when its case ends; a failing case's log tail follows it.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export CMT_ROOT=$root CMT_BUILD=$root/build
export CMT_LIB=$root/build/libcumemtrack.so CMT_BIN=$root/build/cumemtrack
export CMT_TESTBIN=$root/build/tests
export CMT_FAKE_LIBDIR=$root/build/tests/fakecuda
pattern=${1:-}
jobs=${CMT_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) * 2))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=2
logdir=$root/build/test-logs
resdir=$(mktemp -d "${TMPDIR:-/tmp}/cmt-results.XXXXXX")
trap 'rm -rf "$resdir"' EXIT
mkdir -p "$logdir"

# run_case NAME FILE: runs one case, writes "RC SECONDS" to $resdir/NAME
run_case() {
    local name=$1 t=$2 tmp start rc
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmt-$name.XXXXXX")
    start=$EPOCHREALTIME
    ( cd "$tmp" && CMT_TMP=$tmp timeout -k 10 "${CMT_TEST_TIMEOUT:-300}" bash "$t" ) >"$logdir/$name.log" 2>&1
    rc=$?
    case $rc in 0 | 77) rm -rf "$tmp" ;; esac
    awk -v r="$rc" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d %.1f\n", r, b - a }' \
        >"$resdir/$name.tmp"
    mv "$resdir/$name.tmp" "$resdir/$name"
}

pass=0 fail=0 skip=0 failed=()
# report NAME: prints the finished case's line and counts it
report() {
    local name=$1 rc secs
    read -r rc secs <"$resdir/$name"
    case $rc in
        0) pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
        77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$logdir/$name.log")" ;;
        *) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc, ${secs}s; log: build/test-logs/$name.log)"
           tail -n 15 "$logdir/$name.log" | sed 's/^/    | /' ;;
    esac
}

long=() parallel=() serial=()
for t in "$root"/tests/cases/*.sh; do
    name=$(basename "$t" .sh)
    [ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
    tags=$(head -n 12 "$t" | grep -o 'cmt-test: [a-z]*')
    case $tags in
        *serial*) serial+=("$t") ;;
        *long*) long+=("$t") ;;
        *) parallel+=("$t") ;;
    esac
done
parallel=("${long[@]}" "${parallel[@]}")

declare -A running=()
# reap: reports every running case that has finished
reap() {
    local name
    for name in "${!running[@]}"; do
        # a case killed before it could write its result (the runner's own subshell) is a failure
        [ -f "$resdir/$name" ] || kill -0 "${running[$name]}" 2>/dev/null || echo "125 0.0" >"$resdir/$name"
        [ -f "$resdir/$name" ] || continue
        wait "${running[$name]}" 2>/dev/null
        unset "running[$name]"
        report "$name"
    done
}
for t in "${parallel[@]}"; do
    while [ "${#running[@]}" -ge "$jobs" ]; do
        wait -n 2>/dev/null
        reap
    done
    name=$(basename "$t" .sh)
    run_case "$name" "$t" &
    running[$name]=$!
done
while [ "${#running[@]}" -gt 0 ]; do
    wait -n 2>/dev/null
    reap
done
for t in "${serial[@]}"; do
    name=$(basename "$t" .sh)
    run_case "$name" "$t"
    report "$name"
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
