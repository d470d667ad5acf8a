#!/usr/bin/env bash
# Why Python frames are missing is a structured field of the dump (issue 25, item 9): the tracer
# writes a PYTHON record (state code, CPython version) after its INFO "python" sentence, and the
# analyzer decodes that, not the sentence. Checked: for every state, a 2.3 dump (sentence + record)
# reads exactly as the same dump without the record (2.2: the sentence is parsed, as for every
# older dump), in the text report, JSON and HTML; and a dump whose sentence is worded differently
# still gets its note from the codes (before: no note).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
mk() { # DIR MINOR INFO-VALUE [PYTHON-LINE] (without one: an INFO of another key, so times line up)
    mkdir -p "$1"
    cat >"$1/p.script" <<S
header pid=41 cmd="python3 train.py" minor=$2
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G
info key=python value="$3"
${4:-info key=filler value=none}
stack id=1 0x1000 0x2000
alloc dev=0 ptr=0x100 size=1M stack=1
exit clean
S
    "$MKDUMP" "$1/p.script" "$1/p.cmt" || fail "mkdump $1"
}
same() { # NAME: old/ and new/ read alike
    for fmt in "" "--json" "--html"; do
        (cd old && "$CMT_BIN" report $fmt --no-symbols p.cmt >../o.out 2>&1)
        (cd new && "$CMT_BIN" report $fmt --no-symbols p.cmt >../n.out 2>&1)
        cmp -s o.out n.out || { diff o.out n.out | head; fail "$1: report $fmt differs with the PYTHON record"; }
    done
}
v=0x30710
mk old 2 "CPython 3.7.16 has no frame layout entry in this cumemtrack: native-only stacks"
mk new 3 "CPython 3.7.16 has no frame layout entry in this cumemtrack: native-only stacks" "python state=2 version=$v text=3.7.16"
same no_layout
grep -q "Python frames: not recorded: CPython 3.7.16 has no frame layout entry (3.8 to 3.13 are supported)" n.out ||
    fail "no_layout: no note"
mk old 2 "CPython 3.13.1 lacks the symbols Python frames need: native-only stacks"
mk new 3 "CPython 3.13.1 lacks the symbols Python frames need: native-only stacks" "python state=3 version=0x30d01 text=3.13.1"
same no_symbols
mk old 2 "CPython 3.13.1 has an object layout this cumemtrack does not know (free-threaded or debug build?): native-only stacks"
mk new 3 "CPython 3.13.1 has an object layout this cumemtrack does not know (free-threaded or debug build?): native-only stacks" "python state=4 version=0x30d01 text=3.13.1"
same object_layout
mk old 2 "CPython 3.11.7: Python frames on"
mk new 3 "CPython 3.11.7: Python frames on" "python state=1 version=0x30b07 text=3.11.7"
same on
mk old 2 "CPython 3.11.7: Python frames on (eval loop not found: Python frames after the native ones)"
mk new 3 "CPython 3.11.7: Python frames on (eval loop not found: Python frames after the native ones)" "python state=5 version=0x30b07 text=3.11.7"
same on_no_eval
# the codes decide, whatever the sentence says
mk reworded 3 "Python 3.7.16: no frames (native stacks only)" "python state=2 version=$v text=3.7.16"
expect_rc 0 "$CMT_BIN" report --no-symbols reworded/p.cmt
grep -q "^Python frames: not recorded: CPython 3.7.16 has no frame layout entry (3.8 to 3.13 are supported); stacks are native only" out.txt ||
    { cat out.txt; fail "reworded: the note does not come from the PYTHON record"; }
expect_rc 0 "$CMT_BIN" dump reworded/p.cmt
grep -q ' PYTHON state=2 version=0x30710 text="3.7.16"$' out.txt || { cat out.txt; fail "dump: PYTHON record"; }
# an unknown state (a newer tracer): the sentence is read
mk future 3 "CPython 3.7.16 has no frame layout entry in this cumemtrack: native-only stacks" "python state=99 version=$v text=3.7.16"
expect_rc 0 "$CMT_BIN" report --no-symbols future/p.cmt
grep -q "^Python frames: not recorded: CPython 3.7.16 has no frame layout entry" out.txt || fail "unknown state: no fallback"
echo PASS
