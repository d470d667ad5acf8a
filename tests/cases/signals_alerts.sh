# Threshold alerts (CUMEMTRACK_ALERT) and the opt-in marker signal (CUMEMTRACK_MARK_SIGNAL).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
T=$CMT_TESTBIN/signals/sig_train
# 0:1MiB: every iteration crosses (1 MiB + 512*i buffer) and falls back under: re-armed each time
LD_PRELOAD=$CMT_LIB CUMEMTRACK_ALERT=0:1MiB CUMEMTRACK_OUTPUT=$PWD/a.cmt "$T" 5 >a.out 2>a.err || die "run failed"
n=$(grep -c '^cumemtrack: alert: device 0 (GPU-' a.err)
[ "$n" = 5 ] || { cat a.err; die "expected 5 alert lines, got $n"; }
grep -q "at sig_train+0x" a.err || die "alert does not name the application's call site"
[ "$(grep -c '^seq=.* ALERT dev=0' <("$CMT_BIN" dump a.cmt))" = 5 ] || die "ALERT records missing"
# all:PCT% against the device's total memory; a device under the threshold never alerts
FAKECUDA_MEM_MB=2 LD_PRELOAD=$CMT_LIB CUMEMTRACK_ALERT=all:50% CUMEMTRACK_OUTPUT=$PWD/p.cmt "$T" 2 >/dev/null 2>p.err \
    || die "run failed"
grep -q '^cumemtrack: alert: device 0 .*threshold 1.0 MiB' p.err || { cat p.err; die "50% of 2 MiB should alert"; }
LD_PRELOAD=$CMT_LIB CUMEMTRACK_ALERT=all:90% CUMEMTRACK_OUTPUT=$PWD/q.cmt "$T" 2 >/dev/null 2>q.err || die "run failed"
grep -q "alert" q.err && die "alert under the threshold"
# a malformed spec: one warning, the rest of the list still applies, the program is unchanged
LD_PRELOAD=$CMT_LIB CUMEMTRACK_ALERT=0:lots,0:1MiB CUMEMTRACK_OUTPUT=$PWD/b.cmt "$T" 1 >b.out 2>b.err || die "run failed"
[ "$(grep -c 'warning: CUMEMTRACK_ALERT' b.err)" = 1 ] || die "expected one warning"
grep -q '^cumemtrack: alert:' b.err || die "valid spec ignored"
grep -q "iterations 1 leaked 1" b.out || die "output changed"

# the marker signal: opt-in only
LD_PRELOAD=$CMT_LIB CUMEMTRACK_MARK_SIGNAL=USR2 CUMEMTRACK_OUTPUT=$PWD/s.cmt "$T" 40 --sleep-ms 25 >s.out 2>s.err &
pid=$!
sleep 0.4
kill -USR2 $pid; sleep 0.2; kill -USR2 $pid
wait $pid || die "the program died of the signal"
[ "$("$CMT_BIN" dump s.cmt | grep -c 'MARKER label="signal" flags=3')" = 2 ] || die "expected two signal markers"
LD_PRELOAD=$CMT_LIB CUMEMTRACK_MARK_SIGNAL=KILL CUMEMTRACK_OUTPUT=$PWD/k.cmt "$T" 1 >/dev/null 2>k.err || die "run failed"
grep -q "CUMEMTRACK_MARK_SIGNAL" k.err || die "bad signal name not reported"
echo PASS
