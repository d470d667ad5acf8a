#!/usr/bin/env bash
# GPUs are matched by UUID, never by ordinal: rank 0 with CUDA_VISIBLE_DEVICES=2,3 and rank 1 with
# 0,1 both call their cards 0 and 1, yet the report puts each rank's memory (and rank 0's leak, on
# its ordinal 0) on the right physical card; rank 2 with CUDA_VISIBLE_DEVICES=1 shares card 1 with
# rank 1: shared_gpus[] says who else is on that GPU.
. "$(dirname "$0")/mp_lib.sh.inc"
mkdir -p job
MP_CVD_0=2,3 MP_CVD_1=0,1 MP_CVD_2=1 MP_LEAK_RANK=0 MP_LEAK=4194304 \
    "$MP/launch.sh" torchrun 3 -- "$CMT_BIN" run -o "$PWD/job/%h.%r.%p.cmt" -- "$MP/rank.sh" >job.out 2>job.err \
    || fail "job failed"
report job job
python3 "$MP/check_job.py" job.json --np 3 --leak-rank 0 --gpus 0=2,3 1=0,1 2=1 --shared 1=1,2 --text job.txt \
    || fail "report check"
python3 - job.json <<'PY' || fail "per-GPU merge"
import json, sys
r = json.load(open(sys.argv[1]))
g = {x['uuid'][:17]: x for x in r['imbalance']['gpus']}
# fake UUIDs: GPU-facec0da-PPxx-...; physical card 2 holds rank 0's 4 MiB leak, card 0 only 256 KiB
assert g['GPU-facec0da-0258']['leaked_bytes'] == 4194304, g
assert g['GPU-facec0da-005a']['leaked_bytes'] == 262144, g
assert g['GPU-facec0da-015b']['processes'] == 2 and g['GPU-facec0da-015b']['leaked_bytes'] == 262144, g
assert g['GPU-facec0da-0359']['leaked_bytes'] == 0 and g['GPU-facec0da-0359']['peak_bytes'] == 16 << 20, g
PY
grep -q "shared GPU GPU-facec0da-015b-" job.txt || fail "text report lacks the shared GPU"
echo ok
