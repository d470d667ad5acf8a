#!/usr/bin/env bash
# cmt-test: long
# Open MPI: `mpirun -np 4 ... cumemtrack run -o DIR/%h.%r.%p.cmt -- tests/mp/rank.sh` over the fake
# driver (OMPI_COMM_WORLD_RANK / _LOCAL_RANK / _SIZE in the headers; CUDA_VISIBLE_DEVICES from
# the local rank in the wrapper), rank 3 leaking and rank 0 skewed: the report names both.
# Installs Debian's openmpi-bin when missing (scripts/deps.sh); skips when it cannot.
. "$(dirname "$0")/mp_lib.sh.inc"
command -v mpirun >/dev/null || "$CMT_ROOT/scripts/deps.sh" openmpi-bin >&2 || true
command -v mpirun >/dev/null || { echo "no mpirun (apt-get install openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi=(mpirun -np 4 --oversubscribe --allow-run-as-root --mca btl self,vader --mca plm_rsh_agent "" --bind-to none
     -x LD_LIBRARY_PATH -x FAKECUDA_DEVICES -x MP_WORKER -x MP_GPUS_PER_NODE -x MP_LEAK_RANK=3 -x MP_SKEW_RANK=0)
mkdir -p job
"${mpi[@]}" "$CMT_BIN" run -o "$PWD/job/%h.%r.%p.cmt" -- "$MP/rank.sh" >job.out 2>job.err || {
    cat job.err; fail "mpirun job failed"; }
[ "$(ls job | wc -l)" = 4 ] || fail "$(ls job | wc -l) dumps, expected 4: $(ls job)"
report job job
python3 "$MP/check_job.py" job.json --np 4 --leak-rank 3 --skew-rank 0 --hosts 1 --text job.txt || fail "report check"
# the header came from Open MPI's variables
python3 - job.json <<'PY' || fail "headers"
import json, sys
r = json.load(open(sys.argv[1]))
assert all(p['world_size'] == 4 for p in r['processes']), r['processes']
assert sorted(x['local_rank'] for x in r['ranks']) == [0, 1, 2, 3]
PY
echo ok
