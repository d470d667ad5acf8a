#!/usr/bin/env bash
# The shipped analyzer binary really prefetches in the replay (issue 16). GCC 12 deleted the
# replay's prefetch functions as "looping pure", source and all looking right: so this checks the
# machine code of build/cumemtrack, not the source. Every function replay_dump.o defines (the
# replay's driving loop, wherever GCC inlines it) is disassembled from the linked binary; at least
# one prefetch instruction must be among them.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
command -v objdump >/dev/null || { echo "objdump (binutils) not installed"; exit 77; }
obj=$CMT_BUILD/analyzer/model/replay_dump.o
[ -f "$obj" ] && [ -x "$CMT_BIN" ] || fail "build first (make): $obj, $CMT_BIN"
[ "$obj" -nt "$CMT_ROOT/analyzer/model/replay_dump.c" ] || fail "$obj is older than its source: make"
funcs=$(nm --defined-only "$obj" | awk '$2 ~ /^[tT]$/ { print $3 }')
[ -n "$funcs" ] || fail "no functions in $obj"
found=0
for f in $funcs; do
    n=$(objdump -d --no-show-raw-insn "--disassemble=$f" "$CMT_BIN" | grep -cE '\sprefetch(t0|t1|t2|nta|w)?\s|\sprfm\s')
    echo "$f: $n prefetch instruction(s)"
    found=$((found + n))
done
[ "$found" -gt 0 ] || fail "build/cumemtrack: no prefetch instruction in the replay ($funcs): the compiler deleted it"
echo ok
