#!/usr/bin/env bash
# The analyzer's per-test view (issue 27) on ranges recorded through the tracer's API
# (tests/python/test_ranges.py, ctypes): only GPU memory allocated inside a test counts (not what
# it frees of older allocations, not host memory); what a test left live at its end stays its
# leak whatever happens later; a begin without an end is ended by the next one ("next"), the last
# by the end of the dump ("unfinished"); allocations of other threads count; a context teardown
# inside a test ends its allocations; test markers are no markers, a cmt_mark inside a test is.
source "$CMT_ROOT/tests/cases/pytest_lib.sh.inc"
"$CMT_BIN" run -q -o "$CMT_TMP/d/%p.cmt" -- "$PY" "$CMT_ROOT/tests/python/test_ranges.py" >out.txt 2>err.txt ||
    { cat out.txt err.txt; fail "the script failed under the tracer"; }
dump=$(cat out.txt)
[ -f "$dump" ] || { cat out.txt err.txt; fail "cmt_dump_path() named no dump: '$dump'"; }
case $dump in "$CMT_TMP"/d/*.cmt) ;; *) fail "cmt_dump_path() is $dump" ;; esac
"$CMT_BIN" report --json "$dump" >r.json || fail "report --json"
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" r.json || fail schema
"$PY" - r.json <<'PY' || fail "per-test figures"
import json, sys
MIB = 1 << 20
d = json.load(open(sys.argv[1]))
t = {r["name"]: r for r in d["tests"]}
assert sorted(t) == sorted(["frees_older", "leaks_2m", "host_only", "no_end", "thread", "reset", "unfinished"]), sorted(t)
def row(n, **want):
    for k, v in want.items():
        assert t[n][k] == v, (n, k, t[n][k], v, t[n])
row("frees_older", allocated_bytes=0, peak_bytes=0, leaked_bytes=0, end="end")
row("leaks_2m", allocated_bytes=3 * MIB, allocations=2, peak_bytes=3 * MIB, leaked_bytes=2 * MIB, end="end")
row("host_only", allocated_bytes=0, leaked_bytes=0, peak_bytes=0)
row("no_end", leaked_bytes=MIB, end="next")
row("thread", leaked_bytes=3 * MIB, end="end")
row("reset", allocated_bytes=5 * MIB, peak_bytes=5 * MIB, leaked_bytes=0, end="end")
row("unfinished", leaked_bytes=6 * MIB, end="unfinished")
assert [r["name"] for r in d["tests"]][:4] == ["unfinished", "thread", "leaks_2m", "no_end"], [r["name"] for r in d["tests"]]
assert [m["label"] for m in d["markers"]] == ["inside"], d["markers"]
assert t["leaks_2m"]["stacks"][0]["frames"][0]["function"] == "cudaMalloc", t["leaks_2m"]["stacks"][0]
PY
"$CMT_BIN" report "$dump" >r.txt || fail report
grep -qE '^ +6.00 MiB +0 B +6.00 MiB  unfinished \(pid [0-9]+, unfinished\)$' r.txt || { cat r.txt; fail "unfinished row"; }
grep -qE '^ +1.00 MiB +0 B +1.00 MiB  no_end \(pid [0-9]+, no end marker\)$' r.txt || { cat r.txt; fail "no-end row"; }
"$CMT_BIN" report --top 2 "$dump" >r2.txt || fail "report --top 2"
grep -q "^  ... 5 more tests (2 leaking; --top N shows more)" r2.txt || { cat r2.txt; fail "--top limits the table"; }
# the HTML page: the same table (headless Chromium renders it when it is installed)
"$CMT_BIN" report --html -o r.html "$dump" || fail "report --html"
grep -q '"tests_total":7' r.html || fail "HTML: no per-test data"
CHROME=
for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
if [ -n "$CHROME" ]; then
    prof=$(mktemp -d)
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
        --user-data-dir="$prof" --enable-logging=stderr --v=0 --dump-dom "file://$PWD/r.html" >dom.html 2>chrome.log ||
        { tail chrome.log; fail "chromium --dump-dom"; }
    rm -rf "$prof"
    grep -Ei 'CONSOLE.*(Uncaught|Error)' chrome.log && fail "HTML: console error"
    grep -q 'data-rendered="ok"' dom.html || fail "HTML: not rendered"
    "$PY" - dom.html <<'PY' || fail "HTML per-test table"
import re, sys
h = open(sys.argv[1]).read()
t = re.search(r'<table id="tests-table">(.*?)</table>', h, re.S).group(1)
rows = re.findall(r'<tr>(.*?)</tr>', t.split('<tbody>')[1], re.S)
assert len(rows) == 7, len(rows)
cells = re.findall(r'<td[^>]*>(.*?)</td>', rows[0], re.S)
assert cells[0] == '6.00 MiB' and cells[2] == '6.00 MiB' and cells[3].startswith('unfinished (pid '), cells[:4]
assert 'cudaMalloc' in rows[0] and 'test_ranges.py' in rows[0], rows[0]
PY
    echo "ok HTML per-test table"
else
    echo "no chromium: the HTML table's data only"
fi
# a refused free (FREE then RETRACK) ends nothing: memory older than the test stays no one's, and
# the test's own allocation is allocated once (the RETRACK counted as a new allocation before)
head='header pid=302 host=n3 rank=0 world=1 cmd="x" exe=/usr/bin/x minor=1
api id=1 name=cuMemAlloc_v2
api id=2 name=cuMemFree_v2
device ord=0 uuid=GPU-33333333-0000-0000-0000-000000000001 name="NVIDIA A100" pci=0000:31:00.0 total=80M
ctx idx=1 dev=0 handle=0xc1
module id=1 base=0x400000 path=/nonexistent/train seg=0x0:0x10000:5
stack id=1 0x401000 0x401300
stack id=2 0x402000 0x401300'
A='alloc dev=0 ptr=0x10000000 size=64M kind=device stack=1 ctx=1 api=cuMemAlloc_v2'
B='marker label=test_x flags=1 domain=cumemtrack.test'
R='free dev=0 ptr=0x10000000 api=cuMemFree_v2
retrack dev=0 ptr=0x10000000 size=64M kind=device stack=1 ctx=1 api=cuMemFree_v2 result=1
marker label= flags=2 domain=cumemtrack.test
free dev=0 ptr=0x10000000 api=cuMemFree_v2
exit how=0 status=0'
printf '%s\n' "$head" "$A" "$B" "$R" >refused_old.script
printf '%s\n' "$head" "$B" "$A" "$R" >refused_own.script
MKD=$CMT_BUILD/tests/tools/cmt_mkdump
for n in refused_old refused_own; do "$MKD" $n.script $n.cmt || fail "mkdump $n"; done
"$CMT_BIN" check --per-marker refused_old.cmt >/dev/null 2>err.txt || { cat err.txt; fail "a refused free of older memory blamed on the test"; }
"$CMT_BIN" report --json --no-symbols refused_own.cmt >own.json || fail "report refused_own"
"$PY" - own.json <<'PY' || fail "refused free of the test's own allocation"
import json, sys
t = json.load(open(sys.argv[1]))["tests"][0]
assert (t["allocated_bytes"], t["allocations"], t["leaked_bytes"]) == (64 << 20, 1, 64 << 20), t
PY
# a test ended by the next one's begin keeps its stacks (devices, frames): suppressions apply
printf '%s\n' "$head" 'marker label=test_a flags=1 domain=cumemtrack.test' \
    'alloc dev=0 ptr=0x10000000 size=1M kind=device stack=1 ctx=1 api=cuMemAlloc_v2' \
    'alloc dev=0 ptr=0x20000000 size=2M kind=device stack=2 ctx=1 api=cuMemAlloc_v2' \
    'marker label=test_b flags=1 domain=cumemtrack.test' 'marker label= flags=2 domain=cumemtrack.test' \
    'free dev=0 ptr=0x10000000 api=cuMemFree_v2' 'free dev=0 ptr=0x20000000 api=cuMemFree_v2' \
    'exit how=0 status=0' >next.script
"$MKD" next.script next.cmt || fail "mkdump next"
echo 'leak:train' >train.supp
"$CMT_BIN" check --per-marker --suppressions train.supp next.cmt >/dev/null 2>err.txt ||
    { cat err.txt; fail "a test ended by the next begin lost its stacks (suppression missed)"; }
echo "ok refused frees and tests ended by the next one"
# old dumps and dumps without tests: no per-test section, "tests": []
"$CMT_BIN" report "$CMT_ROOT/tests/compat/"*.cmt 2>/dev/null | grep -q "^per test" && fail "per-test section without tests"
echo PASS
