#!/usr/bin/env bash
# The reader's side of Python frames (no interpreter needed): a 2.0 dump made from
# tests/golden/python.script reads back with each stack's Python frames interleaved in place of
# the eval-loop native frame that ran them (cmt_stack_frames, as cmt_format.h specifies), with and
# without keeping that native frame; STACK records whose Python frames break the spec are corrupt.
set -u
die() { echo "FAIL: $*"; exit 1; }
MKDUMP=$CMT_TESTBIN/tools/cmt_mkdump T=$CMT_TESTBIN/unit/test_interleave
[ -x "$MKDUMP" ] && [ -x "$T" ] || { echo "test tools not built"; exit 77; }
"$MKDUMP" "$CMT_ROOT/tests/golden/python.script" py.cmt || die mkdump
"$T" py.cmt 0 >got0 || die "reader failed"
cat >want0 <<'X'
1: 0x401000 <- malloc:33 <- activation:40 <- <module>:90 <- 0x403000
2: 0x401000 <- malloc:33 <- gradient:44 <- <module>:91 <- 0x403000
3: 0x401000 <- malloc:33 <- Model.leak:48 <- <module>:92 <- 0x403000
4: 0x401000 <- malloc:33 <- <module>:93
X
diff -u want0 got0 || die "interleaving differs"
"$T" py.cmt 1 >got1 || die "reader failed"
cat >want1 <<'X'
1: 0x401000 <- malloc:33 <- activation:40 <- <module>:90 <- [0x402000] <- 0x403000
2: 0x401000 <- malloc:33 <- gradient:44 <- <module>:91 <- [0x402000] <- 0x403000
3: 0x401000 <- malloc:33 <- [0x402000] <- Model.leak:48 <- <module>:92 <- [0x402000] <- 0x403000
4: 0x401000 <- malloc:33 <- <module>:93
X
diff -u want1 got1 || die "interleaving (eval frames kept) differs"
echo "ok interleave"
bad() { # NAME STACK-LINE WANT: a dump with this stack is corrupt, the message says WANT
    printf 'header pid=1\npycode id=1 first=1 file=a.py name=f\n%s\nexit clean status=0\n' "$2" >"$1.script"
    "$MKDUMP" "$1.script" "$1.cmt" || die "mkdump $1"
    "$CMT_BIN" dump "$1.cmt" >/dev/null 2>"$1.err" && die "$1: read as valid"
    grep -q "$3" "$1.err" || die "$1: message lacks '$3': $(cat "$1.err")"
    echo "ok $1"
}
bad at-decreasing "stack id=1 0x1 0x2 py=1:5:1 py=1:6:0" "STACK Python frame out of range"
bad at-past-end "stack id=1 0x1 py=1:5:2" "STACK Python frame out of range"
bad code-zero "stack id=1 0x1 py=0:5:0" "STACK Python frame out of range"
bad too-many "stack id=1 0x1 npy=300" "STACK npy exceeds"
printf 'header pid=1\npycode id=0 first=1 file=a.py name=f\n' >pc0.script
"$MKDUMP" pc0.script pc0.cmt && ! "$CMT_BIN" dump pc0.cmt >/dev/null 2>pc0.err && grep -q "PYCODE id out of range" pc0.err ||
    die "PYCODE id 0 not refused"
# a STACK naming a code id no PYCODE defined: read, printed as unknown
printf 'header pid=1\nstack id=1 0x1 py=7:5:1\nexit clean status=0\n' >undef.script
"$MKDUMP" undef.script undef.cmt && "$CMT_BIN" dump undef.cmt | grep -q '"?" code=7:5@1' || die "undefined code id"
echo PASS
