#!/usr/bin/env bash
# Python frames missing, said in every output: a process whose CPython had no frame layout entry
# (its dump's INFO "python" note) has native-only stacks, and one whose frame walks failed
# (header counter python_walk_failed) has stacks short of Python frames. The text report, JSON
# notes[], the HTML page (embedded data and, with Chromium, the page), flame and check (on stderr)
# say it in words; neither is an anomaly (the byte figures are right): "0 anomalies", check passes.
# Two processes with the same cause share one note naming both pids; a dump whose Python frames
# were on has no note. (cumemtrack run's summary: tests/cases/py_options.sh, a real process.)
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
dump() { # NAME PID INFO-LINE HEADER-EXTRA: two leaks at one native stack (Python lines unknown)
    cat >"$1.script" <<S
header pid=$2 cmd="python3 train.py" $4
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G
$3
stack id=1 0x1000 0x2000
alloc dev=0 ptr=0x100 size=1M stack=1
alloc dev=0 ptr=0x200 size=2M stack=1
exit clean
S
    "$MKDUMP" "$1.script" "$1.cmt" || fail "mkdump $1"
}
off='info key=python value="CPython 3.7.16 has no frame layout entry in this cumemtrack: native-only stacks"'
dump old 41 "$off" ""
dump old2 42 "$off" ""
dump walk 43 'info key=python value="CPython 3.11.7: Python frames on"' "ctr.python_walk_failed=5"
dump fine 44 'info key=python value="CPython 3.11.7: Python frames on"' ""
OFF_TEXT='Python frames: not recorded: CPython 3.7.16 has no frame layout entry (3.8 to 3.13 are supported); stacks are native only'
WALK_TEXT='Python frames: 5 walks failed: those stacks lack some or all of their Python frames'

# text: the note under the first line; not an anomaly
expect_rc 0 "$CMT_BIN" report --no-symbols old.cmt
sed -n 2p out.txt | grep -qF "$OFF_TEXT" || { cat out.txt; fail "text: no note of the unsupported CPython"; }
head -1 out.txt | grep -q ", 0 anomalies$" || fail "text: the note counted as an anomaly"
expect_rc 0 "$CMT_BIN" report --no-symbols walk.cmt
sed -n 2p out.txt | grep -qF "$WALK_TEXT" || { cat out.txt; fail "text: no note of the failed walks"; }
head -1 out.txt | grep -q ", 0 anomalies$" || fail "text: failed walks counted as an anomaly"
grep -q '^anomalies' out.txt && fail "text: an anomalies section for failed walks"
expect_rc 0 "$CMT_BIN" report --no-symbols fine.cmt
grep -q 'Python frames' out.txt && { cat out.txt; fail "text: a note although Python frames were on"; }
# several processes: one note per cause, its pids named
expect_rc 0 "$CMT_BIN" report --no-symbols old.cmt old2.cmt walk.cmt fine.cmt
[ "$(grep -c '^Python frames:' out.txt)" = 2 ] || { cat out.txt; fail "text: not one note per cause"; }
grep -q '^Python frames: not recorded in pids 41 and 42: CPython 3.7.16 has no frame layout entry' out.txt ||
    { cat out.txt; fail "text: the note does not name both pids"; }
grep -q '^Python frames: 5 walks failed in pid 43: ' out.txt || { cat out.txt; fail "text: walk note pid"; }
# JSON: notes[], schema-valid; the summary's anomalies unchanged
expect_rc 0 "$CMT_BIN" report --json --no-symbols old.cmt old2.cmt walk.cmt fine.cmt
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" out.txt || fail "schema"
python3 - out.txt "$OFF_TEXT" <<'PY' || fail "JSON notes"
import json, sys
d = json.load(open(sys.argv[1]))
n = d["notes"]
assert [x["kind"] for x in n] == ["python_frames_off", "python_walk_failed"], n
assert n[0]["pids"] == [41, 42] and n[1]["pids"] == [43], n
assert "CPython 3.7.16 has no frame layout entry (3.8 to 3.13 are supported)" in n[0]["text"], n
assert n[1]["text"].startswith("Python frames: 5 walks failed in pid 43: "), n
assert d["summary"]["anomalies"] == 0, d["summary"]
PY
expect_rc 0 "$CMT_BIN" report --json --no-symbols fine.cmt
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["notes"] == []' out.txt || fail "JSON: a note for fine"
# HTML: the notes in the embedded data (the page shows them: checked with Chromium when present)
expect_rc 0 "$CMT_BIN" report --html --no-symbols -o old.html old.cmt walk.cmt
python3 - old.html <<'PY' || fail "HTML embedded notes"
import json, re, sys
d = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
assert len(d["notes"]) == 2 and d["notes"][0].startswith("Python frames: not recorded in pid 41: CPython 3.7.16"), d["notes"]
assert d["notes"][1].startswith("Python frames: 5 walks failed in pid 43: "), d["notes"]
PY
CHROME=
for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
if [ -n "$CHROME" ]; then
    prof=$(mktemp -d)
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --disable-dev-shm-usage --user-data-dir="$prof" --dump-dom "file://$PWD/old.html" >dom.html 2>/dev/null
    rm -rf "$prof"
    grep -q 'data-rendered="ok"' dom.html || fail "HTML: the page did not render"
    grep -q '<ul id="notes" class="notes"><li>Python frames: not recorded in pid 41: CPython 3.7.16' dom.html ||
        fail "HTML: the page does not show the notes"
fi
# flame (stdout: folded stacks only) and check: the notes on stderr; check passes (no anomaly)
expect_rc 0 "$CMT_BIN" flame --no-symbols old.cmt
grep -qF "cumemtrack: $OFF_TEXT" err.txt || { cat err.txt; fail "flame: no note"; }
grep -q 'Python frames' out.txt && fail "flame: the note in the folded stacks"
expect_rc 0 "$CMT_BIN" check --no-symbols --max-leak-bytes 3M walk.cmt
grep -qF "cumemtrack: $WALK_TEXT" err.txt || { cat err.txt; fail "check: no note"; }
grep -q 'check passed' err.txt || { cat err.txt; fail "check did not pass"; }
echo ok
