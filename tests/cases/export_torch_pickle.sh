#!/usr/bin/env bash
# The pickle writer of export --torch-snapshot (analyzer/util/pickle.c, issue 29), on its own
# (tests/unit/test_pickle.c): Python's own pickle loads what it writes and gets exactly the values
# written — integers at every opcode's limits, past 32 and 63 bits and negative; strings that are
# not UTF-8 with U+FFFD per bad byte; tuples, bools, None, empty containers; more than a batch of
# list items and dict entries; more than 256 memoized strings; a memoized list shared by two keys.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
py=$(command -v python3) || { echo "no python3"; exit 77; }
b=$CMT_BUILD/tests/unit/test_pickle
[ -x "$b" ] || make -s -C "$CMT_ROOT" build/tests/unit/test_pickle >&2 || fail "cannot build test_pickle"
$VALGRIND "$b" out.pickle || fail "test_pickle"
"$py" - out.pickle <<'P' || fail "the pickle does not load as written"
import pickle, pickletools, sys
data = open(sys.argv[1], "rb").read()
assert data[:2] == b"\x80\x02", data[:2]  # protocol 2
s = pickle.loads(data)
ints = [0, 1, 255, 256, 65535, 65536, -1, -128, -129, -256, 2**31 - 1, -2**31, 2**31, -2**31 - 1,
        2**63 - 1, -2**63, 0x7fffffffff, -0x8000000000]
assert s["ints"] == ints, s["ints"]
assert s["uints"] == [0, 2**63, 2**64 - 1, 0xdeadbeefcafef00d, 0x7efff18d2100], s["uints"]
R = "\ufffd"
assert s["strs"] == ["", "h\u00e9llo", "bad" + R, "cut" + R * 2, R * 2, R * 3, "\U0001d11e", R * 4, "a\0b"], s["strs"]
assert s["misc"] == (True, False, None, None, (), [], {}), s["misc"]
assert s["many"] == list(range(2500))
assert s["keys"] == {"k%d" % i: i for i in range(1500)}
assert s["again"] == ["k%d" % i for i in range(0, 1500, 7)]
assert s["shared1"] == ["x", "y"] and s["shared1"] is s["shared2"]
ops = {op.name for op, arg, pos in pickletools.genops(data)}
assert {"LONG_BINGET", "LONG_BINPUT", "BINGET", "BINPUT", "LONG1", "BININT", "BININT1", "BININT2", "APPENDS",
        "SETITEMS", "TUPLE", "NEWTRUE", "NEWFALSE", "NONE", "BINUNICODE"} <= ops, ops
# batches of at most 1000 items (a reader may spread one into a call)
marks = []
for op, arg, pos in pickletools.genops(data):
    if op.name == "MARK":
        marks.append(0)
    elif op.name in ("APPENDS", "SETITEMS", "TUPLE"):
        n = marks.pop()
        assert n <= (2000 if op.name == "SETITEMS" else 1000), (op.name, n)
    elif marks and op.name not in ("BINPUT", "LONG_BINPUT", "MEMOIZE"):
        marks[-1] += 1
P
echo ok
