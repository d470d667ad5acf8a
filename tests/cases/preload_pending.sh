# A writer whose block is full while another thread copies one sets it aside (still a staging
# block in the file) and goes on in its spare staging block instead of waiting (include/
# cmt_format.h BLOCKS, preload/cmt_writer.c). CUMEMTRACK_TEST_BUSY=1 makes every copy that need
# not wait find the lock busy (the copy of a full block, and the retries of the copy of one set
# aside, every 4 KiB of records), so from its third block on a writer always has one set aside;
# =2 every second attempt, so a block set aside is copied at its first retry.
# tests/progs/drv_fastbench: 3 threads then the main thread (whose blocks no thread exit hands
# back) each make N alloc+free pairs.
#  1. busy 1 and 2: the dump equals the driver's ground truth; with busy 1 the main thread's
#     writer left two staging blocks with consecutive indexes (the scenario really happened);
#  2. busy 1, killed by SIGKILL after its loop: every pair is in the dump, the process died;
#  3. busy 1: `timeline --follow --csv` while the dump is written gives exactly the rows of the
#     finished dump (the follower reads a block set aside and the one after it, neither copied).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
F=$P/drv_fastbench
N=20000
# staging NAME.cmt: the most staging blocks one writer has, with their indexes consecutive
staging() {
    python3 - "$1" <<'PY'
import struct, sys, collections
d = open(sys.argv[1], 'rb').read()
st = collections.defaultdict(list)
for off in range(4096, len(d) - 65536 + 1, 65536):
    magic, writer, index = struct.unpack_from('<III', d, off)
    if magic == 0x53544d43:
        st[writer].append(index)
best = max(st.values(), key=len)
print(len(best) if sorted(best) == list(range(min(best), min(best) + len(best))) else 0)
PY
}
for busy in 1 2; do
    CUMEMTRACK_TEST_BUSY=$busy FAKECUDA_FAST=1 traced b$busy "$F" $N 3 main || die "drv_fastbench (busy $busy) failed"
    check b$busy
done
# busy 1: every retry finds the lock busy too, so the main thread ends with a block set aside
# (busy 2: the first retry, 4 KiB of records later, copies it, unless the thread ends before)
[ "$(staging b1.cmt)" = 2 ] || die "busy 1: no writer left two consecutive staging blocks"

CUMEMTRACK_TEST_BUSY=1 FAKECUDA_FAST=1 LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/k.cmt "$F" $N 3 kill >k.out 2>k.err
rc=$?
[ $rc = 137 ] || die "the killed run ended with $rc, not SIGKILL's 137"
[ "$(staging k.cmt)" = 2 ] || die "killed: no writer left two consecutive staging blocks"
"$CMT_BIN" dump k.cmt >k.txt || die "killed: dump unreadable"
allocs=$(grep -c ' ALLOC ' k.txt) frees=$(grep -c ' FREE ' k.txt)
[ "$allocs" = $((4 * N + 3)) ] && [ "$frees" = $((4 * N)) ] ||
    die "killed: $allocs ALLOC and $frees FREE records, want $((4 * N + 3)) and $((4 * N))"
"$CMT_BIN" report --json k.cmt | grep -q '"died"' || die "killed: the report does not say the process died"

trap 'kill -9 $tp 2>/dev/null' EXIT
mkdir job
"$CMT_BIN" timeline --follow --csv job >got.csv 2>got.err &
tp=$!
CUMEMTRACK_TEST_BUSY=1 FAKECUDA_FAST=1 LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/job/f.cmt "$F" $N 3 main \
    >f.out 2>f.err || die "drv_fastbench under the follower failed"
wait $tp || { cat got.err; die "timeline --follow failed"; }
[ "$(staging job/f.cmt)" = 2 ] || die "follow: no writer left two consecutive staging blocks"
"$CMT_BIN" timeline --csv job >want.csv || die "timeline --csv"
[ "$(wc -l <want.csv)" -gt $((8 * N)) ] || die "too few rows to mean anything"
cmp -s want.csv got.csv || { diff want.csv got.csv | head -5; die "followed rows differ from the finished dump's"; }
echo PASS
