# cmt-test: long
# Sanitizers. make test (reduced): the ASan+UBSan analyzer (build/asan/cumemtrack) over every
# golden dump and a sample of bit-flipped ones gives the same output and exit code as the normal
# build and no sanitizer report; ASan+UBSan test programs (rt_basic, rel_app stress) run under the
# tracker with libasan first in LD_PRELOAD and their dumps match the driver's ground truth;
# valgrind (--error-exitcode) finds no error in the analyzer on the golden dumps.
# make test-asan (REL_ASAN_FULL=1): also the whole e2e suite (e2e_programs, e2e_process) with every
# test program and the analyzer built with ASan+UBSan.
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
ABIN=$CMT_BUILD/asan/cumemtrack
[ -x "$ABIN" ] || { echo "no sanitizer build (build/asan; the compiler lacks -fsanitize=address?)"; exit 77; }
libasan=$(${CC:-cc} -print-file-name=libasan.so)
[ -f "$libasan" ] || { echo "libasan.so not found"; exit 77; }
export ASAN_OPTIONS=abort_on_error=0:exitcode=86:detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
g=$CMT_ROOT/tests/golden
n=0
MKDUMP=$CMT_BUILD/tests/tools/cmt_mkdump
for s in "$g"/*.script; do "$MKDUMP" "$s" "$(basename "$s" .script).cmt" || die "mkdump $s"; done
# a few bit-flipped copies too
python3 - <<'PY' || die "could not make the bit-flipped dumps"
import glob, random
random.seed(99)
for src in sorted(glob.glob('*.cmt')):
    d = open(src, 'rb').read()
    for k in range(4):
        b = bytearray(d)
        for _ in range(3):
            i = random.randrange(4096, len(b)) if len(b) > 4096 else random.randrange(len(b))
            b[i] ^= 1 << random.randrange(8)
        open('%s.flip%d' % (src, k), 'wb').write(bytes(b))
PY
# and the fuzzing regression inputs (tests/fuzz/regress/)
nreg=0
for f in "$CMT_ROOT"/tests/fuzz/regress/*; do [ -f "$f" ] && cp "$f" "reg_$(basename "$f")" && nreg=$((nreg + 1)); done
[ "$nreg" -gt 0 ] || die "no input in tests/fuzz/regress/"
inputs=(*.cmt *.flip* reg_*)
for f in "${inputs[@]}"; do [ -f "$f" ] || die "no input matches $f"; done
for f in "${inputs[@]}"; do
    for sub in "report --no-symbols" "report --json --no-symbols" "dump" "dump --raw" "check --no-symbols"; do
        "$CMT_BIN" $sub "$f" >want.out 2>/dev/null; want=$?
        "$ABIN" $sub "$f" >got.out 2>got.err; got=$?
        [ $got = 86 ] || grep -q "Sanitizer\|runtime error" got.err && { cat got.err; die "sanitizer report: $sub $f"; }
        [ $got = "$want" ] || { cat got.err; die "$sub $f: exit $got, normal build $want"; }
        cmp -s want.out got.out || die "$sub $f: output differs from the normal build"
        n=$((n + 1))
    done
done
[ "$n" -eq $((${#inputs[@]} * 5)) ] || die "$n sanitizer runs, expected $((${#inputs[@]} * 5))"
echo "ok ASan+UBSan analyzer: $n runs over golden, bit-flipped and $nreg fuzzing regression dumps, same results, no report"
# ASan programs under the tracker (libasan first)
AP=$CMT_BUILD/asan/tests
rm -f ab.cmt ab.gt
FAKECUDA_GROUND_TRUTH=$PWD/ab.gt LD_PRELOAD=$libasan:$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/ab.cmt \
    "$AP/progs/rt_basic.shared" >ab.out 2>ab.err || { cat ab.err; die "ASan rt_basic under the tracker: exit $?"; }
check ab
traced as env LD_PRELOAD=$libasan:$CMT_LIB "$AP/rel/rel_app" stress 4 "$(pick 2000 100000)" 5 \
    || { tail ab.err as.err; die "ASan rel_app under the tracker: exit $?"; }
check_stream as
totals as
grep -q "Sanitizer\|runtime error" ab.err as.err && die "sanitizer report from a program under the tracker"
echo "ok ASan+UBSan programs under the tracker (libasan first in LD_PRELOAD)"
# valgrind over the golden dumps
if command -v valgrind >/dev/null; then
    for f in "$g"/*.dump; do
        for sub in "report --json --no-symbols" "dump"; do
            valgrind -q --error-exitcode=9 "$CMT_BIN" $sub "$f" >/dev/null 2>vg.err
            [ $? = 9 ] && { cat vg.err; die "valgrind: $sub $f"; }
        done
    done
    echo "ok valgrind: no error on $(ls "$g"/*.dump | wc -l) golden dumps"
fi
if [ -n "${REL_ASAN_FULL:-}" ]; then
    for t in e2e_programs e2e_process; do
        mkdir -p "full-$t" && ( cd "full-$t" && CMT_BIN=$ABIN CMT_TESTBIN=$AP CMT_LIB=$libasan:$CMT_LIB \
            bash "$CMT_ROOT/tests/cases/$t.sh" ) >"full-$t.log" 2>&1 || { tail -20 "full-$t.log"; die "ASan $t"; }
        echo "ok ASan $t: $(grep -c '^ok' "full-$t.log") checks"
    done
fi
echo PASS
