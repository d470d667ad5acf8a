# make install PREFIX=... into a scratch prefix: the files land where documented, and the installed
# binary's `run` finds the installed tracer (../lib/cumemtrack) and traces an example.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
tl=$(need_example train_leak)
prefix=$CMT_TMP/prefix
# install what is built (the suite built it; -o: no rebuild here)
make -s -C "$CMT_ROOT" -o build/cumemtrack -o build/libcumemtrack.so install PREFIX="$prefix" >make.log 2>&1 || { cat make.log >&2; fail "make install failed"; }
for f in bin/cumemtrack lib/cumemtrack/libcumemtrack.so include/cumemtrack.h share/man/man1/cumemtrack.1; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ -x "$prefix/bin/cumemtrack" ] || fail "bin/cumemtrack not executable"
if command -v groff >/dev/null; then
    groff -man -ww -z "$prefix/share/man/man1/cumemtrack.1" 2>groff.txt || fail "groff failed"
    [ ! -s groff.txt ] || { cat groff.txt >&2; fail "man page warnings"; }
fi
for sub in run report check diff timeline flame dump; do
    grep -q "^\.SS $sub\$" "$prefix/share/man/man1/cumemtrack.1" || fail "man page lacks $sub"
done

mkdir out
"$prefix/bin/cumemtrack" run -o "out/%h.%p.cmt" -- "$tl" 3 >out.txt 2>err.txt || { cat err.txt >&2; fail "installed run failed"; }
grep -q "run: 1 dump:" err.txt || { cat err.txt >&2; fail "installed run wrote no dump"; }
grep -q "(12288 bytes) in 3 allocations at 1 site" err.txt || { cat err.txt >&2; fail "installed run: wrong summary"; }
# the tracer it used was the installed one
CMT_LIB_SEEN=$("$prefix/bin/cumemtrack" run -- sh -c 'echo "$LD_PRELOAD"' 2>/dev/null)
[ "$CMT_LIB_SEEN" = "$(cd "$prefix/lib/cumemtrack" && pwd -P)/libcumemtrack.so" ] ||
    fail "installed run preloaded '$CMT_LIB_SEEN'"
"$prefix/bin/cumemtrack" report "out" >report.txt || fail "installed report failed"
grep -q cache_attention_mask report.txt || fail "installed report lacks the leak's stack"

make -s -C "$CMT_ROOT" uninstall PREFIX="$prefix" >make.log 2>&1 || { cat make.log >&2; fail "make uninstall failed"; }
[ -z "$(find "$prefix" -type f)" ] || { find "$prefix" -type f >&2; fail "uninstall left files"; }
echo ok
