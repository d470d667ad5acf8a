#!/usr/bin/env bash
# cumemtrack top's interactive mode in a real terminal (tmux: send-keys, capture-pane) over a
# running traced program: the frame refreshes (the live bytes follow the program's phases), the
# stack whose memory climbs tops "by growth" while it climbs, `q` quits with exit 0, and the
# terminal is back in canonical mode with echo afterwards — after `q` and after a SIGTERM.
set -u
. "$(dirname "$0")/e2e_lib.sh.inc"
CMT_BIN=${CMT_BIN:-$CMT_ROOT/build/cumemtrack}
H=$P/drv_hold
command -v tmux >/dev/null || { echo "no tmux (scripts/deps.sh installs it)"; exit 77; }
[ -x "$H" ] || die "missing $H (make test-programs)"
N=8 SZ=1048576
S=cmt-top-$$
export TMUX_TMPDIR=$PWD
trap 'tmux kill-server 2>/dev/null; kill -9 $hp 2>/dev/null' EXIT
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; die "timeout waiting for $1"; }
# screen_has REGEX: waits until the pane shows a whole frame (its last line, "(q quits)") with a
# line matching REGEX
screen_has() {
    for _ in $(seq 300); do
        tmux capture-pane -p -t "$S" >screen.txt 2>/dev/null
        grep -q "(q quits)" screen.txt && grep -Eq "$1" screen.txt && return 0
        sleep 0.05
    done
    cat screen.txt; die "the screen never showed /$1/"
}
mkdir job st
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/job/h.%p.cmt "$H" $N $SZ "$PWD/st" >h.out 2>h.err &
hp=$!
wait_for st/phase1
tmux new-session -d -s "$S" -x 160 -y 70 \
    "stty -a >stty.before; '$CMT_BIN' top -n 0.1 --window 600 job; echo \"top-rc=\$?\"; stty -a >stty.after; sleep 600"
screen_has "^  [^ ]+ +$hp .* 8\.00 MiB .*running"
touch st/go1; wait_for st/phase2
screen_has "^  [^ ]+ +$hp .* 16\.0 MiB .*running"
# by growth: the second function's stack grew 8 MiB within the window, the first did not grow
screen_has "^  8\.00 MiB live, \+8\.00 MiB over the window"
awk '/TOP STACKS BY GROWTH/ { g = 1 } g' screen.txt >growth.txt
sed -n 2,3p growth.txt | grep -q "growing_blocks" || { cat screen.txt; die "the growing stack is not first by growth"; }
grep -q "first_blocks" growth.txt && { cat screen.txt; die "a stack that did not grow is listed by growth"; }
tmux send-keys -t "$S" q
screen_has "^top-rc=0$"
wait_for stty.after
grep -q -- "-icanon" stty.before && die "the test terminal started raw"
grep -Eq -- "(^| )icanon( |$)" stty.after && grep -Eq -- "(^| )echo( |$)" stty.after || { cat stty.after; die "terminal not restored after q"; }
tmux kill-session -t "$S"
# a signal: the terminal is restored too, and top dies of the signal
rm -f stty.after
tmux new-session -d -s "$S" -x 160 -y 70 \
    "'$CMT_BIN' top -n 0.1 job; echo \"top-rc=\$?\"; stty -a >stty.after; sleep 600"
# a frame with the records read (the first frame shows the new dump's process before: a follower lags
# one refresh), so the signal does not come while top prints its first frame with stacks
screen_has "^  [^ ]+ +$hp .* 16\.0 MiB .*running"
tp=$(pgrep -P "$(tmux display-message -p -t "$S" '#{pane_pid}')") && [ -n "$tp" ] || die "no top to signal"
kill -TERM $tp
screen_has "^top-rc=143$"
wait_for stty.after
grep -Eq -- "(^| )icanon( |$)" stty.after && grep -Eq -- "(^| )echo( |$)" stty.after || { cat stty.after; die "terminal not restored after SIGTERM"; }
touch st/go2 st/go3; wait $hp || die "drv_hold failed"
echo PASS
