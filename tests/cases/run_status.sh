# cumemtrack run: exit status pass-through (0, 3, killed by a signal -> 128+N), a command that
# cannot be executed -> 127, usage errors and --depth validation -> 2, --help, signal forwarding.
set -u
. "$(dirname "$0")/run_lib.sh.inc"

run_rc 0 run -- true
grep -q "no dump was written" err.txt || fail "no 'no dump' note for a command without CUDA"
run_rc 3 run -- sh -c 'exit 3'
run_rc 0 run -o "x.%p.cmt" --depth 0 -- sh -c 'exit 0'
run_rc 143 run -- sh -c 'kill -TERM $$'
grep -q "killed by signal 15" err.txt || fail "no message for a killed command"
run_rc 137 run -- sh -c 'kill -KILL $$'
run_rc 127 run -- /nonexistent/program
grep -q "cannot execute /nonexistent/program" err.txt || fail "no message for a command that cannot run"
run_rc 127 run -- cmt-no-such-command-anywhere
touch notexec && chmod 644 notexec
run_rc 127 run -- ./notexec

# usage
run_rc 0 run --help
grep -q "usage: cumemtrack run" out.txt || fail "--help prints no usage"
run_rc 2 run
run_rc 2 run --bogus -- true
for bad in 257 -1 abc 12x "" 99999999999999999999; do
    run_rc 2 run --depth "$bad" -- true
    grep -q "depth" err.txt || fail "no message for --depth '$bad'"
done
run_rc 2 run --depth
for ok in 0 1 64 256; do run_rc 0 run --depth "$ok" -- true; done
run_rc 2 run -o "" -- true

# the tracer library: CUMEMTRACK_LIB overrides; a missing one is an error (127)
CUMEMTRACK_LIB=/nonexistent/libcumemtrack.so run_rc 127 run -- true
# a file that is no shared library: the loader would only warn and run the job untracked
printf 'not a library\n' >notlib.so
CUMEMTRACK_LIB=$PWD/notlib.so run_rc 127 run -- true
grep -q "is not a shared library" err.txt || { cat err.txt; fail "a non-library CUMEMTRACK_LIB is not named"; }
grep -q CUMEMTRACK_LIB err.txt || fail "no message for a bad CUMEMTRACK_LIB"

# signals sent to run reach the command
for sig in TERM HUP INT QUIT; do
    # a background job of a non-interactive shell ignores SIGINT/SIGQUIT; set -m gives it its own
    # process group with default dispositions
    set -m
    "$CMT_BIN" run -- sleep 30 >/dev/null 2>err.txt &
    pid=$!
    set +m
    sleep 0.5
    kill -s "$sig" "$pid"
    start=$SECONDS
    wait "$pid"
    rc=$?
    [ $((SECONDS - start)) -lt 10 ] || fail "SIG$sig was not forwarded in time"
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || { cat err.txt >&2; fail "SIG$sig: expected exit $want, got $rc"; }
done
echo ok
