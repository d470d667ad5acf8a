#!/usr/bin/env bash
# rank.sh — one rank of the test job, under any launcher (mpirun, launch.sh torchrun|slurm):
# picks its fake GPU from the local rank the launcher gave it and its workload from its rank.
#   CUDA_VISIBLE_DEVICES = MP_NODE * MP_GPUS_PER_NODE + local rank (so simulated nodes use
#   distinct fake cards, as real nodes have distinct UUIDs), unless MP_CVD_<RANK> gives the list.
#   mp_worker PEAK LEAK WORKERS: PEAK = MP_PEAK (x3 on rank MP_SKEW_RANK), LEAK = MP_BASE_LEAK
#   (MP_LEAK on rank MP_LEAK_RANK), WORKERS = MP_WORKERS.
set -u
r=${RANK:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${SLURM_PROCID:-0}}}}
lr=${LOCAL_RANK:-${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-0}}}
cvd_var=MP_CVD_$r
if [ -n "${!cvd_var:-}" ]; then
    export CUDA_VISIBLE_DEVICES=${!cvd_var}
else
    export CUDA_VISIBLE_DEVICES=$(( ${MP_NODE:-0} * ${MP_GPUS_PER_NODE:-4} + lr ))
fi
peak=${MP_PEAK:-16777216} leak=${MP_BASE_LEAK:-262144}
[ "$r" = "${MP_SKEW_RANK:--1}" ] && peak=$((peak * 3))
[ "$r" = "${MP_LEAK_RANK:--1}" ] && leak=${MP_LEAK:-8388608}
exec "$MP_WORKER" "$peak" "$leak" "${MP_WORKERS:-0}"
