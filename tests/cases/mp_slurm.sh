#!/usr/bin/env bash
# A Slurm-style job (SLURM_PROCID SLURM_LOCALID SLURM_NTASKS SLURM_JOB_ID, as srun sets them, from tests/mp/launch.sh):
# every rank under `cumemtrack run -o DIR/%h.%r.%p.cmt`, each on its own fake GPU (from its local
# rank), rank 2 leaking and rank 1 skewed; `cumemtrack report DIR` names both, in text and JSON.
# Then 8 ranks on 2 simulated nodes (own hostnames through `unshare --uts`, when it works).
. "$(dirname "$0")/mp_lib.sh.inc"
launcher_case slurm
