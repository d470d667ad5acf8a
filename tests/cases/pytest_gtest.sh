#!/usr/bin/env bash
# C++ test runners (issue 27): a GoogleTest suite (tests/cxx/gtest_suite.cpp) linked with the
# listener examples/gtest_listener.cpp and -lcumemtrack_mark gets a range per test; `cumemtrack
# check --per-marker` fails naming exactly the leaking test (its stack down to the test body),
# --max-peak-bytes exactly the test that peaks above it, and `cumemtrack report` shows the per-test
# table. Without the tracer the binary runs as before (the forwarding library does nothing); a
# dump without tests fails --per-marker instead of passing it.
source "$CMT_ROOT/tests/cases/pytest_lib.sh.inc"
command -v g++ >/dev/null || { echo "g++ missing"; exit 77; }
[ -f /usr/include/gtest/gtest.h ] || { echo "GoogleTest missing (scripts/deps.sh installs libgtest-dev)"; exit 77; }
g++ -O0 -g -fno-omit-frame-pointer "$CMT_ROOT/tests/cxx/gtest_suite.cpp" "$CMT_ROOT/examples/gtest_listener.cpp" \
    -I"$CMT_ROOT/include" -lgtest -lgtest_main -lpthread -L"$CMT_BUILD" -lcumemtrack_mark -Wl,-rpath,"$CMT_BUILD" \
    -L"$FAKERT" -l:libcudart.so.13 -Wl,-rpath,"$FAKERT" -o suite || fail "the GoogleTest suite does not build"
line=$(grep -n "if (cudaMalloc(&p, n) != 0) return nullptr;" "$CMT_ROOT/tests/cxx/gtest_suite.cpp" | cut -d: -f1)
# untracked: the listener's calls do nothing
./suite >plain.out 2>&1 || { cat plain.out; fail "the suite fails without the tracer"; }
grep -q "PASSED.* 5 tests" plain.out || { cat plain.out; fail "5 tests"; }
"$CMT_BIN" run -q -o "$CMT_TMP/out/%p.cmt" -- ./suite >run.out 2>&1 || { cat run.out; fail "the suite fails under the tracer"; }
[ -s run.out ] && ! grep -q "^cumemtrack: run:" run.out || { cat run.out; fail "run --quiet still summarised"; }
"$CMT_BIN" check --per-marker "$CMT_TMP/out" 2>check.txt && { cat check.txt; fail "check --per-marker passed a leak"; }
grep "check failed: test" check.txt | sed 's/.*check failed: test //; s/ .*//' >failed
echo Leaky.KeepsABuffer | diff - failed || { cat check.txt; fail "not exactly Leaky.KeepsABuffer"; }
grep -q "check failed: test Leaky.KeepsABuffer leaked 1.00 MiB (live at its end), budget 0 B" check.txt || { cat check.txt; fail "message"; }
grep -q "kept_buffer(unsigned long) .*gtest_suite.cpp:$line" check.txt || { cat check.txt; fail "leaking line $line"; }
grep -q "Leaky_KeepsABuffer_Test::TestBody()" check.txt || { cat check.txt; fail "the test body is not on the stack"; }
grep -q "^per test: 5 tests in 1 process" check.txt || { cat check.txt; fail "check prints the table"; }
"$CMT_BIN" check --per-marker --max-leak-bytes 1M --max-peak-bytes 32M "$CMT_TMP/out" 2>check.txt && fail "peak gate passed"
grep "check failed: test" check.txt | sed 's/.*check failed: test //; s/ .*//' >failed
echo Peak.Big | diff - failed || { cat check.txt; fail "not exactly Peak.Big"; }
"$CMT_BIN" check --per-marker --max-leak-bytes 1M --max-peak-bytes 64M "$CMT_TMP/out" 2>check.txt ||
    { cat check.txt; fail "within the limits but failed"; }
grep -q "check passed: 5 tests in 1 process within their limits" check.txt || { cat check.txt; fail "pass message"; }
"$CMT_BIN" report "$CMT_TMP/out" >report.txt || fail report
sed -n '/^per test:/,/^$/p' report.txt >table
grep -qE '^ +1.00 MiB +0 B +1.00 MiB  Leaky.KeepsABuffer \(pid' table || { cat table; fail "leak row"; }
grep -qE '^ +0 B +0 B +8.00 MiB  WithFixture.Clean ' table || { cat table; fail "SetUp/TearDown not inside the range"; }
grep -qE '^ +0 B +0 B +0 B  Clean.FreesTheEarlierLeak ' table || { cat table; fail "a later free changed a test"; }
# a ctest-like run: each test a process of its own (--gtest_filter), the table merges them
"$CMT_BIN" run -q -o "$CMT_TMP/ct/%p.cmt" -- sh -c './suite --gtest_filter=Leaky.* && ./suite --gtest_filter=Peak.*:Clean.Frees' \
    >ct.out 2>&1 || { cat ct.out; fail "ctest-like run failed"; }
"$CMT_BIN" check --per-marker "$CMT_TMP/ct" 2>check.txt && fail "ctest-like: the leak passed"
grep -q "^per test: 3 tests in 2 processes" check.txt || { cat check.txt; fail "ctest-like: not merged"; }
grep "check failed: test" check.txt | sed 's/.*check failed: test //; s/ .*//' >failed
echo Leaky.KeepsABuffer | diff - failed || { cat check.txt; fail "ctest-like: not exactly Leaky.KeepsABuffer"; }
# usage: --max-peak-bytes needs --per-marker; a dump without tests cannot pass --per-marker
"$CMT_BIN" check --max-peak-bytes 1M "$CMT_TMP/out" 2>err.txt; [ $? = 2 ] || fail "--max-peak-bytes without --per-marker"
"$CMT_BIN" check --per-marker --max-peak-bytes 12XB "$CMT_TMP/out" 2>err.txt; [ $? = 2 ] || fail "bad size not a usage error"
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$CMT_TMP/notests.cmt "$CMT_TESTBIN/progs/rt_basic.shared" >/dev/null 2>&1
[ -f notests.cmt ] || fail "no dump from rt_basic"
"$CMT_BIN" check --per-marker --allow-anomalies notests.cmt 2>err.txt && fail "--per-marker passed a dump without tests"
grep -q "hold no test" err.txt || { cat err.txt; fail "no-test message"; }
echo PASS
