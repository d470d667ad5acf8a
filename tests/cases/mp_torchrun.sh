#!/usr/bin/env bash
# A torchrun-style job (RANK LOCAL_RANK WORLD_SIZE TORCHELASTIC_RUN_ID from tests/mp/launch.sh):
# every rank under `cumemtrack run -o DIR/%h.%r.%p.cmt`, each on its own fake GPU (from its local
# rank), rank 2 leaking and rank 1 skewed; `cumemtrack report DIR` names both, in text and JSON.
# Then 8 ranks on 2 simulated nodes (own hostnames through `unshare --uts`, when it works).
. "$(dirname "$0")/mp_lib.sh.inc"
job() { # NAME NP NODES EXTRA-CHECK-ARGS...
    local name=$1 np=$2 nodes=$3; shift 3
    mkdir -p "$name"
    MP_JOB_ID=run-$name MP_LEAK_RANK=2 MP_SKEW_RANK=1 "$MP/launch.sh" torchrun "$np" "$nodes" -- \
        "$CMT_BIN" run -o "$PWD/$name/%h.%r.%p.cmt" -- "$MP/rank.sh" >"$name.out" 2>"$name.err" || fail "$name: job failed"
    [ "$(ls "$name" | wc -l)" = "$np" ] || fail "$name: $(ls "$name" | wc -l) dumps, expected $np"
    for f in "$name"/*; do [[ $(basename "$f") =~ ^[^.]+\.[0-9]+\.[0-9]+\.cmt$ ]] || fail "bad dump name $f (%h.%r.%p)"; done
    report "$name" "$name"
    python3 "$MP/check_job.py" "$name.json" --np "$np" --leak-rank 2 --skew-rank 1 --job-id "run-$name" \
        --text "$name.txt" "$@" || fail "$name: report check"
}
job single 4 1 --hosts 1
if unshare --uts true 2>/dev/null; then
    job twonode 8 2 --hosts 2
    ls twonode | grep -q '^node1\.7\.' || fail "twonode: %h did not expand to the rank's host"
else
    echo "note: unshare --uts unavailable, multi-node part skipped"
fi
echo ok
