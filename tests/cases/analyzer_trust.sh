#!/usr/bin/env bash
# Issue 15 items 1-4, 6-8: results a CI gate can trust (running processes, duplicate dumps,
# salvaged/unreadable dumps, header sanity and anomalies in check, full JSON lists, the merged
# per-GPU peak, conflicting options).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
"$MKDUMP" "$g/basic.script" basic.cmt || fail mkdump

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
