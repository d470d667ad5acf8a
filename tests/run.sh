#!/usr/bin/env bash
# Runs every test case in tests/cases/ (executable *.sh; exit 0 pass, 77 skip, else fail), each
# under a time limit, with a scratch directory in $CMT_TMP. Prints "N passed, N failed, N skipped"
# last. Usage: tests/run.sh [NAME-PATTERN]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export CMT_ROOT=$root CMT_BUILD=$root/build
export CMT_LIB=$root/build/libcumemtrack.so CMT_BIN=$root/build/cumemtrack
export CMT_TESTBIN=$root/build/tests
export CMT_FAKE_LIBDIR=$root/build/tests/fakecuda
pattern=${1:-}
pass=0 fail=0 skip=0 failed=()
logdir=$root/build/test-logs
mkdir -p "$logdir"
for t in "$root"/tests/cases/*.sh; do
    name=$(basename "$t" .sh)
    [ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmt-$name.XXXXXX")
    start=$EPOCHREALTIME
    ( cd "$tmp" && CMT_TMP=$tmp timeout -k 10 "${CMT_TEST_TIMEOUT:-300}" bash "$t" ) >"$logdir/$name.log" 2>&1
    rc=$?
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    case $rc in
        0) pass=$((pass + 1)); echo "PASS $name (${secs}s)"; rm -rf "$tmp" ;;
        77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$logdir/$name.log")"; rm -rf "$tmp" ;;
        *) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc, ${secs}s; log: build/test-logs/$name.log)"
           tail -n 15 "$logdir/$name.log" | sed 's/^/    | /' ;;
    esac
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
