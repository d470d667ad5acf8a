#!/usr/bin/env bash
# The pytest plugin (issue 27): `pytest -p cumemtrack.pytest_plugin --cumemtrack` re-executes
# itself under `cumemtrack run`, marks every test, fails exactly the tests over their
# cuda_limit_leaks / cuda_limit_memory limits (in pytest's terms: an error at teardown, the leaking
# Python line in the message) and prints the per-test table (caching-allocator holdings told
# apart); --cumemtrack-dir keeps the dumps, and `cumemtrack report` / `check --per-marker` show the
# same per-test view. Everything else pytest says and returns is unchanged: exit 0 clean, 1 a
# failing plain test, 4 usage error (a bad size too), 5 no tests.
source "$CMT_ROOT/tests/cases/pytest_lib.sh.inc"
need_pytest
build_torch_double
line=$(leak_line)
[ -n "$line" ] || fail "no LEAK-LINE in the suite"

# ---- the suite: two tests over their limits, named in pytest's own terms
pt full "$SUITE" -rfE --cumemtrack --cumemtrack-dir="$CMT_TMP/kept"
[ "$rc" = 1 ] || { cat full.out; fail "a gate failed but pytest exited $rc"; }
grep -q "== 8 passed, 2 errors in" full.out || { cat full.out; fail "summary line"; }
grep '^ERROR ' full.out | sed 's/ - .*//; s/.*:://' | sort >errored
printf 'test_leaks\ntest_over_memory\n' >want
diff want errored || { cat full.out; fail "not exactly test_leaks and test_over_memory failed"; }
sed -n '/ERROR at teardown of test_leaks/,/ERROR at teardown of test_over_memory/p' full.out >leak_msg
grep -q "cumemtrack: 1.00 MiB of GPU memory leaked, limit 0 B (@pytest.mark.cuda_limit_leaks('0 B'))" leak_msg ||
    { cat full.out; fail "leak message"; }
grep -q "test_leaks .*tests/pytest_suite/test_gpu.py:$line\$" leak_msg || { cat full.out; fail "leaking line $line not named"; }
grep -q "_pytest/" leak_msg && { cat leak_msg; fail "pytest's own frames in the message"; }
grep -q "GPU memory peaked at 32.0 MiB, limit 16.0 MiB (@pytest.mark.cuda_limit_memory('16 MiB'))" full.out ||
    { cat full.out; fail "peak message"; }
grep -q "^ERROR .*::test_leaks - cumemtrack: 1.00 MiB" full.out || grep -q "^ERROR .*::test_leaks - cu" full.out ||
    { cat full.out; fail "short summary lacks the reason"; }
# the table
sed -n '/= cumemtrack: GPU memory per test =/,/= short test summary info =/p' full.out >table
grep -q "^8 tests in 1 process" table || { cat full.out; fail "table header"; }
grep -E '^ +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B  ' table >rows
[ "$(wc -l <rows)" = 8 ] || { cat table; fail "not 8 rows"; }
head -1 rows | grep -qE '^ +1.00 MiB +0 B +3.00 MiB  test_gpu.py::test_leaks \(pid' || { cat table; fail "test_leaks not first"; }
grep -qE '^ +0 B +4.00 MiB +4.00 MiB  test_gpu.py::test_cached ' rows || { cat table; fail "cached test row"; }
grep -q "2.00 MiB in 1 allocation held by PyTorch:" table || { cat table; fail "the cache's holder"; }
grep -E '::test_clean' rows | grep -vqE '^ +0 B +0 B ' && { cat table; fail "a clean test leaks"; }
grep -qE '^ +0 B +0 B +17.0 MiB  test_gpu.py::test_clean_with_fixture ' rows ||
    { cat table; fail "the fixture's setup/teardown are not inside its range"; }
grep -q "^dumps: $CMT_TMP/kept" table || fail "kept dumps not named"
echo "ok suite: exactly test_leaks (line $line) and test_over_memory fail; table of 8"

# ---- the kept dumps: the same per-test view from the analyzer
ls "$CMT_TMP"/kept/pytest.*.cmt >/dev/null || fail "no dump kept"
"$CMT_BIN" report "$CMT_TMP/kept" >report.txt || fail "report"
grep -q "^per test: 8 tests in 1 process" report.txt || { cat report.txt; fail "report: no per-test section"; }
sed -n '/^per test:/,/^$/p' report.txt | grep -E '^ +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B  ' >report_rows
diff rows report_rows || fail "report's per-test rows differ from the plugin's table"
"$CMT_BIN" report --json "$CMT_TMP/kept" >r.json || fail "report --json"
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" r.json || fail "schema"
"$PY" - r.json "$line" <<'PY' || fail "JSON tests"
import json, sys
d = json.load(open(sys.argv[1])); line = int(sys.argv[2])
t = {r["name"]: r for r in d["tests"]}
assert len(t) == 8 and len(d["tests"]) == 8, sorted(t)
MIB = 1 << 20
assert [r["name"] for r in d["tests"] if r["leaked_bytes"]] == ["test_gpu.py::test_leaks"], d["tests"]
l = t["test_gpu.py::test_leaks"]
assert l["leaked_bytes"] == MIB and l["leaked_allocations"] == 1 and l["peak_bytes"] == 3 * MIB, l
assert l["allocated_bytes"] == 3 * MIB and l["allocations"] == 2 and l["end"] == "end", l
s = l["stacks"][0]
assert s["status"] == "leaked" and s["bytes"] == MIB and s["allocator"] is None, s
assert any(f["kind"] == "python" and f["function"] == "test_leaks" and f["line"] == line for f in s["frames"]), s
c = t["test_gpu.py::test_cached"]
assert c["leaked_bytes"] == 0 and c["cached_bytes"] == 4 * MIB and c["stacks"][0]["allocator"] == "PyTorch", c
assert t["test_gpu.py::test_over_memory"]["peak_bytes"] == 32 * MIB
f = t["test_gpu.py::test_clean_with_fixture"]
assert f["leaked_bytes"] == 0 and f["peak_bytes"] == 17 * MIB, f
assert t["test_gpu.py::test_clean_frees_earlier_leak"]["allocated_bytes"] == 0
assert t["test_gpu.py::test_clean_param[3]"]["peak_bytes"] == 9 * MIB
assert all(r["end"] == "end" for r in d["tests"])
PY
"$CMT_BIN" check --per-marker "$CMT_TMP/kept" 2>check.txt && fail "check --per-marker passed a leak"
grep "check failed: test" check.txt | sed 's/.*check failed: test //; s/ .*//' >failed
echo test_gpu.py::test_leaks | diff - failed || { cat check.txt; fail "check --per-marker names other tests"; }
"$CMT_BIN" check --per-marker --count-cached "$CMT_TMP/kept" 2>check.txt
grep -c "check failed: test" check.txt | grep -qx 2 || { cat check.txt; fail "--count-cached: test_cached not judged"; }
"$CMT_BIN" check --per-marker --max-leak-bytes 1M --max-peak-bytes "16 MiB" "$CMT_TMP/kept" 2>check.txt &&
    fail "--max-peak-bytes passed"
grep "check failed: test" check.txt | sed 's/.*check failed: test //; s/ .*//' | sort >failed
printf 'test_gpu.py::test_clean_with_fixture\ntest_gpu.py::test_over_memory\n' | diff - failed ||
    { cat check.txt; fail "--max-peak-bytes names other tests"; }
"$CMT_BIN" check --per-marker --max-leak-bytes 1M --max-peak-bytes 32M "$CMT_TMP/kept" 2>check.txt ||
    { cat check.txt; fail "within limits but check failed"; }
echo "ok report / check --per-marker on the kept dumps: the same view"

# ---- pytest's own behaviour is unchanged: exit codes and output (timing and our section aside)
mkdir -p plain
cat >plain/test_plain.py <<'PY'
def test_ok():
    assert 1 + 1 == 2


def test_fails():
    assert 1 + 1 == 3
PY
normalize() { sed '/= cumemtrack: GPU memory per test =/,/^\(=\|$\)/{/= cumemtrack: GPU memory per test =/d;/^=/!d}' "$1" |
    sed -E 's/ in [0-9.]+s( |$)/ in Ns\1/; /^(rootdir|plugins|platform|cachedir):/d'; }
compare() { # NAME WANT_RC ARGS...
    local name=$1 want=$2; shift 2
    pt "$name.plain" "$@"
    local rc_plain=$rc
    pt "$name.cmt" --cumemtrack "$@"
    [ "$rc_plain" = "$want" ] || { cat "$name.plain.out"; fail "$name: plain pytest exited $rc_plain, not $want"; }
    [ "$rc" = "$want" ] || { cat "$name.cmt.out"; fail "$name: with --cumemtrack exited $rc, not $want"; }
    normalize "$name.plain.out" >"$name.a"
    normalize "$name.cmt.out" >"$name.b"
    diff "$name.a" "$name.b" || fail "$name: --cumemtrack changed pytest's output"
}
compare clean 0 "$SUITE" -k "clean"
grep -q "= cumemtrack: GPU memory per test =" clean.cmt.out || fail "clean run: no table"
grep -q "5 passed, 3 deselected" clean.cmt.out || { cat clean.cmt.out; fail "clean subset"; }
compare plainfail 1 plain -v
compare usage 4 plain --no-such-option
compare notests 5 plain -k no_test_matches_this
compare collectonly 0 plain --collect-only -q
echo "ok exit codes 0 1 4 5 and output unchanged"

# ---- a bad size is a usage error naming the test and the marker
mkdir -p bad
cat >bad/test_bad.py <<'PY'
import pytest


@pytest.mark.cuda_limit_leaks("12 XB")
def test_bad_size():
    pass
PY
pt badsize bad --cumemtrack
[ "$rc" = 4 ] || { cat badsize.out; fail "bad size: exit $rc, not 4"; }
grep -q "test_bad.py::test_bad_size: @pytest.mark.cuda_limit_leaks('12 XB'): not a size: '12 XB'" badsize.out ||
    { cat badsize.out; fail "bad size message"; }
sed -i 's/cuda_limit_leaks("12 XB")/cuda_limit_memory()/' bad/test_bad.py
pt noarg bad --cumemtrack
[ "$rc" = 4 ] && grep -q "cuda_limit_memory takes one size" noarg.out || { cat noarg.out; fail "marker without a size"; }
# the size grammar is the CLI's: the same sizes accepted, the same bytes
for s in "0 B" "512 MiB" "1KB" "1 kib" "2G" "16T" "7" "3b" "12 " " 1" "1.5G" "12 XB" "1 G B" "-1" "18446744073709551615" \
    "18446744073709551616" "16777216T" "1 Mi"; do
    py=$("$PY" -c 'import sys, cumemtrack
try: print(cumemtrack.human_size(cumemtrack.parse_size(sys.argv[1])))
except cumemtrack.SizeError: print("bad")' "$s")
    if "$CMT_BIN" check --per-marker --max-leak-bytes "$s" "$CMT_TMP/kept" 2>c.txt; then cli=ok; else cli=$?; fi
    case $cli in
        2) cli=bad ;;
        *) cli=$(grep -o "budget .*" c.txt | head -1 | sed 's/budget //'); [ -n "$cli" ] || cli=$(echo "$s" >/dev/null; echo pass) ;;
    esac
    [ "$cli" = pass ] && cli=$py # within budget: no figure printed (very large sizes)
    [ "$py" = "$cli" ] || fail "size '$s': Python says '$py', the CLI '$cli'"
done
echo "ok bad sizes are usage errors; the size grammar is the CLI's"

# ---- a node id longer than the 1024 bytes the tracer keeps of a name is still judged
mkdir -p long
cat >long/test_long.py <<PY
import sys

import pytest

sys.path.insert(0, "$SUITE")
import gpu  # noqa: E402

kept = []


@pytest.mark.cuda_limit_leaks("0 B")
@pytest.mark.parametrize("x", ["\u00e9" * 700])
def test_long_clean(x):
    gpu.free(gpu.malloc(gpu.MIB))


@pytest.mark.cuda_limit_leaks("0 B")
@pytest.mark.parametrize("x", ["\u00e9" * 700])
def test_long_leaks(x):
    kept.append(gpu.malloc(gpu.MIB))
PY
pt long long --cumemtrack -rfE
[ "$rc" = 1 ] || { cat long.out; fail "long names: exit $rc"; }
grep -q "2 passed, 1 error" long.out || { cat long.out; fail "long names: not exactly the leaking test failed"; }
grep -q "cannot judge" long.out && { cat long.out; fail "long names: not judged"; }
grep -q "ERROR at teardown of test_long_leaks" long.out || { cat long.out; fail "long names: wrong test"; }
echo "ok names longer than 1024 bytes"

# ---- the analyzer's own rules reach the plugin: --cumemtrack-caching-allocator, --cumemtrack-suppressions
pt ca "$SUITE" -k "test_leaks" --cumemtrack --cumemtrack-caching-allocator '^malloc$'
[ "$rc" = 0 ] || { cat ca.out; fail "--cumemtrack-caching-allocator: the cached memory still failed the test"; }
grep -qE '^ +0 B +1.00 MiB +3.00 MiB  test_gpu.py::test_leaks ' ca.out && grep -qF "held by ^malloc$:" ca.out ||
    { cat ca.out; fail "--cumemtrack-caching-allocator: table"; }
echo 'leak:test_leaks' >supp.txt
pt supp "$SUITE" -k "test_leaks" --cumemtrack --cumemtrack-suppressions supp.txt
[ "$rc" = 0 ] || { cat supp.out; fail "--cumemtrack-suppressions: the suppressed leak failed the test"; }
pt badre "$SUITE" -k "test_leaks" --cumemtrack --cumemtrack-caching-allocator '('
[ "$rc" = 4 ] && grep -q "is not a valid regular expression" badre.out || { cat badre.out; fail "bad regex: not a usage error"; }
echo "ok --cumemtrack-caching-allocator and --cumemtrack-suppressions"

# ---- without --cumemtrack: the markers are known (strict markers pass), nothing is tracked
pt nocmt "$SUITE" -k clean --strict-markers
[ "$rc" = 0 ] || { cat nocmt.out; fail "without --cumemtrack: exit $rc"; }
grep -q cumemtrack nocmt.out && { cat nocmt.out; fail "without --cumemtrack the plugin spoke"; }
# loop guard: marked as re-executed, but no tracer: a usage error, never a second re-exec
CUMEMTRACK_PYTEST=1 pt loop plain --cumemtrack
[ "$rc" = 4 ] && grep -q "runs without the tracer" loop.out || { cat loop.out; fail "loop guard"; }
# the cumemtrack command missing from PATH
PATH=/usr/bin:/bin pt nobin plain --cumemtrack
[ "$rc" = 4 ] && grep -q "cumemtrack command is not on PATH" nobin.out || { cat nobin.out; fail "no cumemtrack on PATH"; }
# the temporary dumps (no --cumemtrack-dir) are gone
ls "$TMPDIR" | grep -q cumemtrack-pytest- && { ls "$TMPDIR"; fail "temporary dump directory left"; }
# already under the tracer (cumemtrack run -- pytest --cumemtrack): no re-exec, same table
"$CMT_BIN" run -q -o "$CMT_TMP/outer/%p.cmt" -- "$PY" -m pytest -p cumemtrack.pytest_plugin -p no:cacheprovider \
    --cumemtrack "$SUITE" -k "test_leaks or clean_param" >outer.out 2>&1
rc=$?
[ "$rc" = 1 ] || { cat outer.out; fail "under cumemtrack run: exit $rc"; }
grep -q "^3 tests in 1 process" outer.out && grep -qE '^ +1.00 MiB .*test_gpu.py::test_leaks' outer.out ||
    { cat outer.out; fail "under cumemtrack run: table"; }
[ "$(ls "$CMT_TMP"/outer/*.cmt | wc -l)" = 1 ] || fail "under cumemtrack run: re-executed again"
# pytest.main() from a program of its own: no re-exec (it would run the program's code again), a
# usage error that says to start the program under the tracer; under `cumemtrack run` it works
cat >host.py <<PY
import sys, pytest
print("SIDE EFFECT")
sys.exit(pytest.main(["-p", "cumemtrack.pytest_plugin", "-p", "no:cacheprovider", "--cumemtrack", "-q",
                      "$SUITE/test_gpu.py::test_clean_under_limit"]))
PY
"$PY" host.py --its-own-arg >host.out 2>&1
rc=$?
[ "$rc" = 4 ] || { cat host.out; fail "pytest.main without the tracer exited $rc, not 4"; }
[ "$(grep -c 'SIDE EFFECT' host.out)" = 1 ] || { cat host.out; fail "the host program ran twice"; }
grep -q "run that program under .cumemtrack run" host.out || { cat host.out; fail "no advice for pytest.main"; }
"$CMT_BIN" run --quiet -- "$PY" host.py >host2.out 2>&1 || { cat host2.out; fail "pytest.main under cumemtrack run"; }
grep -q "test_clean_under_limit" host2.out || { cat host2.out; fail "no per-test table under cumemtrack run"; }
echo "ok pytest.main: a usage error without the tracer, works under cumemtrack run"
echo PASS
