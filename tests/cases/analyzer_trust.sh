#!/usr/bin/env bash
# cmt-test: long
# Issue 15 items 1-4, 6-8: results a CI gate can trust (running processes, duplicate dumps,
# salvaged/unreadable dumps, header sanity and anomalies in check, full JSON lists, the merged
# per-GPU peak, conflicting options).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
"$MKDUMP" "$g/basic.script" basic.cmt || fail mkdump
clean_dump

# --- item 8: conflicting options are usage errors; HTML never goes to a terminal
expect_rc 2 "$CMT_BIN" report --json --html -o x.html basic.cmt
grep -q "conflict" err.txt || fail "report --json --html: no reason"
expect_rc 2 "$CMT_BIN" timeline --csv --perfetto basic.cmt
expect_rc 2 "$CMT_BIN" timeline --perfetto --csv basic.cmt
expect_rc 0 "$CMT_BIN" timeline --csv --csv basic.cmt
expect_rc 2 "$CMT_BIN" flame --leaks --peak basic.cmt
expect_rc 2 "$CMT_BIN" flame --peak --leaks basic.cmt
expect_rc 0 "$CMT_BIN" flame --peak --no-symbols basic.cmt
# stdout on a pseudo-terminal: report --html refuses (exit 2) and writes nothing there
python3 - "$CMT_BIN" basic.cmt >tty.txt <<'PY' || fail "report --html to a terminal was not refused: $(cat tty.txt)"
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "report", "--html", "--no-symbols", sys.argv[2]])
out = b""
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
rc = os.waitstatus_to_exitcode(st)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(0 if rc == 2 and b"<html" not in out.lower() else 1)
PY
expect_rc 0 "$CMT_BIN" report --html --no-symbols basic.cmt   # redirected: fine
grep -qi "<html" out.txt || fail "report --html to a file"
echo "ITEM8 ok"

# --- item 6: JSON lists every leak, peak stack and OOM stack unless --top N; text keeps 10
{
    echo 'header pid=200 host=n1'
    echo 'api id=1 name=cuMemAlloc_v2'
    echo 'device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=80G'
    for i in $(seq 1 15); do echo "stack id=$i 0x$((4096 * i))"; done
    for i in $(seq 1 15); do echo "alloc dev=0 ptr=0x$((7000000 + i))000 size=${i}M kind=device stack=$i api=cuMemAlloc_v2"; done
    echo 'oom dev=0 size=100G stack=1 api=cuMemAlloc_v2'
    echo 'exit clean status=0'
} >many.script
"$MKDUMP" many.script many.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" report --json --no-symbols many.cmt
python3 - out.txt 15 <<'PY' || fail "report --json does not list every leak/peak/OOM stack"
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert len(r["leaks"]) == n, len(r["leaks"])
assert len(r["peak"][0]["top"]) == n, len(r["peak"][0]["top"])
assert len(r["oom"][0]["top"]) == n, len(r["oom"][0]["top"])
PY
expect_rc 0 "$CMT_BIN" report --json --top 3 --no-symbols many.cmt
python3 - out.txt 3 <<'PY' || fail "report --json --top 3"
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert len(r["leaks"]) == n and len(r["peak"][0]["top"]) == n and len(r["oom"][0]["top"]) == n
PY
expect_rc 0 "$CMT_BIN" report --no-symbols many.cmt
[ "$(grep -c 'in 1 allocation' out.txt)" -le 30 ] || fail "text report no longer stops at 10"
echo "ITEM6 ok"

# --- item 2: the same dump counted once (identified by host, pid, start and the random id);
# a directory reads *.cmt and *.cmt.N only
expect_rc 0 "$CMT_BIN" report --json --no-symbols basic.cmt
one=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["leaked_bytes"])' out.txt)
expect_rc 0 "$CMT_BIN" report --json --no-symbols basic.cmt basic.cmt
two=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["leaked_bytes"])' out.txt)
[ "$one" = "$two" ] || fail "report a.cmt a.cmt: leaked $two, not $one"
grep -q "basic.cmt: the same dump as basic.cmt" err.txt || fail "duplicate not named on stderr: $(cat err.txt)"
mkdir -p dir && cp basic.cmt dir/a.cmt && cp basic.cmt dir/a.cmt.bak && cp basic.cmt dir/b.cmt.1
expect_rc 0 "$CMT_BIN" report --json --no-symbols dir
[ "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["summary"]["leaked_bytes"], len(r["processes"]))' out.txt)" = "$one 1" ] ||
    fail "a directory with copies counts them: $(head -c 300 out.txt)"
grep -q "dir/b.cmt.1: the same dump as dir/a.cmt" err.txt || fail "copy b.cmt.1 not named"
grep -q "a.cmt.bak" err.txt && fail "a .cmt.bak file was read"
# another dump of the same process (same host, pid and start) with another id is another dump
sed 's/^header pid=100/header pid=100 id=1234abcd/' "$g/basic.script" >other.script
"$MKDUMP" other.script other.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" report --json --no-symbols basic.cmt other.cmt
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["processes"]))' out.txt)" = 2 ] ||
    fail "two dumps with different ids were merged"
expect_rc 0 "$CMT_BIN" check --allow-anomalies --max-leak-bytes 2M dir
echo "ITEM2 ok"

# --- item 3: one bad dump does not sink a job; a truncated dump is read up to its last intact record
mkdir -p job && cp basic.cmt job/a.cmt && "$MKDUMP" many.script job/b.cmt
printf 'CUMEMTRKgarbage' >job/c.cmt; head -c 8192 /dev/zero >>job/c.cmt
expect_rc 0 "$CMT_BIN" report --json --no-symbols job
grep -q "job/c.cmt: unreadable, left out: offset" err.txt || fail "unreadable dump not named: $(cat err.txt)"
python3 - out.txt <<'PY' || fail "unreadable dump not in the JSON"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["anomalies"]["unreadable_dumps"] == 1, r["anomalies"]
u = r["unreadable"]
assert len(u) == 1 and u[0]["file"].endswith("job/c.cmt") and isinstance(u[0]["offset"], int) and u[0]["reason"], u
assert len(r["processes"]) == 2
PY
expect_rc 0 "$CMT_BIN" timeline --csv job
grep -q "job/c.cmt: unreadable" err.txt || fail "timeline: unreadable dump not named"
expect_rc 3 "$CMT_BIN" report job/c.cmt                 # nothing readable: exit 3
# a record corrupt in the middle: unreadable at its offset, the others still read
cp other.cmt job/d.cmt
off=$("$CMT_BIN" dump --raw other.cmt | awk '/ ALLOC /{sub("off=","",$NF); print $NF; exit}')
printf '\x30' | dd of=job/d.cmt bs=1 seek="$off" conv=notrunc 2>/dev/null
expect_rc 0 "$CMT_BIN" report --json --no-symbols job
python3 - out.txt "$off" <<'PY' || fail "a dump corrupt at a record: not left out with its offset"
import json, sys
r = json.load(open(sys.argv[1]))
d = [u for u in r["unreadable"] if u["file"].endswith("job/d.cmt")]
assert d and d[0]["offset"] == int(sys.argv[2]), r["unreadable"]
PY
# a real dump (tracer + fake driver, several writers) cut every 1 KiB: always readable, and every
# record well before the cut is there
if [ -x "${CMT_LIB:-$CMT_BUILD/libcumemtrack.so}" ] && [ -x "$CMT_BUILD/tests/progs/drv_fastbench" ]; then
    LD_LIBRARY_PATH=$CMT_BUILD/tests/fakecuda LD_PRELOAD=${CMT_LIB:-$CMT_BUILD/libcumemtrack.so} \
        CUMEMTRACK_OUTPUT=$PWD/real.cmt "$CMT_BUILD/tests/progs/drv_fastbench" 3000 2 >/dev/null 2>&1 || fail "drv_fastbench"
    "$CMT_BIN" dump --raw real.cmt | awk '{ f = $NF; if (substr(f, 1, 4) == "off=") print substr(f, 5) }' | sort -n >full.off
    size=$(stat -c %s real.cmt); cuts=0
    for ((c = 1024; c < size; c += 1024)); do
        head -c "$c" real.cmt >cut.cmt
        if [ "$c" -lt 4096 ]; then expect_rc 3 "$CMT_BIN" report --no-symbols cut.cmt; continue; fi
        expect_rc 0 "$CMT_BIN" report --json --no-symbols cut.cmt
        "$CMT_BIN" dump --raw cut.cmt | awk '{ f = $NF; if (substr(f, 1, 4) == "off=") print substr(f, 5) }' | sort -n >cut.off
        awk -v c="$c" '$1 + 8192 < c' full.off >want.off
        [ -z "$(comm -23 want.off cut.off)" ] || fail "cut at $c: records before $((c - 8192)) lost"
        cuts=$((cuts + 1))
    done
    [ "$cuts" -ge 100 ] || fail "only $cuts cut points"
fi
echo "ITEM3 ok"
expect_rc 0 "$CMT_BIN" report --json --no-symbols job
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" out.txt || fail "schema: report with unreadable dumps"

# --- item 4: header counters are sanity-checked; check fails on anomalies that make the figures
# untrustworthy unless --allow-anomalies
expect_rc 0 "$CMT_BIN" check --allow-anomalies --max-leak-bytes 2M basic.cmt
expect_rc 1 "$CMT_BIN" check --max-leak-bytes 2M basic.cmt      # basic.cmt frees an unknown pointer
grep -q "check failed: 1 unknown_free: the figures may be wrong" err.txt || fail "unknown frees: no reason"
grep -q "check passed" err.txt && fail "check says passed while failing"
for c in table_full dropped_events; do
    sed "s/^header pid=7/header pid=7 ctr.$c=3/" clean.script >c_$c.script && "$MKDUMP" c_$c.script c_$c.cmt
    expect_rc 1 "$CMT_BIN" check c_$c.cmt
    grep -q "check failed: 3 $c: the figures may be wrong" err.txt || fail "$c: no reason: $(cat err.txt)"
    expect_rc 0 "$CMT_BIN" check --allow-anomalies c_$c.cmt
    grep -q "check warning: 3 $c" err.txt || fail "$c: no warning with --allow-anomalies"
done
# table_full sums four counters: the reason names the tables that were full, with their counts
sed "s/^header pid=7/header pid=7 ctr.pool_table_full=76 ctr.vmm_undo_full=2/" clean.script >tf.script && "$MKDUMP" tf.script tf.cmt
expect_rc 1 "$CMT_BIN" check tf.cmt
grep -q "78 table_full: the figures may be wrong (the tracker's tables were full: memory pools the pool table could not hold (.*): 76; VMM releases or unmaps a refusal could not undo: 2)" err.txt ||
    fail "table_full: the tables are not named: $(cat err.txt)"
grep -q "pointer table" err.txt && fail "table_full blames the pointer table: $(cat err.txt)"
expect_rc 0 "$CMT_BIN" report --no-symbols tf.cmt
grep -q "table_full .* 78  the tracker's tables were full: memory pools the pool table could not hold (.*): 76;" out.txt || fail "report: table_full not broken down"
# a header bit-flip: table_full 2^46 is corruption, not a count
python3 - clean.cmt flip.cmt <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", b, 72 + 8 * 2, 1 << 46)   # counters[CMT_CTR_TABLE_FULL]
open(sys.argv[2], "wb").write(b)
PY
expect_rc 3 "$CMT_BIN" check --allow-anomalies flip.cmt
grep -q "offset 88 (counter table_full)" err.txt || fail "bit-flipped counter not called corruption: $(cat err.txt)"
python3 - clean.cmt ws.cmt <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", b, 72 + 8 * 3, 2)   # write_stopped is 0 or 1
open(sys.argv[2], "wb").write(b)
PY
expect_rc 3 "$CMT_BIN" check --allow-anomalies ws.cmt
# truncated and unreadable dumps fail check; the same with --allow-anomalies passes
head -c $(( $(stat -c %s clean.cmt) - 100 )) clean.cmt >cut2.cmt
expect_rc 1 "$CMT_BIN" check cut2.cmt
grep -q "truncated_dumps" err.txt || fail "truncated dump: no reason"
mkdir -p gate && cp clean.cmt gate/ && cp job/c.cmt gate/
expect_rc 1 "$CMT_BIN" check gate
grep -q "1 unreadable_dumps: the figures may be wrong" err.txt || fail "unreadable dump: no reason"
expect_rc 0 "$CMT_BIN" check --allow-anomalies gate
echo "ITEM4 ok"

# --- item 1: a process still running (this host, its pid alive with the same start time) is
# "running": its live memory is live now, not leaked; check cannot judge it unless --allow-running
sleep 300 & spid=$!
ticks=$(sed 's/.*) //' /proc/$spid/stat | cut -d' ' -f20)   # field 22 of /proc/PID/stat
cat >run.script <<S
header pid=$spid host=$(hostname) start_ticks=$ticks
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G
stack id=1 0x1000
alloc dev=0 ptr=0x100 size=1M stack=1
S
"$MKDUMP" run.script running.cmt || fail mkdump
sed "s/start_ticks=$ticks/start_ticks=$((ticks + 1))/" run.script >other_start.script
"$MKDUMP" other_start.script reused.cmt || fail mkdump      # same pid, another start: not running
expect_rc 0 "$CMT_BIN" report --json --no-symbols running.cmt
python3 - out.txt <<'PY' || { kill $spid; fail "a running process is not reported as running: $(head -c 600 out.txt)"; }
import json, sys
r = json.load(open(sys.argv[1]))
p = r["processes"][0]
assert p["exit"] == "running", p["exit"]
assert p["live_now_bytes"] == 1 << 20, p
assert r["summary"]["leaked_bytes"] == 0 and r["leaks"] == [], r["summary"]
assert r["anomalies"]["died_processes"] == 0 and r["anomalies"]["running_processes"] == 1
assert r["devices"][0]["leaked_bytes"] == 0
PY
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" out.txt || fail "schema: running process"
expect_rc 0 "$CMT_BIN" report --no-symbols running.cmt
grep -q "exit running (1.00 MiB live now" out.txt || fail "text: running not said"
grep -q "killed before exit" out.txt && fail "text: a running process called killed"
expect_rc 1 "$CMT_BIN" check running.cmt
grep -q "cannot judge a running process" err.txt || fail "check: no reason for a running process"
expect_rc 0 "$CMT_BIN" check --allow-running running.cmt
expect_rc 0 "$CMT_BIN" report --json --no-symbols reused.cmt
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["processes"][0]["exit"] == "died" and r["summary"]["leaked_bytes"] == 1 << 20' out.txt ||
    fail "a reused pid (other start time) taken for the running process"
kill $spid; wait $spid 2>/dev/null
expect_rc 0 "$CMT_BIN" report --json --no-symbols running.cmt
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["processes"][0]["exit"] == "died" and r["summary"]["leaked_bytes"] == 1 << 20' out.txt ||
    fail "an ended process still taken for running"
echo "ITEM1 ok"

# --- item 7: a GPU's peak across processes of one host is the simultaneous peak of their merged
# series, not the sum of their own peaks; processes on other hosts cannot share it
gpu() {   # gpu PID HOST T_ALLOC T_FREE: 100 MiB on GPU-aaaa... from T_ALLOC to T_FREE (ms, host clock)
    cat <<S
header pid=$1 host=$2 start_clock=1000000
device ord=0 uuid=GPU-aaaaaaaa-0000-0000-0000-000000000000 name=G pci=0000:10:00.0 total=80G
stack id=1 0x1000
alloc dev=0 ptr=0x100 size=100M stack=1 t=$(( $3 * 1000000 ))
free dev=0 ptr=0x100 t=$(( $4 * 1000000 ))
exit clean t=$(( $4 * 1000000 + 1 ))
S
}
gpu 501 n1 10 20 >p1.script; gpu 502 n1 30 40 >p2.script; gpu 503 n1 15 35 >p3.script; gpu 504 n2 12 13 >p4.script
for i in 1 2 3 4; do "$MKDUMP" p$i.script p$i.cmt || fail mkdump; done
expect_rc 0 "$CMT_BIN" report --json --no-symbols p1.cmt p2.cmt
python3 - out.txt <<'PY' || fail "two processes holding 100 MiB at different times: peak not 100 MiB"
import json, sys
r = json.load(open(sys.argv[1]))
g = r["imbalance"]["gpus"][0]
assert g["peak_bytes"] == 100 << 20, g
assert len(g["peak_processes"]) == 1, g
PY
expect_rc 0 "$CMT_BIN" report --json --no-symbols p1.cmt p2.cmt p3.cmt
python3 - out.txt <<'PY' || fail "overlapping processes: peak not 200 MiB with the two live then"
import json, sys
r = json.load(open(sys.argv[1]))
g = r["imbalance"]["gpus"][0]
assert g["peak_bytes"] == 200 << 20, g
assert sorted(p["pid"] for p in g["peak_processes"]) in ([501, 503], [502, 503]), g
assert all(p["bytes"] == 100 << 20 for p in g["peak_processes"]), g
PY
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" out.txt || fail "schema: peak_processes"
expect_rc 0 "$CMT_BIN" report --json --no-symbols p1.cmt p4.cmt   # another host: another physical GPU
python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["imbalance"]["gpus"][0]; assert g["peak_bytes"] == 200 << 20, g' out.txt ||
    fail "processes on two hosts merged in time"
echo "ITEM7 ok"
