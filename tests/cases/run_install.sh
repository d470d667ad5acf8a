# make install PREFIX=... into a scratch prefix: the files land where documented (the JSON schema in
# share/cumemtrack/), the installed binary's `run` finds the installed tracer (../lib/cumemtrack)
# and traces an example; --help texts and the man page name documents (the man page, README.md,
# the installed schema), never source files.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
tl=$(need_example train_leak)
prefix=$CMT_TMP/prefix
# install what is built (the suite built it; -o: no rebuild here)
make -s -C "$CMT_ROOT" -o build/cumemtrack -o build/libcumemtrack.so install PREFIX="$prefix" >make.log 2>&1 || { cat make.log >&2; fail "make install failed"; }
for f in bin/cumemtrack lib/cumemtrack/libcumemtrack.so include/cumemtrack.h share/man/man1/cumemtrack.1 \
    share/cumemtrack/report-schema.json share/cumemtrack/top-schema.json; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ -x "$prefix/bin/cumemtrack" ] || fail "bin/cumemtrack not executable"
cmp -s "$prefix/share/cumemtrack/report-schema.json" "$CMT_ROOT/docs/report-schema.json" ||
    fail "installed report-schema.json differs from docs/report-schema.json"
python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$prefix/share/cumemtrack/report-schema.json" ||
    fail "installed schema is not JSON"
echo "ok installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"
# help texts and the man page: documents, not source files
srcref='(docs|analyzer|preload|include|tests|examples)/|[A-Za-z0-9_]+\.[ch]\b'
for sub in "" run report check diff timeline flame dump; do
    "$prefix/bin/cumemtrack" $sub --help >help.txt 2>&1
    if grep -En "$srcref" help.txt; then fail "'cumemtrack $sub --help' names a source file"; fi
done
"$prefix/bin/cumemtrack" report --help | grep -q "PREFIX/share/cumemtrack/report-schema.json" ||
    fail "report --help does not name the installed schema"
"$prefix/bin/cumemtrack" --help | grep -q "man cumemtrack" || fail "--help does not name the man page"
# the man page: PREFIX/include/cumemtrack.h is an installed file; comments (.\") are not shown
grep -v '^\.\\"' "$prefix/share/man/man1/cumemtrack.1" | sed 's/\\-/-/g; s|/include/cumemtrack\.h||' >man.txt
if grep -En "$srcref" man.txt; then fail "the man page names a source file"; fi
grep -q "share/cumemtrack/report-schema.json" man.txt || fail "the man page does not name the installed schema"
echo "ok --help texts and the man page name documents, not source files"
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
