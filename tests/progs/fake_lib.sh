# fake_lib.sh — helpers sourced by tests/cases/fake_*.sh (the checks of the fake driver and
# runtime double, run WITHOUT the tracker).
set -u
P=$CMT_TESTBIN/progs
export LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset FAKECUDA_DEVICES FAKECUDA_MEM_MB FAKECUDA_FAST FAKECUDA_GROUND_TRUTH FAKECUDA_GROUND_TRUTH_SYNC \
      FAKECUDA_TRACE CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER LD_PRELOAD

die() { echo "FAIL: $*"; exit 1; }

need() {
    for f in "$@"; do
        [ -e "$f" ] || die "missing $f (run make test-programs)"
    done
}

# expect-leak keys (KIND ORDINAL BYTES), sorted, from a program's stdout
expect_keys() { awk '$1 == "expect-leak" { print $2, $3, $4 }' "$1" | sort; }
# leak keys (KIND ORDINAL BYTES) from a ground-truth file, optionally only WHEN=$2
gt_keys() { awk -v w="${2:-}" '$1 == "leak" && (w == "" || $7 == w) { print $2, $4, $6 }' "$1" | sort; }
gt_value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
expect_alloc() { awk '$1 == "expect-alloc" { s += $2 } END { print s + 0 }' "$1"; }

# compare_gt OUT GT NAME: the ground truth matches the program's expect lines exactly
compare_gt() {
    local out=$1 gt=$2 name=$3
    [ -s "$gt" ] || die "$name: no ground truth file"
    head -n 1 "$gt" | grep -qx '# fakecuda ground truth v1' || die "$name: bad header"
    if ! diff <(expect_keys "$out") <(gt_keys "$gt") >"$name.diff"; then
        cat "$name.diff"; die "$name: leaks differ from expect-leak lines (< expected, > ground truth)"
    fi
    local ea ga
    ea=$(expect_alloc "$out"); ga=$(gt_value "$gt" alloc_calls)
    [ "$ea" -gt 0 ] || die "$name: the program announced no allocation (expect-alloc): nothing to compare"
    [ "$ea" = "$ga" ] || die "$name: expect-alloc $ea but alloc_calls $ga"
    echo "ok $name ($(expect_keys "$out" | wc -l) leaks, $ea allocations)"
}

# run_prog NAME BINARY [ARGS...]: runs with a ground truth file, must exit 0, then compares
run_prog() {
    local name=$1; shift
    rm -f "$name.gt"
    FAKECUDA_GROUND_TRUTH=$PWD/$name.gt "$@" >"$name.out" 2>"$name.err" || {
        cat "$name.err"; die "$name exited $?"; }
    compare_gt "$name.out" "$name.gt" "$name"
}
