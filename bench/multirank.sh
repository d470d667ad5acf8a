#!/usr/bin/env bash
# multirank.sh — the "Multi-rank merge" figures of BENCHMARKS.md: a job of MR_DUMPS (256) ranks,
# each a traced cmtbench process on the fake driver (FAKECUDA_FAST=1) making MR_PAIRS (50000)
# cuMemAlloc/cuMemFree pairs (~100 k events per dump), one rank leaking and one skewed; then
# `cumemtrack report` over the job directory, timed with its peak RSS (cmtbench exec), on 1 and 2
# threads (CUMEMTRACK_THREADS) and over a quarter of the dumps (memory grows with dumps, not
# events). Prints a Markdown section on stdout, or appends it to FILE.
#   usage: bench/multirank.sh [FILE]     (make bench calls it; needs `make all test-programs`
#   and build/bench/cmtbench)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$root/build}
n=${MR_DUMPS:-256} pairs=${MR_PAIRS:-50000} par=${MR_JOBS:-$(nproc)}
bench=$B/bench/cmtbench
for f in "$bench" "$B/cumemtrack" "$B/libcumemtrack.so" "$B/tests/fakecuda/libcuda.so.1"; do
    [ -e "$f" ] || { echo "multirank.sh: $f missing (make all test-programs $B/bench/cmtbench)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmt-multirank.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/job" "$tmp/quarter"
# private copies: a rebuild in the tree while this runs must not change what is measured
cp "$B/libcumemtrack.so" "$B/cumemtrack" "$tmp/"
lib=$tmp/libcumemtrack.so cmt=$tmp/cumemtrack
export LD_LIBRARY_PATH=$B/tests/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} FAKECUDA_FAST=1 FAKECUDA_DEVICES=8
one_rank() { # RANK
    local r=$1 live=0 p=$pairs
    [ "$r" = 3 ] && live=20000   # a skewed rank: 20000 more allocations live at once
    [ "$r" = 5 ] && p=$((pairs * 2))
    RANK=$r LOCAL_RANK=$((r % 8)) WORLD_SIZE=$n TORCHELASTIC_RUN_ID=bench CUDA_VISIBLE_DEVICES=$((r % 8)) \
        LD_PRELOAD=$lib CUMEMTRACK_OUTPUT="$tmp/job/%h.%r.%p.cmt" \
        "$bench" pairs cuda 16 "$p" 1 "$live" >/dev/null
}
export -f one_rank
export B tmp pairs n bench lib
t0=$EPOCHREALTIME
seq 0 $((n - 1)) | xargs -P "$par" -I{} bash -c 'one_rank {}'
gen_s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
ndumps=$(ls "$tmp/job" | wc -l)
bytes=$(du -sb "$tmp/job" | cut -f1)
ls "$tmp/job" | head -n $((n / 4)) | while read -r f; do ln "$tmp/job/$f" "$tmp/quarter/$f"; done
events=$("$cmt" report --json --no-symbols "$tmp/job" | python3 -c '
import json, sys; r = json.load(sys.stdin); print(sum(p["events"] for p in r["processes"]))' 2>/dev/null || echo "?")
measure() { # THREADS DIR ARGS... -> "wall_s maxrss_kb"
    local t=$1 d=$2; shift 2
    # warm the page cache first: the figure is the analyzer, not the disk
    cat "$d"/* >/dev/null
    CUMEMTRACK_THREADS=$t "$bench" exec "$cmt" report --no-symbols "$@" "$d" |
        awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) } END { print v["wall_s"], v["maxrss_kb"], v["status"] }'
}
read -r w1 r1 s1 < <(measure 1 "$tmp/job")
read -r w2 r2 s2 < <(measure 2 "$tmp/job")
read -r wj rj sj < <(measure 2 "$tmp/job" --json)
read -r wq rq sq < <(measure 2 "$tmp/quarter")
outl=$("$cmt" report --no-symbols "$tmp/job" | grep '  outlier: ' | sed 's/^ *//' || true)
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
section=$(cat <<MD

## Multi-rank merge

\`cumemtrack report DIR\` over a whole job: $ndumps dumps (one per rank, $(awk -v b="$bytes" 'BEGIN { printf "%.0f MiB", b / 1048576 }') in all,
$events events, ~$((pairs * 2 / 1000)) k events per rank; rank 3 holds 20000 more allocations live at once,
rank 5 makes twice the calls), written by the tracer over the fake driver ($gen_s s to generate,
$par at a time). Page cache warm; \`--no-symbols\`; $(nproc) CPUs; \`bench/multirank.sh\`
(MR_DUMPS, MR_PAIRS).

| report | threads | wall | peak RSS |
|---|---|---|---|
| text, $ndumps dumps | 1 | ${w1} s | $(mib "$r1") |
| text, $ndumps dumps | 2 | ${w2} s | $(mib "$r2") |
| JSON, $ndumps dumps | 2 | ${wj} s | $(mib "$rj") |
| text, $((n / 4)) dumps | 2 | ${wq} s | $(mib "$rq") |

Each dump is replayed on its own (streaming: memory follows live allocations and distinct
stacks, never the number of events) on CUMEMTRACK_THREADS threads (default: the CPUs, at most
8), and only small per-process summaries are kept and merged (per-GPU by UUID, per-rank).
Memory grows with the number of dumps (the quarter-size job above), not with their length.
Outliers found: $(echo "$outl" | sed 's/^outlier: //' | paste -sd ';' | sed 's/;/; /g').
MD
)
if [ $# -ge 1 ]; then printf '%s\n' "$section" >>"$1"; else printf '%s\n' "$section"; fi
