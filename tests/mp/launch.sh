#!/usr/bin/env bash
# launch.sh — a stand-in for torchrun / srun in the tests: starts NP copies of CMD with the
# environment the real launcher gives each rank, optionally spread over NODES simulated hosts
# (each node's ranks run in their own UTS namespace with hostname nodeK when `unshare --uts`
# works, i.e. as root; otherwise every node keeps this host's name). Waits for all; exits with
# the first non-zero status.
#   usage: launch.sh torchrun|slurm NP [NODES] -- CMD [ARGS...]
#   torchrun: RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK TORCHELASTIC_RUN_ID MASTER_ADDR MASTER_PORT
#   slurm:    SLURM_PROCID SLURM_LOCALID SLURM_NTASKS SLURM_NODEID SLURM_JOB_ID SLURM_NNODES
# MP_JOB_ID sets the job id (default 4242). MP_NODE is exported too (the node index) for the
# test's rank wrapper.
set -u
style=$1 np=$2; shift 2
nodes=1
[ "${1:-}" != "--" ] && { nodes=$1; shift; }
[ "${1:-}" = "--" ] && shift
job=${MP_JOB_ID:-4242}
per=$(( (np + nodes - 1) / nodes ))
can_uts=0
unshare --uts true 2>/dev/null && can_uts=1
pids=()
for ((r = 0; r < np; r++)); do
    node=$((r / per)) local=$((r % per))
    envs=(MP_NODE=$node)
    case $style in
        torchrun) envs+=(RANK=$r LOCAL_RANK=$local WORLD_SIZE=$np LOCAL_WORLD_SIZE=$per GROUP_RANK=$node
                         TORCHELASTIC_RUN_ID=$job MASTER_ADDR=127.0.0.1 MASTER_PORT=29500) ;;
        slurm) envs+=(SLURM_PROCID=$r SLURM_LOCALID=$local SLURM_NTASKS=$np SLURM_NODEID=$node
                      SLURM_JOB_ID=$job SLURM_NNODES=$nodes) ;;
        *) echo "launch.sh: unknown style $style" >&2; exit 2 ;;
    esac
    if [ "$nodes" -gt 1 ] && [ $can_uts = 1 ]; then
        env "${envs[@]}" unshare --uts sh -c 'hostname "$0" && exec "$@"' "node$node" "$@" &
    else
        env "${envs[@]}" "$@" &
    fi
    pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || { s=$?; [ $rc = 0 ] && rc=$s; }; done
exit $rc
