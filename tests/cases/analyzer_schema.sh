#!/usr/bin/env bash
# JSON reports (every golden scenario, a directory, suppressions, a corrupt-free run with
# escaping-worthy strings) validate against docs/report-schema.json (jsonschema when installed,
# else tests/tools/json_validate.py's minimal validator; both run when both are there).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
docs=()
for s in "$g"/*.script; do
    n=$(basename "$s" .script); "$MKDUMP" "$s" "$n.cmt" || fail mkdump
    "$CMT_BIN" report --json "$n.cmt" >"$n.json" || fail "report $n"; docs+=("$n.json")
done
mkdir -p imb
for s in "$g"/imbalance/*.script; do "$MKDUMP" "$s" "imb/$(basename "$s" .script).cmt" || fail "mkdump $s"; done
"$CMT_BIN" report --json --top 2 -o imb.json imb || fail "report dir"; docs+=(imb.json)
printf 'header pid=9 host="we\\"ird\\\\host" cmd="a\tb \x01c"\ninfo key=k value=v\nexit clean\n' | "$MKDUMP" - esc.cmt
"$CMT_BIN" report --json esc.cmt >esc.json || fail "report esc"; docs+=(esc.json)
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" "${docs[@]}" || fail "schema validation"
echo "ok: ${#docs[@]} reports valid"
