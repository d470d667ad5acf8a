#!/usr/bin/env bash
# Golden reports of synthetic dumps (tests/golden/*.script -> one dump; tests/golden/NAME/ -> a
# directory of dumps merged into one report): `dump`, text and JSON reports are compared with
# tests/golden/NAME.{dump,report.txt,report.json}. UPDATE_GOLDEN=1 rewrites them.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
status=0
check() { # NAME FILE
    if [ -n "${UPDATE_GOLDEN:-}" ]; then cp "$2" "$g/$1"; return; fi
    if ! diff -u "$g/$1" "$2" >&2; then echo "golden mismatch: $1" >&2; status=1; fi
}
for s in "$g"/*.script; do
    n=$(basename "$s" .script)
    "$MKDUMP" "$s" "$n.cmt" || fail "mkdump $n"
    "$CMT_BIN" dump "$n.cmt" >"$n.dump" 2>&1; echo "exit $?" >>"$n.dump"
    check "$n.dump" "$n.dump"
    "$CMT_BIN" report --no-symbols "$n.cmt" >"$n.report.txt" 2>&1; echo "exit $?" >>"$n.report.txt"
    check "$n.report.txt" "$n.report.txt"
    "$CMT_BIN" report --json --no-symbols "$n.cmt" >"$n.report.json" || fail "report --json $n"
    check "$n.report.json" "$n.report.json"
done
for d in "$g"/*/; do
    n=$(basename "$d")
    mkdir -p "$n"
    for s in "$d"*.script; do "$MKDUMP" "$s" "$n/$(basename "$s" .script).cmt" || fail "mkdump $s"; done
    "$CMT_BIN" report --no-symbols "$n" >"$n.report.txt" 2>&1; echo "exit $?" >>"$n.report.txt"
    check "$n.report.txt" "$n.report.txt"
    "$CMT_BIN" report --json --no-symbols "$n" >"$n.report.json" || fail "report --json $n"
    check "$n.report.json" "$n.report.json"
done
[ -n "${UPDATE_GOLDEN:-}" ] && echo "golden files updated" >&2
exit $status
