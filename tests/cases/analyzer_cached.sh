#!/usr/bin/env bash
# Issue 14 leftover: bytes a caching allocator holds at exit are not leaks anywhere. The text
# report's devices table (LEAKED), the JSON devices[].leaked_bytes, imbalance.gpus[].leaked_bytes,
# the per-rank view and the HTML processes agree with the leaks list (summary.leaked_bytes); the
# cache is shown on its own (cached_bytes, the "held by caching allocators" section). Synthetic
# dump: 1 MiB leaked by the application, 8 MiB held by an allocator in libpool.so (named by
# --caching-allocator, which matches modules as well as functions).
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
cat >c.script <<'S'
header pid=42 rank=0 world=1
device ord=0 uuid=GPU-cccccccc-0000-0000-0000-000000000000 name=G pci=0000:10:00.0 total=16G
module id=1 base=0x400000 path=/nonexistent/app seg=0x0:0x10000:5
module id=2 base=0x7f0000000000 path=/nonexistent/libpool.so seg=0x0:0x10000:5
stack id=1 0x401234
stack id=2 0x7f0000001234 0x401300
alloc dev=0 ptr=0x100000 size=1M stack=1
alloc dev=0 ptr=0x200000 size=8M stack=2
exit clean
S
"$MKDUMP" c.script c.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" report --no-symbols --caching-allocator libpool c.cmt
grep -q "^cumemtrack: 1.00 MiB leaked at 1 site" out.txt || { cat out.txt; fail "summary"; }
grep -q "^held by caching allocators at exit" out.txt || { cat out.txt; fail "no cached section"; }
row=$(sed -n '/^devices/,/^$/p' out.txt | grep "GPU-cccccccc")
[ "$(echo "$row" | awk '{print $7, $8}')" = "1.00 MiB" ] || { cat out.txt; fail "devices LEAKED counts the cache: $row"; }
[ "$(echo "$row" | awk '{print $5, $6}')" = "9.00 MiB" ] || fail "devices PEAK must still count the cache: $row"
expect_rc 0 "$CMT_BIN" report --json --no-symbols --caching-allocator libpool c.cmt
python3 - out.txt <<'P' || fail "JSON leak figures count the cache"
import json, sys
d = json.load(open(sys.argv[1]))
M = 1 << 20
assert d["summary"]["leaked_bytes"] == M and d["summary"]["cached_bytes"] == 8 * M, d["summary"]
dev = [x for x in d["devices"] if x["uuid"].startswith("GPU-cccc")][0]
assert dev["leaked_bytes"] == M and dev["leaked_allocations"] == 1 and dev["peak_bytes"] == 9 * M, dev
assert d["imbalance"]["gpus"][0]["leaked_bytes"] == M, d["imbalance"]
P
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" out.txt || fail schema
expect_rc 0 "$CMT_BIN" report --html --no-symbols --caching-allocator libpool -o c.html c.cmt
python3 - <<'P' || fail "HTML leak figures count the cache"
import json, re
d = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open("c.html").read(), re.S).group(1))
assert d["processes"][0]["leaked"] == 1 << 20 and d["gpus"][0]["leaked"] == 1 << 20, (d["processes"], d["gpus"])
P
# without the rule the 8 MiB are a leak again, in every figure
expect_rc 0 "$CMT_BIN" report --no-symbols c.cmt
sed -n '/^devices/,/^$/p' out.txt | grep "GPU-cccccccc" | grep -q " 9.00 MiB  *9.00 MiB " || { cat out.txt; fail "no rule: leak"; }
echo ok
