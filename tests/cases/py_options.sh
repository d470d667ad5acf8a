#!/usr/bin/env bash
# Python frames, the edges: recursion deeper than CUMEMTRACK_DEPTH (Python frames bounded by it,
# the innermost ones kept), CUMEMTRACK_PYTHON=0 (native-only stacks), a CPython without a layout
# entry (simulated with the internal CUMEMTRACK_PYTHON_VERSION override, and a real 3.7 when pyenv
# has one): native-only stacks and one INFO note, the program unchanged, and report and run's
# summary say "Python frames: not recorded: ..."; CUMEMTRACK_ALERT's message
# names the Python line; a 1.0 dump (before Python
# frames) still reads, record for record as it did.
source "$CMT_ROOT/tests/cases/py_lib.sh.inc"
py=$(interpreters 11 | head -n 1)
[ -n "$py" ] || py=$(interpreters | head -n 1)
[ -n "$py" ] || { echo "no CPython 3.8+ found"; exit 77; }
mi=$(minor_of "$py")

# depth: 40 recursive calls, 16 frames kept
CUMEMTRACK_DEPTH=16 PY_RECURSION=40 pyrun depth "$py" cdll recursion
python3 "$PYDIR/check_sites.py" depth.txt depth.out --depth 16 --minor "$mi" || die "depth: wrong Python frames"
grep -q ' npy=16 ' depth.txt || die "depth: the recursion's stack does not have exactly 16 Python frames"
echo "ok depth"

# off
CUMEMTRACK_PYTHON=0 pyrun off "$py" cdll sites
python3 "$PYDIR/check_sites.py" off.txt off.out --native-only || die "CUMEMTRACK_PYTHON=0: Python frames recorded"
grep -q ' PYCODE \| npy=' off.txt && die "CUMEMTRACK_PYTHON=0: Python records written"
grep -q ' STACK ' off.txt || die "CUMEMTRACK_PYTHON=0: no native stacks"
echo "ok off"

# a version without an entry: native-only stacks and the note, once
unsupported() { # NAME: checks NAME.txt
    python3 "$PYDIR/check_sites.py" "$1.txt" "$1.out" --native-only || die "$1: Python frames recorded"
    grep -q ' PYCODE \| npy=' "$1.txt" && die "$1: Python records written"
    grep -q ' STACK ' "$1.txt" || die "$1: no native stacks"
    [ "$(grep -c 'INFO key="python" value="CPython 3\.[0-9]*\(\.[0-9]*\)\? has no frame layout entry in this cumemtrack: native-only stacks"' "$1.txt")" = 1 ] ||
        die "$1: not exactly one INFO note: $(grep INFO "$1.txt")"
    [ "$(grep -c ' PYTHON state=2 version=0x3[0-9a-f]\{4\} text="3\.[0-9.]*"$' "$1.txt")" = 1 ] ||
        die "$1: not exactly one PYTHON record (state 2, no layout): $(grep PYTHON "$1.txt")"
    grep -q "^DONE " "$1.out" || die "$1: the program did not finish"
    # the report says so in words (not an anomaly): the leaks at different Python lines share a site
    "$CMT_BIN" report --no-symbols "$1.cmt" >"$1.rep" 2>&1 || die "$1: report"
    sed -n 2p "$1.rep" | grep -q "^Python frames: not recorded: CPython 3\.[0-9.]* has no frame layout entry (3\.8 to 3\.13 are supported); stacks are native only" ||
        { cat "$1.rep"; die "$1: the report does not say Python frames are missing"; }
}
CUMEMTRACK_PYTHON_VERSION=3.99 pyrun future "$py" cdll sites threads
unsupported future
grep -q 'value="CPython 3.99 has no' future.txt || die "future: the note does not name the version"
# cumemtrack run's summary says it too
CUMEMTRACK_LIB=$CMT_LIB CUMEMTRACK_PYTHON_VERSION=3.99 "$CMT_BIN" run -o "$PWD/runf/%p.cmt" -- \
    "$py" "$PYDIR/alloc_sites.py" cdll sites >runf.out 2>runf.err || { cat runf.err; die "run: failed"; }
grep -q "^cumemtrack: Python frames: not recorded: CPython 3.99 has no frame layout entry (3.8 to 3.13 are supported)" runf.err ||
    { cat runf.err; die "run: the summary does not say Python frames are missing"; }
echo "ok unsupported (simulated 3.99)"
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for old in "$root"/versions/3.7*/bin/python3; do
    [ -x "$old" ] || continue
    pyrun real37 "$old" cdll sites threads
    unsupported real37
    echo "ok unsupported ($old)"
done

# CUMEMTRACK_ALERT names the Python line first: 64 + 32 MiB crosses 90 MiB in malloc's cudaMalloc call
line=$(grep -n 'if rt.cudaMalloc' "$PYDIR/alloc_sites.py" | cut -d: -f1)
CUMEMTRACK_ALERT=0:90MiB pyrun alert "$py" cdll sites
grep -q "^cumemtrack: alert: device 0 .* at malloc ($PYDIR/alloc_sites.py:$line) \[" alert.err ||
    die "alert lacks the Python call site: $(cat alert.err)"
echo "ok alert"

# the previous format version still reads, unchanged
cd "$CMT_ROOT/tests/compat" || die "no tests/compat"
"$CMT_BIN" dump v1.0-python311.cmt >"$CMT_TMP/v1.dump" || die "1.0 dump unreadable"
cd "$CMT_TMP" || exit 1
diff -u "$CMT_ROOT/tests/compat/v1.0-python311.dump" v1.dump || die "1.0 dump reads differently"
"$CMT_BIN" report --json --no-symbols "$CMT_ROOT/tests/compat/v1.0-python311.cmt" >v1.json || die "1.0 report failed"
python3 -c 'import json,sys; r=json.load(open("v1.json")); s=r["summary"]; assert s["processes"] == 1 and s["leaked_bytes"] == 0, s' ||
    die "1.0 report: wrong summary"
echo PASS
