#!/usr/bin/env bash
# The stack table stays bounded when a library is loaded and unloaded in a loop: after an unload
# every stack met again is defined again (a new id, after the module records: issue 25 item 2),
# and the entries of the older epoch are reused instead of kept (cmt_stacks.c), so is the module
# table's. tests/stackcache/sc_cycle loads sc_cycle_plugin.so, allocates from 40 call stacks
# through it and unloads it, 200 times: the heap it holds (mallinfo2; the tracker's tables are in
# the process) grows by less than 256 KiB from the 10th cycle to the end (before: 13 KiB per
# cycle, 2.5 MiB), with the stack cache on and off. The stacks are still right: each of the 40
# stacks for all 200 cycles' allocations, defined again in every cycle, and the two leaks under
# plugin_leak; also with 4 threads loading, allocating and unloading at once.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
B=$CMT_TESTBIN/stackcache
[ -x "$B/sc_cycle" ] && [ -x "$B/sc_redefine" ] && [ -f "$B/sc_cycle_plugin.so" ] || die "sc_cycle not built (make test-programs)"
per_alloc() { "$CMT_BIN" dump "$1" | python3 "$CMT_ROOT/tests/stackcache/per_alloc.py"; }
# stacks DUMP N STACKS LEAKS DEFS: STACKS distinct stacks of the 4096-byte allocations, N of each, at
# least DEFS STACK records, LEAKS 1000-byte leaks, all under plugin_leak
stacks() {
    per_alloc "$1" >"$1.per" || die "$1: dump unreadable"
    awk '$1 == 4096' "$1.per" | sort | uniq -c | awk -v n="$2" -v k="$3" '
        { if ($1 != n) { print "a stack with " $1 " allocations, want " n; bad = 1 } m++ }
        END { if (m != k) { print m " distinct stacks, want " k; bad = 1 } exit bad }' || die "$1: stacks"
    grep -q ' sc_cycle_plugin.so+' "$1.per" || die "$1: no plugin frame"
    local defs
    defs=$("$CMT_BIN" dump "$1" | grep -c ' STACK ')
    [ "$defs" -ge "$5" ] || die "$1: $defs STACK records, want >= $5 (defined again after each unload)"
    "$CMT_BIN" report --json "$1" >"$1.json" || die "$1: report"
    python3 - "$1.json" "$4" <<'PY' || die "$1: leaks"
import json, sys
r = json.load(open(sys.argv[1]))
assert all(l['frames'][0]['function'] == 'plugin_leak' for l in r['leaks']), [l['frames'][0] for l in r['leaks']]
assert sum(l['bytes'] for l in r['leaks']) == 1000 * int(sys.argv[2]), r['leaks']
PY
}
for sc in 1 0; do
    out=$(LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/c$sc.cmt \
        "$B/sc_cycle" "$B/sc_cycle_plugin.so" 200 40) || die "sc_cycle failed (cache $sc)"
    set -- $out
    [ "$1" = heap ] && [ "$3" -gt 0 ] || die "sc_cycle printed '$out'"
    grew=$(($3 - $2))
    echo "cache $sc: heap $2 B after 10 cycles, $3 B after 200: grew $grew B"
    [ "$grew" -lt $((256 * 1024)) ] || die "cache $sc: the tracker's heap grew by $grew B over 190 load/unload cycles"
    stacks c$sc.cmt 200 40 2 $((200 * 40))
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/t$sc.cmt \
        "$B/sc_cycle" "$B/sc_cycle_plugin.so" 60 20 4 || die "sc_cycle with 4 threads failed (cache $sc)"
    stacks t$sc.cmt 240 20 8 20 # (the plugin stays loaded while another thread holds it)
    echo "ok cache $sc: bounded, stacks right (1 and 4 threads)"
done
# a stack defined again is published only after its STACK record has its number: readers without
# the lock (the per-thread cache) must never number an ALLOC before the definition of its stack.
# CUMEMTRACK_TEST_REDEFINE_US widens the window between the two (before the fix, the id was
# published first: tens of thousands of ALLOCs came before their STACK here)
LD_PRELOAD=$CMT_LIB CUMEMTRACK_TEST_REDEFINE_US=2000 CUMEMTRACK_OUTPUT=$PWD/w.cmt \
    "$B/sc_redefine" "$B/sc_cycle_plugin.so" 100 3 || die "sc_redefine failed"
"$CMT_BIN" dump w.cmt | awk '
    $3 == "STACK" { sub("id=", "", $4); def[$4] = 1; next }
    $3 == "ALLOC" { for (i = 4; i <= NF; i++) if ($i ~ /^stack=/) { id = substr($i, 7); n++
                      if (id != 0 && !(id in def)) bad++ } }
    END { printf "%d ALLOCs, %d before their stack'"'"'s definition\n", n, bad; exit (n < 100 || bad > 0) }' ||
    die "an ALLOC numbered before its stack's STACK record"
echo PASS
