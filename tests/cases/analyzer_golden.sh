#!/usr/bin/env bash
# Golden reports of synthetic dumps (tests/golden/*.script -> one dump; tests/golden/NAME/ -> a
# directory of dumps merged into one report): `dump`, text and JSON reports are compared with
# tests/golden/NAME.{dump,report.txt,report.json}, and the data `report --html` embeds (the JSON of its
# cmt-data script element, pretty-printed) with tests/golden/NAME.html.json, so the HTML report is
# checked even where Chromium is missing. UPDATE_GOLDEN=1 rewrites them.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
status=0
# html_data HTML OUT: the embedded JSON data of an HTML report, one key per line
html_data() {
    python3 - "$1" >"$2" <<'P' || fail "no embedded data in $1"
import json, re, sys
h = open(sys.argv[1]).read()
m = re.findall(r'<script type="application/json" id="cmt-data">(.*?)</script>', h, re.S)
assert len(m) == 1, len(m)
print(json.dumps(json.loads(m[0]), indent=1))
P
}
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
    "$CMT_BIN" report --html --no-symbols -o "$n.html" "$n.cmt" || fail "report --html $n"
    html_data "$n.html" "$n.html.json"
    check "$n.html.json" "$n.html.json"
done
for d in "$g"/*/; do
    n=$(basename "$d")
    mkdir -p "$n"
    for s in "$d"*.script; do "$MKDUMP" "$s" "$n/$(basename "$s" .script).cmt" || fail "mkdump $s"; done
    "$CMT_BIN" report --no-symbols "$n" >"$n.report.txt" 2>&1; echo "exit $?" >>"$n.report.txt"
    check "$n.report.txt" "$n.report.txt"
    "$CMT_BIN" report --json --no-symbols "$n" >"$n.report.json" || fail "report --json $n"
    check "$n.report.json" "$n.report.json"
    "$CMT_BIN" report --html --no-symbols -o "$n.html" "$n" || fail "report --html $n"
    html_data "$n.html" "$n.html.json"
    check "$n.html.json" "$n.html.json"
done
[ -n "${UPDATE_GOLDEN:-}" ] && echo "golden files updated" >&2
exit $status
