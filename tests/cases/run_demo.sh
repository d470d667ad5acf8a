# make demo's script (examples/demo.sh) on the fake GPU: every command it prints ("$ ...") runs
# as printed, pasted into a fresh shell with an empty environment (no LD_LIBRARY_PATH, no
# FAKECUDA_*, cumemtrack not on PATH), and gives the same summaries as in the demo.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
need_example train_leak >/dev/null && need_example dp_skew >/dev/null && need_example oom >/dev/null
# the demo's own environment must not come from the test's either
env -u LD_LIBRARY_PATH -u FAKECUDA_DEVICES EX_REAL_GPU=0 EX_OUT="$PWD/demo" bash "$CMT_ROOT/examples/demo.sh" \
    >demo.txt 2>&1 || { cat demo.txt; fail "examples/demo.sh failed"; }
grep '^\$ ' demo.txt | sed 's/^\$ //' >commands.txt
n=$(wc -l <commands.txt)
[ "$(grep -c ' run -o ' commands.txt)" = 3 ] || { cat demo.txt; fail "expected 3 printed 'run' commands"; }
[ "$n" -ge 12 ] || { cat demo.txt; fail "expected at least 12 printed commands, got $n"; }
rm -rf demo
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    # a fresh shell: nothing inherited but a minimal PATH (cd / so relative paths would not resolve)
    (cd / && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="${HOME:-/root}" bash --noprofile --norc -c "$cmd") \
        >"rerun.$i.out" 2>"rerun.$i.err" </dev/null ||
        { cat "rerun.$i.out" "rerun.$i.err"; fail "printed command $i failed when pasted into a fresh shell: $cmd"; }
    case $cmd in
    *" run -o "*)
        grep -q "^cumemtrack: run: 1 dump:" "rerun.$i.err" || { cat "rerun.$i.err"; fail "command $i wrote no dump: $cmd"; }
        # its summary is the demo's
        grep -E "^cumemtrack: (leaked|OOM):" "rerun.$i.err" >summary.txt
        [ -s summary.txt ] || { cat "rerun.$i.err"; fail "command $i printed no summary"; }
        while IFS= read -r line; do
            grep -qxF "$line" demo.txt || { cat "rerun.$i.err"; fail "command $i: '$line' differs from the demo"; }
        done <summary.txt ;;
    esac
done <commands.txt
[ "$i" = "$n" ] || fail "ran $i of $n commands"
grep -q cache_attention_mask rerun.*.out || fail "the rerun reports lack train_leak's leak stack"
for f in train_leak dp_skew oom; do [ -s "demo/$f.html" ] || fail "the rerun wrote no demo/$f.html"; done
echo "ok $n printed demo commands rerun as printed from a fresh shell, same summaries"
echo PASS
