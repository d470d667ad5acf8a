# The examples under cumemtrack run on the fake GPU: train_leak leaks 4 KiB per iteration with
# cache_attention_mask on the stack; dp_skew's imbalance names device 0's UUID; oom reports one
# OOM of the chunk size on device 0. Checked through `report --json` and the run summary.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
tl=$(need_example train_leak) dp=$(need_example dp_skew) oom=$(need_example oom)

mkdir tl
run_rc 0 run -o "tl/%h.%p.cmt" -- "$tl" 10
grep -q "train_leak: 10 iterations" out.txt || fail "train_leak did not say what it did"
grep -q "^cumemtrack: leaked: 40.0 KiB (40960 bytes) in 10 allocations at 1 site" err.txt ||
    { cat err.txt >&2; fail "train_leak: wrong leak summary"; }
"$CMT_BIN" report --json tl >tl.json || fail "report failed"
json_check tl.json '
leaks = r["leaks"]
assert len(leaks) == 1, leaks
l = leaks[0]
assert l["bytes"] == 40960 and l["allocations"] == 10 and l["kind"] == "device", l
fns = [f.get("function") for f in l["frames"]]
assert "cache_attention_mask" in fns, fns
assert fns.index("cache_attention_mask") < fns.index("main"), fns
d = [d for d in r["devices"] if d["ordinal"] == 0][0]
assert d["leaked_bytes"] == 40960 and d["leaked_allocations"] == 10, d
assert d["peak_bytes"] >= (48 << 20), d
assert r["oom"] == [], r["oom"]'

mkdir dp
run_rc 0 run -o "dp/%h.%p.cmt" -- "$dp" 4
grep -q "dp_skew: 4 devices" out.txt || fail "dp_skew did not say what it did"
[ "$(grep -c GPU- <(grep '^cumemtrack: peak:' err.txt | tr ';' '\n'))" -eq 4 ] ||
    { cat err.txt >&2; fail "dp_skew: the peak line does not list 4 GPUs"; }
"$CMT_BIN" report --json dp >dp.json || fail "report failed"
json_check dp.json '
devs = {d["ordinal"]: d for d in r["devices"]}
assert sorted(devs) == [0, 1, 2, 3], devs
im = r["imbalance"]
assert im["outlier_uuid"] == devs[0]["uuid"], (im, devs[0])
assert 1.4 < im["peak_max_over_mean"] < 1.6, im
assert devs[0]["uuid"] in im["verdict"], im
assert abs(devs[0]["peak_bytes"] / devs[1]["peak_bytes"] - 1.8) < 0.01, devs
assert r["leaks"] == [], r["leaks"]'

mkdir om
FAKECUDA_MEM_MB=256 run_rc 0 run -o "om/%h.%p.cmt" -- "$oom" 64
grep -q "failed with cudaErrorMemoryAllocation" out.txt || fail "oom did not report the failure"
grep -q "^cumemtrack: OOM: 1 failed allocation" err.txt || { cat err.txt >&2; fail "oom: wrong OOM summary"; }
"$CMT_BIN" report --json om >om.json || fail "report failed"
json_check om.json '
assert len(r["oom"]) == 1, r["oom"]
o = r["oom"][0]
assert o["requested_bytes"] == 64 << 20 and o["device"] == 0, o
assert o["live_bytes"] == 256 << 20, o
fns = [f.get("function") for f in o["frames"]]
assert "oom_grow" in fns, fns
assert r["leaks"] == [], r["leaks"]'
echo ok
