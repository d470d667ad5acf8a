#!/usr/bin/env bash
# Issue 15 item 1, `run` and the tracer's side: a child still writing its dump when the command
# exits is waited for (--wait) or named, and never summarised as a leak; a dump read while its
# process runs says "running" (the tracer records the process's start time in the header).
set -u
. "$(dirname "$0")/run_lib.sh.inc"
build_helper

# an orphan that outlives the wait: named, live now, not leaked
run_rc 0 run --wait 0 -o "$PWD/a.%p.cmt" -- ./helper alloc 1000 orphan 300
opid=$(sed -n 's/^orphan //p' out.txt)
[ -n "$opid" ] || fail "no orphan pid"
grep -q "run: pid $opid is still running and writing" err.txt || { kill "$opid"; cat err.txt >&2; fail "running child not named"; }
grep -q "running: pid $opid, 4.34 KiB live now" err.txt || { kill "$opid"; cat err.txt >&2; fail "running child's memory not live now"; }
grep -q "leaked: .*(1000 bytes) in 1 allocation at 1 site" err.txt || { kill "$opid"; cat err.txt >&2; fail "running child summarised as a leak"; }
"$CMT_BIN" report --json --no-symbols "$PWD"/a.$opid.cmt >r.json || { kill "$opid"; fail "report"; }
json_check r.json 'p = r["processes"][0]; assert p["exit"] == "running" and p["live_now_bytes"] == 4444, p'
kill "$opid"
while kill -0 "$opid" 2>/dev/null; do sleep 0.1; done
"$CMT_BIN" report --json --no-symbols "$PWD"/a.$opid.cmt >r.json || fail "report"
json_check r.json 'p = r["processes"][0]; assert p["exit"] == "died" and r["summary"]["leaked_bytes"] == 4444, p'

# an orphan that ends within the wait: run waits for it and its leak is a leak
run_rc 0 run -o "$PWD/b.%p.cmt" -- ./helper alloc 1000 orphan 1
grep -q "run: waiting up to 10s for 1 process still writing a dump" err.txt || { cat err.txt >&2; fail "run did not wait"; }
grep -q "still running" err.txt && { cat err.txt >&2; fail "a finished child named as running"; }
grep -q "leaked: .*(5444 bytes) in 2 allocations" err.txt || { cat err.txt >&2; fail "the waited-for child's leak"; }
run_rc 2 run --wait soon -- ./helper alloc 1
echo ok
