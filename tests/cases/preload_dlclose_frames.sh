# A frame resolves against the module mapped at its address when the allocation was made
# (issue 25 item 2): tests/stackcache/sc_reload loads sc_plugin_v1.so, allocates 1000 B through it
# (leaked), closes it, loads sc_plugin_v2.so at the same base (same layout, the allocating function
# renamed and moved) and allocates 2000 B from the same call instruction, so both stacks have the
# same return addresses. The report puts the 1000 B under v1's lf (sc_plugin.c:7) and the 2000 B
# under v2's xf (sc_plugin.c:15), with the stack cache on and off, in text and JSON.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
B=$CMT_TESTBIN/stackcache
for sc in 1 0; do
    out=$(LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc CUMEMTRACK_OUTPUT=$PWD/r$sc.cmt \
        "$B/sc_reload" "$B/sc_plugin_v1.so" "$B/sc_plugin_v2.so") || die "sc_reload failed"
    [ "$out" = "same base" ] || { echo "v2 was not loaded at v1's base ($out): nothing to test"; exit 77; }
    "$CMT_BIN" report --json r$sc.cmt | python3 -c '
import json, sys
r = json.load(sys.stdin)
got = sorted((l["bytes"], l["frames"][0]["function"], l["frames"][0]["line"], l["frames"][0]["module"].rsplit("/", 1)[-1])
             for l in r["leaks"])
want = [(1000, "lf", 7, "sc_plugin_v1.so"), (2000, "xf", 15, "sc_plugin_v2.so")]
if got != want: sys.exit("cache '$sc': leaks %s, want %s" % (got, want))' || die "wrong frames (JSON)"
    "$CMT_BIN" report r$sc.cmt >r$sc.txt || die "report failed"
    grep -A1 '^  #. 1000 B in 1 allocation' r$sc.txt | grep -q 'lf tests/stackcache/sc_plugin.c:7' ||
        die "cache $sc: v1's allocation not under lf sc_plugin.c:7"
    grep -A1 '^  #. 1.95 KiB in 1 allocation' r$sc.txt | grep -q 'xf tests/stackcache/sc_plugin.c:15' ||
        die "cache $sc: v2's allocation not under xf sc_plugin.c:15"
done
echo PASS
