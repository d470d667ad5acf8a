#!/usr/bin/env bash
# bench/run.sh — the driver behind `make bench`; writes BENCHMARKS.md (or the path given as $1).
#
# Runs bench/cmtbench (see its header) on the fake CUDA driver with FAKECUDA_FAST=1, with and
# without LD_PRELOAD=build/libcumemtrack.so, BENCH_REPS times (default 7). Every repetition runs
# all the configurations of a section one after another, so a ratio is computed inside one
# repetition from runs made side by side; each figure is reported as median (min–max) over the
# repetitions. Sections:
#   1. ns per cuMemAlloc_v2+cuMemFree_v2 pair: no tracker, CUMEMTRACK_DEPTH 0/8/32/64 (the caller's
#      stack is really that deep);
#   2. the same pattern through malloc/free under heaptrack, depth 32, vs ours at depth 32;
#   3. two threads vs one (tracker on, depth 0 and 32);
#   4. dump bytes per pair; tracker memory per live allocation (RSS with vs without the tracker);
#   5. the analyzer: events/s and peak RSS on two dumps with the same live set, different sizes;
#      and on moving peaks (issue 28): 1 M live, then random-order pairs whose replacement is the
#      freed size (flat), one byte more (rising: a new peak every pair) or 256 + 0-255 bytes (walk);
#   6. the patterns of issue 16, each tracked run beside its untracked run in the same repetition:
#      10 000 call sites round robin (and heaptrack --raw on it), caller depth changing on every
#      call (64 stacks), random-order frees with 1 M live, 2 threads / 1 against the untracked
#      program's ratio (wall clock, no target: not resolvable on 2 shared cores) and CPU time per
#      pair (the figure); stream-ordered pairs on a created stream (depth 0); the analyzer on
#      random churn at 1 M (flat, rising, walk) and 100 k live (events/s), and its peak memory per
#      live allocation. Each figure: median, minimum, spread (max - min), and a flag
#      when the repetitions fall into two separate groups (bimodal: explained in the notes).
# Benchmarks assert nothing: a missed target is reported, never a failure.
set -u
OUT=${1:-BENCHMARKS.md}
B=${BUILD:-build}
REPS=${BENCH_REPS:-7}
ROOT=$(pwd)
BIN=$ROOT/$B/bench/cmtbench
LIB=$ROOT/$B/libcumemtrack.so
SHIM=$ROOT/$B/bench/floor_shim.so # the random row's floor (bench/floor_shim.c)
ANALYZER=$ROOT/$B/cumemtrack
FAKE=$ROOT/$B/tests/fakecuda
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cmtbench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
R=$TMP/r
mkdir -p "$R"
export FAKECUDA_FAST=1 CUMEMTRACK_QUIET=1
export LD_LIBRARY_PATH=$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset CUMEMTRACK_DEPTH CUMEMTRACK_DISABLE LD_PRELOAD

# Pair counts per run (the figures are per pair; these only set the run lengths).
N_FAST=${BENCH_N_FAST:-2000000}   # untracked runs
N_TRK=${BENCH_N_TRK:-1000000}     # tracked runs (also the dump-size run: >= 1M pairs)
N_THR_T=${BENCH_N_THR_T:-3000000}  # section 3 (threads), tracked runs: ~0.5 s each, so that the
N_THR_U=${BENCH_N_THR_U:-10000000} # ratios are not thread start-up noise; untracked runs
THR_ROUNDS=${BENCH_THR_ROUNDS:-3}  # section 3 rounds per repetition
N_HT=${BENCH_N_HT:-100000}        # heaptrack runs
N_LIVE=${BENCH_N_LIVE:-1000000}   # live allocations for the memory figure
AN_LIVE=${BENCH_AN_LIVE:-100000}  # analyzer dumps: live set
AN_SMALL=${BENCH_AN_SMALL:-5000000}  # analyzer dumps: churn pairs (small: >= 10M events)
AN_REPS=${BENCH_AN_REPS:-5}          # analyzer repetitions (symbolizing runs are slow)
AN_BIG=${BENCH_AN_BIG:-10000000}     # analyzer dumps: churn pairs (big)
N_PAT=${BENCH_N_PAT:-300000}         # section 6 pattern runs (sites, depths, stream-ordered)
N_RND=${BENCH_N_RND:-2000000}        # section 6 random-order frees: pairs per run (~1 s: see the row's note)
RND_LIVE=${BENCH_RND_LIVE:-1000000}  # section 6 random-order frees: live allocations
AN_CHURN=${BENCH_AN_CHURN:-5000000}  # section 6 analyzer churn dumps: random-order pairs after the live set
MP_LIVE=${BENCH_MP_LIVE:-1000000}    # section 5 moving peaks: live allocations
MP_PAIRS=${BENCH_MP_PAIRS:-2000000}  # section 5 moving peaks: random-order pairs after them
MP_PATS="random rising walk"         # cmtbench's patterns: flat, rising, random walk
SITES=10000

log() { echo "bench: $*" >&2; }
add() { echo "$2" >>"$R/$1"; }                         # add KEY VALUE
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
# cpu_ns: CPU time (user + sys) per pair of the last run, all threads together
cpu_ns() { awk -v u="$(field user_ns <<<"$LINE")" -v s="$(field sys_ns <<<"$LINE")" 'BEGIN { if (u != "") printf("%.3f\n", u + s) }'; }
# fig KEY [SCALE]: "median (min–max)" of the values recorded under KEY
fig() {
    local f=$R/$1
    [ -s "$f" ] || { echo "n/a"; return; }
    sort -g "$f" | awk -v s="${2:-1}" '{ v[NR] = $1 * s } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        p = (m >= 100 || m == int(m)) ? "%.0f" : (m >= 10 ? "%.1f" : (m >= 1 ? "%.2f" : "%.3f"));
        printf(p " (" p "–" p ")", m, v[1], v[NR]) }'
}
# stat3 KEY: "median | minimum | spread (max - min)" of KEY's values (table cells)
stat3() {
    local f=$R/$1
    [ -s "$f" ] || { echo "n/a | | "; return; }
    sort -g "$f" | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        p = (m >= 100 || m == int(m)) ? "%.0f" : (m >= 10 ? "%.1f" : (m >= 1 ? "%.2f" : "%.3f"))
        printf(p " | " p " | " p, m, v[1], v[NR] - v[1]) }'
}
# shape KEY: "bimodal: LOW-HIGH (n) / LOW-HIGH (n)" when the sorted values have a gap wider than a
# quarter of the median with at least two values on each side; else "one group"
shape() {
    local f=$R/$1
    [ -s "$f" ] || { echo; return; }
    sort -g "$f" | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; g = 0; at = 0
        for (i = 2; i <= NR; i++) if (v[i] - v[i - 1] > g) { g = v[i] - v[i - 1]; at = i }
        if (m != 0 && g > 0.25 * (m < 0 ? -m : m) && at > 2 && at <= NR - 1)
            printf("**bimodal**: %.3g–%.3g (%d) / %.3g–%.3g (%d)", v[1], v[at - 1], at - 1, v[at], v[NR], NR - at + 1)
        else print "one group" }'
}
median() { [ -s "$R/$1" ] && sort -g "$R/$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "nan"; else printf("%.4f\n", a / b) }'; }
sub_() { awk -v a="$1" -v b="$2" 'BEGIN { printf("%.3f\n", a - b) }'; }
verdict() { # verdict VALUE OP TARGET -> "met" / "MISSED by X%"
    awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
        ok = op == "<=" ? v <= t : v >= t
        if (v == "" || v == "n/a") { print "n/a"; exit }
        if (ok) print "met"; else printf("**missed** by %.1f%%\n", op == "<=" ? (v / t - 1) * 100 : (1 - v / t) * 100) }'
}

# pairs OUTVAR DEPTHENV ARGS...: runs cmtbench pairs; DEPTHENV "-" = untracked, else CUMEMTRACK_DEPTH.
# Leaves the output line in $LINE and the dump (if any) in $DUMP.
DUMP=
LINE=
pairs() {
    local d=$1
    shift
    rm -f "$TMP"/*.cmt
    if [ "$d" = - ]; then
        LINE=$(timeout 300 "$BIN" pairs "$@")
        DUMP=
    else
        LINE=$(env ${EXTRA:-} CUMEMTRACK_OUTPUT=$TMP/run.cmt CUMEMTRACK_DEPTH=$d LD_PRELOAD=$LIB timeout 300 "$BIN" pairs "$@")
        DUMP=$TMP/run.cmt
    fi
    [ -n "$LINE" ] || log "run failed: depth=$d $*"
}

[ -x "$BIN" ] && [ -f "$LIB" ] && [ -f "$FAKE/libcuda.so.1" ] || {
    echo "bench: build first: make all $B/tests/fakecuda/libcuda.so.1 $B/bench/cmtbench" >&2
    exit 1
}
START=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
# cpu_ticks: "steal total" of /proc/stat's cpu line (a virtual machine's steal: time the host ran
# something else while this guest wanted its CPUs)
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t; exit }' /proc/stat; }
TICKS0=$(cpu_ticks)
# the machine's primitives (cmtbench prims), five times before the rows: medians in the header
for i in 1 2 3 4 5; do
    l=$("$BIN" prims)
    add prim_rdtsc "$(field rdtsc_ns <<<"$l")"
    add prim_xchg "$(field xchg_ns <<<"$l")"
done

# ---- 1 + 2 + 3 + 4a: repetitions, configurations side by side ------------------------------
HEAPTRACK=$(command -v heaptrack || true)
for rep in $(seq 1 "$REPS"); do
    log "repetition $rep/$REPS"
    pairs - cuda 32 "$N_FAST" 1; base=$(field ns_per_pair <<<"$LINE"); add base "$base"
    for d in 0 8 32 64; do
        pairs "$d" cuda "$d" "$N_TRK" 1
        ns=$(field ns_per_pair <<<"$LINE")
        add "trk$d" "$ns"
        add "ovh$d" "$(sub_ "$ns" "$base")"
        add "sys$d" "$(awk -v u="$(field user_ns <<<"$LINE")" -v s="$(field sys_ns <<<"$LINE")" 'BEGIN { if (u + s > 0) printf("%.0f", 100 * s / (u + s)) }')"
        if [ -n "$DUMP" ] && [ -f "$DUMP" ]; then
            add "dump$d" "$(ratio "$(stat -c %s "$DUMP")" "$(field pairs_total <<<"$LINE")")"
        fi
    done
    # variants of the tracker side by side: the coarse event clock at depth 0, and depth 32 without
    # the call-site stack cache (every stack unwound by libunwind)
    EXTRA=CUMEMTRACK_CLOCK=coarse pairs 0 cuda 0 "$N_TRK" 1
    ns=$(field ns_per_pair <<<"$LINE"); add trk0c "$ns"; add ovh0c "$(sub_ "$ns" "$base")"
    EXTRA=CUMEMTRACK_STACK_CACHE=0 pairs 32 cuda 32 "$N_TRK" 1
    ns=$(field ns_per_pair <<<"$LINE"); add trk32n "$ns"; add ovh32n "$(sub_ "$ns" "$base")"
    # 2: malloc/free at depth 32, plain and under heaptrack (default mode: recording piped to
    # heaptrack_interpret; --raw: recording only, compressed to a file)
    pairs - malloc 32 "$N_FAST" 1; mbase=$(field ns_per_pair <<<"$LINE"); add mbase "$mbase"
    if [ -n "$HEAPTRACK" ]; then
        for mode in default raw; do
            flag=; [ $mode = raw ] && flag=--raw
            l=$(timeout 300 "$HEAPTRACK" $flag -o "$TMP/ht" "$BIN" pairs malloc 32 "$N_HT" 1 </dev/null 2>&1 | grep ns_per_pair)
            rm -f "$TMP"/ht*
            ht=$(field ns_per_pair <<<"$l")
            [ -n "$ht" ] || { log "heaptrack run failed"; continue; }
            add "ht_$mode" "$ht"
            hto=$(sub_ "$ht" "$mbase"); add "htovh_$mode" "$hto"
            add "htratio_$mode" "$(ratio "$(tail -1 "$R/ovh32")" "$hto")"
        done
    fi
    # 3: threads (throughput, all threads together); THR_ROUNDS rounds a repetition: its CPU-time
    # quotient varies by ±20 % from one round to the next on 2 shared cores, so it gets more samples
    for ((q = 0; q < THR_ROUNDS; q++)); do
        for d in 0 32; do
            pairs "$d" cuda 32 "$N_THR_T" 1; t1=$(field mpairs_per_s <<<"$LINE"); add "thr1_$d" "$t1"; c1=$(cpu_ns)
            pairs "$d" cuda 32 "$N_THR_T" 2; t2=$(field mpairs_per_s <<<"$LINE"); add "thr2_$d" "$t2"; c2=$(cpu_ns)
            add "thrratio_$d" "$(ratio "$t2" "$t1")"
            add "thrcpu_$d" "$(ratio "$c2" "$c1")"
        done
        pairs - cuda 32 "$N_THR_U" 1; u1=$(field mpairs_per_s <<<"$LINE"); add thr1_u "$u1"; c1=$(cpu_ns)
        pairs - cuda 32 "$N_THR_U" 2; u2=$(field mpairs_per_s <<<"$LINE"); add thr2_u "$u2"; c2=$(cpu_ns)
        add thrratio_u "$(ratio "$u2" "$u1")"
        add thrcpu_u "$(ratio "$c2" "$c1")"
        add thrvsu_32 "$(ratio "$t2" "$t1" | awk -v u="$(ratio "$u2" "$u1")" '{ printf("%.4f", $1 / u) }')"
        add thrcpuvsu_32 "$(ratio "$(tail -1 "$R/thrcpu_32")" "$(tail -1 "$R/thrcpu_u")")"
    done
    # 6: the patterns of issue 16, tracked beside untracked
    for pat in sites:$SITES depths:64; do
        k=${pat%%:*}
        pairs - cuda 32 "$N_PAT" 1 0 "$pat"; b=$(field ns_per_pair <<<"$LINE"); add "p_${k}_base" "$b"
        pairs 32 cuda 32 "$N_PAT" 1 0 "$pat"; ns=$(field ns_per_pair <<<"$LINE")
        add "p_${k}_trk" "$ns"; [ -n "$ns" ] && [ -n "$b" ] && add "p_${k}_ovh" "$(sub_ "$ns" "$b")"
    done
    if [ -n "$HEAPTRACK" ]; then
        pairs - malloc 32 "$N_HT" 1 0 sites:$SITES; mb=$(field ns_per_pair <<<"$LINE")
        l=$(timeout 300 "$HEAPTRACK" --raw -o "$TMP/ht" "$BIN" pairs malloc 32 "$N_HT" 1 0 sites:$SITES </dev/null 2>&1 | grep ns_per_pair)
        rm -f "$TMP"/ht*
        ht=$(field ns_per_pair <<<"$l")
        if [ -n "$ht" ] && [ -n "$mb" ]; then
            hto=$(sub_ "$ht" "$mb"); add p_sites_htovh "$hto"
            add p_sites_htratio "$(ratio "$(tail -1 "$R/p_sites_ovh")" "$hto")"
        else
            log "heaptrack --raw on sites:$SITES failed"
        fi
    fi
    pairs - cuda 0 "$N_RND" 1 "$RND_LIVE" random; b=$(field ns_per_pair <<<"$LINE"); add p_random_base "$b"
    pairs 0 cuda 0 "$N_RND" 1 "$RND_LIVE" random; ns=$(field ns_per_pair <<<"$LINE")
    add p_random_trk "$ns"; ovh=
    [ -n "$ns" ] && [ -n "$b" ] && { ovh=$(sub_ "$ns" "$b"); add p_random_ovh "$ovh"; }
    if [ -f "$SHIM" ]; then # the floor: a shim that only keeps the address -> size table
        l=$(LD_PRELOAD=$SHIM timeout 300 "$BIN" pairs cuda 0 "$N_RND" 1 "$RND_LIVE" random)
        ns=$(field ns_per_pair <<<"$l")
        if [ -n "$ns" ] && [ -n "$b" ]; then
            fl=$(sub_ "$ns" "$b"); add p_random_floor "$fl"
            # issue 28's target: the tracker's added over the floor's, both beside the same untracked run
            [ -n "$ovh" ] && add p_random_over_floor "$(sub_ "$ovh" "$fl")"
        fi
        for k in 8 32; do # the cliff: the same shim with K dependent multiply-adds per call
            l=$(FLOOR_SHIM_STEPS=$k LD_PRELOAD=$SHIM timeout 300 "$BIN" pairs cuda 0 "$N_RND" 1 "$RND_LIVE" random)
            ns=$(field ns_per_pair <<<"$l"); [ -n "$ns" ] && [ -n "$b" ] && add "p_random_floor$k" "$(sub_ "$ns" "$b")"
        done
    fi
    # stream-ordered pairs (cuMemAllocAsync + cuMemFreeAsync on a created stream), depth 0
    pairs - async 0 "$N_PAT" 1; b=$(field ns_per_pair <<<"$LINE"); add p_async_base "$b"
    pairs 0 async 0 "$N_PAT" 1; ns=$(field ns_per_pair <<<"$LINE")
    add p_async_trk "$ns"; [ -n "$ns" ] && [ -n "$b" ] && add p_async_ovh "$(sub_ "$ns" "$b")"
    # 4b: memory per live allocation
    l0=$(timeout 300 "$BIN" live "$N_LIVE")
    l1=$(CUMEMTRACK_OUTPUT=$TMP/live.cmt CUMEMTRACK_DEPTH=32 LD_PRELOAD=$LIB timeout 300 "$BIN" live "$N_LIVE")
    rm -f "$TMP"/live.cmt*
    for k in anon_delta file_delta heap_delta; do
        a=$(field $k <<<"$l0"); b=$(field $k <<<"$l1")
        [ -n "$a" ] && [ -n "$b" ] && add "mem_$k" "$(ratio "$(sub_ "$b" "$a")" "$N_LIVE")"
        [ -n "$a" ] && add "fake_$k" "$(ratio "$a" "$N_LIVE")"
    done
done

# ---- 5: analyzer -------------------------------------------------------------------------
AN_STATUS=
an_reason() { AN_STATUS="not measured: $*"; log "$AN_STATUS"; }
if [ ! -x "$ANALYZER" ]; then
    an_reason "$B/cumemtrack was not built"
else
    for size in small big; do
        n=$AN_SMALL; [ $size = big ] && n=$AN_BIG
        log "analyzer: recording the $size dump ($n pairs, $AN_LIVE live)"
        pairs 8 cuda 8 "$n" 1 "$AN_LIVE"
        if [ -z "$LINE" ] || [ ! -f "$DUMP" ]; then an_reason "recording the $size dump failed"; break; fi
        mv "$DUMP" "$TMP/an_$size.dump"
        echo "$(field pairs_total <<<"$LINE")" >"$TMP/an_$size.pairs"
        add "an_bytes_$size" "$(stat -c %s "$TMP/an_$size.dump")"
    done
    if [ -z "$AN_STATUS" ]; then
        for rep in $(seq 1 "$AN_REPS"); do
            log "analyzer repetition $rep/$AN_REPS"
            for size in small big; do
                ev=$(awk '{ printf("%.0f", $1 * 2) }' "$TMP/an_$size.pairs")
                for sym in nosym sym; do
                    flag=; [ $sym = nosym ] && flag=--no-symbols
                    l=$("$BIN" exec "$ANALYZER" report --json $flag "$TMP/an_$size.dump")
                    st=$(field status <<<"$l")
                    if [ "$st" != 0 ] && [ "$st" != 1 ]; then
                        an_reason "'cumemtrack report --json $flag' exited with status $st"
                        break 3
                    fi
                    w=$(field wall_s <<<"$l")
                    add "an_meps_${size}_$sym" "$(awk -v e="$ev" -v w="$w" 'BEGIN { printf("%.3f", e / w / 1e6) }')"
                    add "an_rss_${size}_$sym" "$(awk -v k="$(field maxrss_kb <<<"$l")" 'BEGIN { printf("%.1f", k / 1024) }')"
                done
            done
        done
    fi
fi
# ---- 5b: the analyzer on moving peaks (issue 28) -------------------------------------------
MP_STATUS=
if [ ! -x "$ANALYZER" ]; then
    MP_STATUS="not measured: $B/cumemtrack was not built"
else
    for pat in $MP_PATS; do
        log "analyzer, moving peaks: recording $MP_PAIRS $pat pairs with $MP_LIVE live (depth 0)"
        pairs 0 cuda 0 "$MP_PAIRS" 1 "$MP_LIVE" "$pat"
        if [ -z "$LINE" ] || [ ! -f "$DUMP" ]; then MP_STATUS="not measured: recording the $pat dump failed"; break; fi
        mv "$DUMP" "$TMP/mp_$pat.dump"
        field pairs_total <<<"$LINE" >"$TMP/mp_$pat.pairs"
    done
    for rep in $(seq 1 "$AN_REPS"); do
        [ -n "$MP_STATUS" ] && break
        log "analyzer moving-peak repetition $rep/$AN_REPS"
        for pat in $MP_PATS; do # the three dumps side by side
            ev=$(awk '{ printf("%.0f", $1 * 2) }' "$TMP/mp_$pat.pairs")
            l=$("$BIN" exec "$ANALYZER" report --json --no-symbols "$TMP/mp_$pat.dump")
            st=$(field status <<<"$l")
            if [ "$st" != 0 ] && [ "$st" != 1 ]; then MP_STATUS="not measured: the analyzer exited with status $st"; break 2; fi
            add "mp_meps_$pat" "$(awk -v e="$ev" -v w="$(field wall_s <<<"$l")" 'BEGIN { printf("%.3f", e / w / 1e6) }')"
            add "mp_rss_$pat" "$(awk -v k="$(field maxrss_kb <<<"$l")" 'BEGIN { printf("%.1f", k / 1024) }')"
            add "mp_bpl_$pat" "$(awk -v k="$(field maxrss_kb <<<"$l")" -v n="$MP_LIVE" 'BEGIN { printf("%.1f", k * 1024 / n) }')"
        done
    done
    rm -f "$TMP"/mp_*.dump
fi
# ---- 6b: the analyzer on random churn -----------------------------------------------------
CH_STATUS=
if [ ! -x "$ANALYZER" ]; then
    CH_STATUS="not measured: $B/cumemtrack was not built"
else
    # KEY:LIVE:PATTERN; rising and walk (a moving peak, issue 28) beside the flat one at 1 M live
    for c in 1000000:1000000:random rising:1000000:rising walk:1000000:walk 100000:100000:random; do
        IFS=: read -r key live pat <<<"$c"
        log "analyzer churn: recording $AN_CHURN $pat pairs with $live live"
        pairs 8 cuda 8 "$AN_CHURN" 1 "$live" "$pat"
        if [ -z "$LINE" ] || [ ! -f "$DUMP" ]; then CH_STATUS="not measured: recording the $pat churn dump ($live live) failed"; break; fi
        mv "$DUMP" "$TMP/churn_$key.dump"
        field pairs_total <<<"$LINE" >"$TMP/churn_$key.pairs"
    done
    for rep in $(seq 1 "$AN_REPS"); do
        [ -n "$CH_STATUS" ] && break
        log "analyzer churn repetition $rep/$AN_REPS"
        for key in 1000000 rising walk 100000; do
            ev=$(awk '{ printf("%.0f", $1 * 2) }' "$TMP/churn_$key.pairs")
            l=$("$BIN" exec "$ANALYZER" report --json --no-symbols "$TMP/churn_$key.dump")
            st=$(field status <<<"$l")
            if [ "$st" != 0 ] && [ "$st" != 1 ]; then CH_STATUS="not measured: the analyzer exited with status $st"; break; fi
            add "ch_meps_$key" "$(awk -v e="$ev" -v w="$(field wall_s <<<"$l")" 'BEGIN { printf("%.3f", e / w / 1e6) }')"
            add "ch_rss_$key" "$(field maxrss_kb <<<"$l")"
        done
        r1=$(tail -1 "$R/ch_rss_1000000"); r0=$(tail -1 "$R/ch_rss_100000")
        add ch_bpl "$(awk -v k="$r1" 'BEGIN { printf("%.1f", k * 1024 / 1000000) }')"
        add ch_bpl_marg "$(awk -v a="$r1" -v b="$r0" 'BEGIN { printf("%.1f", (a - b) * 1024 / 900000) }')"
        for key in rising walk; do
            add "ch_bpl_$key" "$(awk -v k="$(tail -1 "$R/ch_rss_$key")" 'BEGIN { printf("%.1f", k * 1024 / 1000000) }')"
        done
    done
    rm -f "$TMP"/churn_*.dump
fi
END=$(date +%s)
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
STEAL=$(awk -v a="$TICKS0" -v b="$(cpu_ticks)" 'BEGIN { split(a, x, " "); split(b, y, " ");
    if (y[2] > x[2]) printf("%.1f %%", 100 * (y[1] - x[1]) / (y[2] - x[2])); else print "unknown" }')

# ---- the report --------------------------------------------------------------------------
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
glibc=$(ldd --version 2>/dev/null | head -1 | sed 's/^ldd //')
ccv=$(${CC:-cc} --version 2>/dev/null | head -1)
htv=$([ -n "$HEAPTRACK" ] && "$HEAPTRACK" --version 2>/dev/null | head -1)
o0=$(median ovh0); o32=$(median ovh32)
{
cat <<EOF
# cumemtrack benchmarks

Generated by \`make bench\` (bench/run.sh, workload bench/cmtbench.c) — do not edit by hand.
Benchmarks are not tests: nothing here is asserted by \`make test\`.

- Command: \`make bench\` (BENCH_REPS=$REPS)
- Date: $(date -u '+%Y-%m-%d %H:%M UTC'), $((END - START)) s
- Machine: $cpu, $(nproc) cores, Linux $(uname -r) ($(uname -m)); $glibc; $ccv
- Load average (1/5/15 min) at start: $LOAD0; at end: $LOAD1 (other work on the machine
  inflates wall-clock figures and spreads min–max; ratios taken side by side suffer less)
- Host steal time during the run (/proc/stat): $STEAL of the guest's CPU time (a busy host slows
  and spreads every figure, the analyzer's and the untracked program's included)
- The machine's primitives (\`cmtbench prims\`, median of 5, each timed back to back): one \`rdtsc\`
  $(median prim_rdtsc) ns, an uncontended lock exchange with its release store $(median prim_xchg) ns. The
  tracker takes two of each per pair; a slower guest shows here first.
- Clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown); dump directory: $(df -T "$TMP" 2>/dev/null | awk 'NR == 2 { print $2 }') (${TMPDIR:-/tmp})
- Driver: the fake CUDA driver tests/fakecuda (\`$B/tests/fakecuda/libcuda.so.1\`) with FAKECUDA_FAST=1
  (a bump arena handed out in per-thread 1 MiB chunks + per-thread free lists: no cache line shared between threads); the program links the toolkit stub libcuda.so.
- Every figure: **median (min–max) over $REPS repetitions**. Within a repetition every
  configuration runs one after the other, and ratios are taken inside a repetition (side by side),
  then summarized. Overhead = tracked ns/pair − untracked ns/pair of the same repetition.

## 1. Overhead per cuMemAlloc_v2 + cuMemFree_v2 pair

One thread, caller stack really D frames deep (D noinline recursive frames before the loop;
D = 32 for the untracked run), $N_TRK pairs per tracked run, $N_FAST untracked.

| configuration | ns / pair | overhead ns / pair | kernel % of CPU time (getrusage) | target | |
|---|---|---|---|---|---|
| no tracker | $(fig base) | — | — | | |
| CUMEMTRACK_DEPTH=0 | $(fig trk0) | $(fig ovh0) | $(fig sys0) | ≤ 60 | $(verdict "$o0" "<=" 60) |
| CUMEMTRACK_DEPTH=8 | $(fig trk8) | $(fig ovh8) | $(fig sys8) | | |
| CUMEMTRACK_DEPTH=32 | $(fig trk32) | $(fig ovh32) | $(fig sys32) | ≤ 450 | $(verdict "$o32" "<=" 450) |
| CUMEMTRACK_DEPTH=64 | $(fig trk64) | $(fig ovh64) | $(fig sys64) | | |
| CUMEMTRACK_DEPTH=0, CUMEMTRACK_CLOCK=coarse | $(fig trk0c) | $(fig ovh0c) | | ≤ 60 | $(verdict "$(median ovh0c)" "<=" 60) |
| CUMEMTRACK_DEPTH=32, CUMEMTRACK_STACK_CACHE=0 | $(fig trk32n) | $(fig ovh32n) | | | |

## 2. Versus heaptrack (malloc/free, depth 32)

The same loop through malloc(256)/free under ${htv:-heaptrack (not installed)}, caller stack 32
frames deep, $N_HT pairs per heaptrack run. Ratio = our added ns/pair on CUDA calls at depth 32
÷ heaptrack's added ns/pair on malloc/free at depth 32, per repetition. Target ≤ 0.3.

| configuration | ns / pair | added ns / pair | ours ÷ heaptrack | |
|---|---|---|---|---|
| malloc/free, no tool | $(fig mbase) | — | | |
| heaptrack (default: piped to heaptrack_interpret) | $(fig ht_default) | $(fig htovh_default) | $(fig htratio_default) | $(verdict "$(median htratio_default)" "<=" 0.3) |
| heaptrack --raw (record only) | $(fig ht_raw) | $(fig htovh_raw) | $(fig htratio_raw) | $(verdict "$(median htratio_raw)" "<=" 0.3) |
| cumemtrack, depth 32 (CUDA, from §1) | $(fig trk32) | $(fig ovh32) | | |

## 3. Two threads versus one

Throughput of all threads together (M pairs/s), $N_THR_T pairs per thread tracked and $N_THR_U untracked, caller depth 32; $THR_ROUNDS rounds in each of the $REPS repetitions (each figure: median (min–max) of the rounds).
Target: 2 threads ≥ 1.6 × 1 thread.

| configuration | 1 thread | 2 threads | ratio | |
|---|---|---|---|---|
| no tracker | $(fig thr1_u) | $(fig thr2_u) | $(fig thrratio_u) | |
| CUMEMTRACK_DEPTH=0 | $(fig thr1_0) | $(fig thr2_0) | $(fig thrratio_0) | $(verdict "$(median thrratio_0)" ">=" 1.6) |
| CUMEMTRACK_DEPTH=32 | $(fig thr1_32) | $(fig thr2_32) | $(fig thrratio_32) | $(verdict "$(median thrratio_32)" ">=" 1.6) |

## 4. Space

Dump bytes per alloc+free pair: file size ÷ pairs made by the process (the $N_TRK-pair runs of
§1, warm-up included; a 4 KiB header and one partly used 64 KiB block are part of the file).
Target ≤ 24.

| CUMEMTRACK_DEPTH | 0 | 8 | 32 | 64 | |
|---|---|---|---|---|---|
| bytes / pair | $(fig dump0) | $(fig dump8) | $(fig dump32) | $(fig dump64) | $(verdict "$(median dump32)" "<=" 24) (depth 32) |

Tracker memory per live allocation: \`cmtbench live $N_LIVE\` keeps $N_LIVE cuMemAlloc_v2(256)
allocations live and reads /proc/self/status and mallinfo2() before and after; the figure is
(growth with the tracker, depth 32) − (growth without it, i.e. the fake driver's own use), ÷ $N_LIVE.
Target ≤ 64 B.

| bytes per live allocation | tracker (with − without) | fake driver alone |
|---|---|---|
| RssAnon (anonymous memory: tables, heap) | $(fig mem_anon_delta) | $(fig fake_anon_delta) |
| malloc arena (mallinfo2 arena + hblkhd) | $(fig mem_heap_delta) | $(fig fake_heap_delta) |
| RssFile (the dump's mapped pages) | $(fig mem_file_delta) | $(fig fake_file_delta) |

Verdict (RssAnon): $(verdict "$(median mem_anon_delta)" "<=" 64)

## 5. Analyzer

EOF
if [ -n "$AN_STATUS" ]; then
    echo "$AN_STATUS"
else
    sp=$(cat "$TMP/an_small.pairs"); bp=$(cat "$TMP/an_big.pairs")
    cat <<EOF
\`cumemtrack report --json [--no-symbols] DUMP\`, wall time and peak RSS (wait4 ru_maxrss) of the
analyzer process, median (min–max) over $AN_REPS repetitions. Both dumps were recorded at CUMEMTRACK_DEPTH=8 with the same live set
($AN_LIVE allocations kept live, then churn); events = 2 × pairs. Target ≥ 20 M events/s, and
peak RSS that follows the live set, not the file size.

| dump | events | file MB | mode | M events/s | peak RSS MB | |
|---|---|---|---|---|---|---|
| small | $(awk -v p="$sp" 'BEGIN { printf("%.1f M", 2 * p / 1e6) }') | $(fig an_bytes_small 0.000001) | --no-symbols | $(fig an_meps_small_nosym) | $(fig an_rss_small_nosym) | $(verdict "$(median an_meps_small_nosym)" ">=" 20) |
| small | | | symbols | $(fig an_meps_small_sym) | $(fig an_rss_small_sym) | $(verdict "$(median an_meps_small_sym)" ">=" 20) |
| big | $(awk -v p="$bp" 'BEGIN { printf("%.1f M", 2 * p / 1e6) }') | $(fig an_bytes_big 0.000001) | --no-symbols | $(fig an_meps_big_nosym) | $(fig an_rss_big_nosym) | $(verdict "$(median an_meps_big_nosym)" ">=" 20) |
| big | | | symbols | $(fig an_meps_big_sym) | $(fig an_rss_big_sym) | $(verdict "$(median an_meps_big_sym)" ">=" 20) |
EOF
fi
echo
echo "### Moving peaks (issue 28)"
echo
if [ -n "$MP_STATUS" ]; then
    echo "$MP_STATUS"
else
    cat <<EOF
\`cumemtrack report --json --no-symbols\` on dumps recorded by \`cmtbench pairs cuda 0 $MP_PAIRS 1 $MP_LIVE PATTERN\`
(CUMEMTRACK_DEPTH=0, one thread: $MP_LIVE allocations of 256 bytes kept live, then $MP_PAIRS random-order
free+alloc pairs; events = 2 × pairs, the live allocations' included), the three dumps side by side in
each of $AN_REPS repetitions; median (min–max). A job that leaks sets a new peak on every iteration: the
analyzer keeps the stacks live at the peak exactly in its one pass (each (stack, device) counter keeps
its value at its device's last peak beside it when it changes after), so a moving peak costs what a
flat one does. Target ≥ 15 M events/s and ≤ 64 B of peak RSS per live allocation on each.

| PATTERN: the replacement allocation | live bytes | events | M events/s | peak RSS MB | B per live allocation | |
|---|---|---|---|---|---|---|
| random: the freed size (256 bytes) | flat | $(awk '{ printf("%.2f M", 2 * $1 / 1e6) }' "$TMP/mp_random.pairs") | $(fig mp_meps_random) | $(fig mp_rss_random) | $(fig mp_bpl_random) | $(verdict "$(median mp_meps_random)" ">=" 15), $(verdict "$(median mp_bpl_random)" "<=" 64) |
| rising: the freed size + 1 byte (every pair sets a new peak) | rising | $(awk '{ printf("%.2f M", 2 * $1 / 1e6) }' "$TMP/mp_rising.pairs") | $(fig mp_meps_rising) | $(fig mp_rss_rising) | $(fig mp_bpl_rising) | $(verdict "$(median mp_meps_rising)" ">=" 15), $(verdict "$(median mp_bpl_rising)" "<=" 64) |
| walk: 256 + a random 0–255 bytes (the peak moves now and then) | random walk | $(awk '{ printf("%.2f M", 2 * $1 / 1e6) }' "$TMP/mp_walk.pairs") | $(fig mp_meps_walk) | $(fig mp_rss_walk) | $(fig mp_bpl_walk) | $(verdict "$(median mp_meps_walk)" ">=" 15), $(verdict "$(median mp_bpl_walk)" "<=" 64) |
EOF
fi
cat <<EOF

## 6. The patterns of issue 16

Each tracked run is made beside its untracked twin in the same repetition (added = tracked −
untracked ns per alloc+free pair); $N_PAT pairs per run ($N_RND for the random-order rows), one thread, $REPS repetitions; the
analyzer rows over $AN_REPS repetitions. Median, minimum and spread (max − min) of the
repetitions; "shape" flags a figure whose repetitions fall into two separate groups (a median of
those means little: see the notes). Clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown).

| pattern | figure | median | min | spread | target | | shape |
|---|---|---|---|---|---|---|---|
| depth 0, one call site (§1) | added ns/pair | $(stat3 ovh0) | ≤ 60 | $(verdict "$o0" "<=" 60) | $(shape ovh0) |
| depth 32, one call site (§1) | added ns/pair | $(stat3 ovh32) | ≤ 120 | $(verdict "$o32" "<=" 120) | $(shape ovh32) |
| $SITES call sites round robin, depth 32 | added ns/pair | $(stat3 p_sites_ovh) | | | $(shape p_sites_ovh) |
| same pattern, heaptrack --raw (malloc/free, $N_HT pairs) | added ns/pair | $(stat3 p_sites_htovh) | | | $(shape p_sites_htovh) |
| same pattern | ours ÷ heaptrack --raw | $(stat3 p_sites_htratio) | ≤ 0.3 | $(verdict "$(median p_sites_htratio)" "<=" 0.3) | $(shape p_sites_htratio) |
| caller depth changing every call (64 stacks), depth 32 | added ns/pair | $(stat3 p_depths_ovh) | ≤ 200 | $(verdict "$(median p_depths_ovh)" "<=" 200) | $(shape p_depths_ovh) |
| random-order frees, $RND_LIVE live, depth 0 | added ns/pair | $(stat3 p_random_ovh) | | | $(shape p_random_ovh) |
| same pattern, floor: a shim that only keeps an address → size table (bench/floor_shim.c) | added ns/pair | $(stat3 p_random_floor) | | | $(shape p_random_floor) |
| same pattern, the tracker's added ns/pair − the floor's (same repetition, same untracked run) | ns/pair | $(stat3 p_random_over_floor) | ≤ 150 | $(verdict "$(median p_random_over_floor)" "<=" 150) | $(shape p_random_over_floor) |
| the floor shim + 8 dependent multiply-adds per call (~32 cycles, about one rdtsc) | added ns/pair | $(stat3 p_random_floor8) | | | $(shape p_random_floor8) |
| the floor shim + 32 dependent multiply-adds per call (~128 cycles) | added ns/pair | $(stat3 p_random_floor32) | | | $(shape p_random_floor32) |
| stream-ordered pairs (cuMemAllocAsync+cuMemFreeAsync, created stream), depth 0 | added ns/pair | $(stat3 p_async_ovh) | | | $(shape p_async_ovh) |
| 2 threads ÷ 1 thread, depth 32 (§3) | tracked ratio | $(stat3 thrratio_32) | | | $(shape thrratio_32) |
| untracked program (§3) | ratio | $(stat3 thrratio_u) | | | $(shape thrratio_u) |
| tracked ratio ÷ untracked ratio (same repetition; wall clock: not resolvable on 2 shared cores, see below the table) | | $(stat3 thrvsu_32) | | | $(shape thrvsu_32) |
| CPU time per pair, 2 threads ÷ 1 thread, depth 32 (1.00: the threads slow each other down not at all) | tracked | $(stat3 thrcpu_32) | | | $(shape thrcpu_32) |
| the same, untracked program | | $(stat3 thrcpu_u) | | | $(shape thrcpu_u) |
| CPU time per pair 2 ÷ 1 thread: tracked ÷ untracked (same repetition; the figure for two threads) | | $(stat3 thrcpuvsu_32) | ≤ 1 | $(verdict "$(median thrcpuvsu_32)" "<=" 1) | $(shape thrcpuvsu_32) |
EOF
if [ -n "$CH_STATUS" ]; then
    echo "| analyzer, random churn | | $CH_STATUS | | | | | |"
else
    p1=$(cat "$TMP/churn_1000000.pairs"); p0=$(cat "$TMP/churn_100000.pairs")
    cat <<EOF
| analyzer, random churn, 1 M live ($(awk -v p="$p1" 'BEGIN { printf("%.1f", 2 * p / 1e6) }') M events) | M events/s | $(stat3 ch_meps_1000000) | ≥ 15 | $(verdict "$(median ch_meps_1000000)" ">=" 15) | $(shape ch_meps_1000000) |
| the same, each replacement 1 byte bigger than the allocation it replaces (rising: a new peak every pair; $(awk '{ printf("%.1f", 2 * $1 / 1e6) }' "$TMP/churn_rising.pairs") M events) | M events/s | $(stat3 ch_meps_rising) | ≥ 15 | $(verdict "$(median ch_meps_rising)" ">=" 15) | $(shape ch_meps_rising) |
| the same, each replacement 256 + a random 0–255 bytes (random walk: the peak moves now and then; $(awk '{ printf("%.1f", 2 * $1 / 1e6) }' "$TMP/churn_walk.pairs") M events) | M events/s | $(stat3 ch_meps_walk) | ≥ 15 | $(verdict "$(median ch_meps_walk)" ">=" 15) | $(shape ch_meps_walk) |
| analyzer, random churn, 100 k live ($(awk -v p="$p0" 'BEGIN { printf("%.1f", 2 * p / 1e6) }') M events) | M events/s | $(stat3 ch_meps_100000) | ≥ 20 | $(verdict "$(median ch_meps_100000)" ">=" 20) | $(shape ch_meps_100000) |
| analyzer peak memory per live allocation (peak RSS at 1 M live ÷ 1 M) | bytes | $(stat3 ch_bpl) | ≤ 64 | $(verdict "$(median ch_bpl)" "<=" 64) | $(shape ch_bpl) |
| the same, rising | bytes | $(stat3 ch_bpl_rising) | ≤ 64 | $(verdict "$(median ch_bpl_rising)" "<=" 64) | $(shape ch_bpl_rising) |
| the same, random walk | bytes | $(stat3 ch_bpl_walk) | ≤ 64 | $(verdict "$(median ch_bpl_walk)" "<=" 64) | $(shape ch_bpl_walk) |
| the same, marginal ((peak RSS at 1 M − at 100 k) ÷ 900 k) | bytes | $(stat3 ch_bpl_marg) | | | $(shape ch_bpl_marg) |
EOF
fi
echo
echo "Random-order rows: \`cmtbench pairs cuda 0 $N_RND 1 $RND_LIVE random\` (untracked $(fig p_random_base) ns/pair). $N_RND pairs a run (not $N_PAT as in 2026-12-04's earlier reports): ~1 s of a pattern whose every pair misses the cache, so that a repetition is not one page placement's luck. The fake driver links its free lists through its own bookkeeping words (it used to write the link into the freed allocation, so a random-order free touched an arena page for the first time about once in 5 pairs: ~390 ns a pair of page faults in the untracked program, and a spread of 1 161 ns in the floor's row); bench/NOTES.md has the same build measured with both."
echo
echo "Stream-ordered row: \`cmtbench pairs async 0 $N_PAT 1\` (one created stream; untracked $(fig p_async_base) ns/pair: the fake driver's async path takes its lock and hash table, not FAKECUDA_FAST's arena). The tracker adds one cuCtxGetCurrent per allocation and, per stream, one cuStreamGetCtx; no cuStreamIsCapturing before a capture was begun, no cuPointerGetAttribute (tests/cases/e2e_async_streams.sh counts them)."
echo
echo "Analyzer rows: \`cumemtrack report --json --no-symbols\` on dumps recorded by \`cmtbench pairs cuda 8 $AN_CHURN 1 LIVE PATTERN\` (CUMEMTRACK_DEPTH=8: LIVE allocations kept live, then random-order free+alloc pairs; PATTERN random: the replacement is the freed size, rising: one byte more, walk: 256 + 0–255 bytes, as in §5's moving peaks); events = 2 × pairs; wall time and peak RSS (wait4) of the analyzer process."
echo
echo "Two threads: the wall-clock quotient (2 threads ÷ 1 thread, tracked ÷ untracked) has no target here because this machine cannot resolve it. It has 2 cores, shared with whatever else runs (load $LOAD0 at the start of this run, $LOAD1 at its end; host steal $STEAL): a 2-thread run reaches 2× only while both cores stay free for all of its ~0.5 s, and it ends with its slower thread, so one preemption of either thread (another process, the kernel writing back the dump, the host) moves the ratio by more than the tracker's effect of a few percent. Side by side in the same repetitions the untracked program's own ratio reads $(fig thrratio_u) and the quotient $(fig thrvsu_32): its spread is several times what it should detect. CPU time per pair (getrusage RUSAGE_THREAD: user + sys of every thread over the timed loop ÷ the pairs they made) counts only the time the threads ran, whether or not a second core was free; 2 ÷ 1 thread it is 1.00 when the threads do not slow each other down at all (shared cache lines, locks, the dump's file). That quotient, tracked ÷ untracked in the same repetition (≤ 1: the tracker adds no slowdown between threads of its own), is the figure for two threads."
if [ -f bench/NOTES.md ]; then
    echo
    cat bench/NOTES.md
fi
} >"$OUT"
log "wrote $OUT in $((END - START)) s"
