# Writing stops mid-run (`ulimit -f`, as with a full disk): the dump stays self-consistent.
# Tracer: a thread records nothing after its first dropped record (before, a FREE still fitted in
# the block an ALLOC no longer fitted in, and the analyzer reported double frees the program never
# made), and the EXIT record still gets in (the room each block keeps for it, or a pooled block).
# Checked on the raw dump (every FREE follows an ALLOC of its pointer, no ALLOC over a live one)
# and in the report (no double_free / unknown_free, exit clean), for one worker thread (the main
# thread records only its EXIT), the main thread alone, and four workers. The exit status always
# reaches the dump (issue 25, item 6): where the EXIT record found no room (a thread that never had
# a block, no clear block in the pool: always so under CUMEMTRACK_TEST_BUSY=1), the header's
# exit_status slot says it, and the report says exit clean, not died.
# Analyzer: in a dump with dropped events a second free is not called a double free (a bug of the
# program) but an unknown free, with a hint that says why; without dropped events it stays one.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
. "$CMT_ROOT/tests/cases/analyzer_lib.sh.inc"
export FAKECUDA_FAST=1
[ -x "$P/drv_fastbench" ] || { echo "test programs not built (make test-programs)"; exit 77; }

# stopped NAME ARGS...: drv_fastbench under a 300-block file-size limit; checks dump and report.
stopped() {
    local name=$1; shift
    (ulimit -f 300; LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/$name.cmt "$P/drv_fastbench" "$@") >"$name.out" 2>"$name.err" ||
        { cat "$name.err"; die "$name: exit $?"; }
    grep -q "tracking stopped" "$name.err" || die "$name: writing never stopped (raise the loop count)"
    "$CMT_BIN" dump "$name.cmt" >"$name.txt" || die "$name: dump unreadable"
    "$CMT_BIN" report --json --no-symbols "$name.cmt" >"$name.json" || die "$name: report failed"
    "$CMT_BIN" report --no-symbols "$name.cmt" >"$name.report" || die "$name: text report failed"
    python3 - "$name" <<'PY' || die "$name: the stopped dump is not self-consistent"
import json, re, sys
name = sys.argv[1]

live, bad, frees, exits = set(), [], 0, 0
for line in open(name + ".txt"):
    m = re.search(r" (ALLOC|FREE) .* ptr=(0x[0-9a-f]+)", line)
    if m:
        kind, ptr = m.groups()
        if kind == "ALLOC":
            if ptr in live: bad.append("ALLOC over a live pointer: " + line.strip())
            live.add(ptr)
        else:
            frees += 1
            if ptr not in live: bad.append("FREE without its ALLOC: " + line.strip())
            live.discard(ptr)
    exits += " EXIT how=clean status=0" in line
    slot = line.startswith("# exit how=clean status=0 (header)") or locals().get("slot", False)
r = json.load(open(name + ".json"))
an, c = r["anomalies"], r["processes"][0]["counters"]
if not (c["write_stopped"] == 1 and c["dropped_events"] > 0): bad.append("not stopped: %s" % c)
for k in ("double_free", "unknown_free"):
    if an.get(k): bad.append("%s %d in the report" % (k, an[k]))
p = r["processes"][0]
if exits > 1 or not slot or p["exit"] != "clean" or p["exit_status"] != 0:
    bad.append("no clean exit (%d EXIT records, header slot %s, exit %s, status %s)" % (exits, slot, p["exit"], p["exit_status"]))
if frees < 100: bad.append("only %d frees recorded before the stop" % frees)
for b in bad[:10]: print(name + ": " + b)
sys.exit(1 if bad else 0)
PY
    grep -Eq "double_free|unknown_free" "$name.report" && { cat "$name.report"; die "$name: the text report blames frees"; }
    echo "ok $name: $(grep -c ' FREE ' "$name.txt") frees recorded, $(grep -o '"dropped_events": [0-9]*' "$name.json" | head -1), exit $(grep -o '"exit": "[a-z]*"' "$name.json" | head -1 | sed 's/.*: //')"
}
stopped worker 60000 1
stopped main 60000 1 main
stopped threads 20000 4
# every copy finds the lock busy: no block is ever copied, so none reaches the pool and a full
# block is set aside; the EXIT record finds no room, the header slot still has the status
CUMEMTRACK_TEST_BUSY=1 stopped busy 60000 1

# analyzer: a second free of a pointer in a dump with (and without) dropped events
cat >dbl.script <<'S'
header pid=7
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G
stack id=1 0x1000
alloc dev=0 ptr=0x100 size=1M stack=1
free dev=0 ptr=0x100
free dev=0 ptr=0x100
exit clean
S
sed "s/^header pid=7/header pid=7 ctr.dropped_events=5 ctr.write_stopped=1/" dbl.script >dropped.script
"$MKDUMP" dbl.script dbl.cmt && "$MKDUMP" dropped.script dropped.cmt || die "mkdump"
expect_rc 0 "$CMT_BIN" report --no-symbols dbl.cmt
grep -Eq "^  double_free +1  .*a bug in the program" out.txt || { cat out.txt; die "a double free without dropped events is not reported"; }
expect_rc 0 "$CMT_BIN" report --no-symbols dropped.cmt
grep -q "double_free" out.txt && { cat out.txt; die "a free after dropped events is called a double free"; }
grep -Eq "^  unknown_free +1  .*events were dropped" out.txt || { cat out.txt; die "no unknown_free naming the dropped events"; }
expect_rc 0 "$CMT_BIN" report --json --no-symbols dropped.cmt
python3 -c 'import json,sys; a = json.load(open("out.txt"))["anomalies"]; sys.exit(not (a["double_free"] == 0 and a["unknown_free"] == 1 and a["dropped_events"] == 5))' ||
    { cat out.txt; die "JSON anomalies of the dump with dropped events"; }
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" out.txt || die "schema"
echo "ok analyzer: a second free is a double free only when no event was dropped"
echo PASS
