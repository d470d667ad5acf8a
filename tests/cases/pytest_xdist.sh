#!/usr/bin/env bash
# pytest-xdist with --cumemtrack (issue 27): each worker is a process with its own dump, judges
# its own tests (the failures reach the controller in pytest's terms) and hands its dump to the
# controller, whose per-test table merges them; the kept dumps hold one process per worker.
source "$CMT_ROOT/tests/cases/pytest_lib.sh.inc"
need_pytest
"$PY" -c 'import xdist' 2>/dev/null || { echo "no pytest-xdist for $PY (scripts/deps.sh installs python3-pytest-xdist)"; exit 77; }
build_torch_double
line=$(leak_line)
pt xd "$SUITE" -n 2 -rfE --cumemtrack --cumemtrack-dir="$CMT_TMP/kept"
[ "$rc" = 1 ] || { cat xd.out; fail "xdist: exit $rc"; }
grep -q "8 passed, 2 errors in" xd.out || { cat xd.out; fail "xdist summary"; }
grep '^ERROR ' xd.out | sed 's/ - .*//; s/.*:://' | sort >errored
printf 'test_leaks\ntest_over_memory\n' | diff - errored || { cat xd.out; fail "xdist: not exactly the two tests"; }
grep -q "test_leaks .*tests/pytest_suite/test_gpu.py:$line\$" xd.out || { cat xd.out; fail "xdist: leaking line"; }
sed -n '/= cumemtrack: GPU memory per test =/,/= short test summary info =/p' xd.out >table
grep -q "^8 tests in 2 processes" table || { cat xd.out; fail "xdist: the table does not merge the 2 workers"; }
grep -E '\(pid [0-9]+\)$' table | sed -E 's/.*\(pid ([0-9]+)\)$/\1/' | sort -u >pids
[ "$(wc -l <pids)" = 2 ] || { cat table; fail "xdist: rows from $(wc -l <pids) processes"; }
grep -qE '^ +1.00 MiB +0 B +3.00 MiB  test_gpu.py::test_leaks ' table || { cat table; fail "xdist: leak row"; }
grep -qE '^ +0 B +4.00 MiB +4.00 MiB  test_gpu.py::test_cached ' table || { cat table; fail "xdist: cached row"; }
[ "$(ls "$CMT_TMP"/kept/pytest.*.cmt | wc -l)" -ge 2 ] || fail "xdist: fewer than 2 dumps kept"
"$CMT_BIN" report --json "$CMT_TMP/kept" >r.json || fail "report --json"
"$PY" - r.json <<'PY' || fail "xdist: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
names = [r["name"] for r in d["tests"]]
assert len(names) == 8 and len(set(names)) == 8, names
assert len({r["pid"] for r in d["tests"]}) == 2, d["tests"]
assert [r["name"] for r in d["tests"] if r["leaked_bytes"]] == ["test_gpu.py::test_leaks"]
PY
# a worker that dies inside a test (os._exit) hands no dump over: the table still has its tests
# (found through the run's manifest), the one it died in "unfinished" with what it had allocated
mkdir -p crash
cat >crash/test_crash.py <<PY
import os
import sys

sys.path.insert(0, "$SUITE")
import gpu  # noqa: E402

kept = []


def test_a_dies():
    kept.append(gpu.malloc(5 * gpu.MIB))
    sys.stdout.flush()
    os._exit(3)


def test_b_fine():
    gpu.free(gpu.malloc(gpu.MIB))
PY
pt crash crash -n 1 --cumemtrack -p no:randomly
[ "$rc" = 1 ] || { cat crash.out; fail "crashed worker: exit $rc"; }
grep -qE "crashed while running .*test_a_dies" crash.out || { cat crash.out; fail "xdist did not see the crash"; }
grep -qE '^ +5.00 MiB +0 B +5.00 MiB  crash/test_crash.py::test_a_dies \(pid [0-9]+, unfinished\)' crash.out ||
    grep -qE '^ +5.00 MiB +0 B +5.00 MiB  test_crash.py::test_a_dies \(pid [0-9]+, unfinished\)' crash.out ||
    { cat crash.out; fail "the crashed worker's test is not in the table"; }
echo "ok a crashed worker's tests are in the table"
echo PASS
