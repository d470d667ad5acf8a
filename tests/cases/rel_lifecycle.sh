# fork / exec / threads exiting:
#  - fork while other threads allocate: each forked child writes its own dump matching its own
#    ground truth (the parent's allocations are not in it), and the parent's dump still matches
#    the parent's ground truth exactly (nothing lost or doubled around the forks);
#  - exec: `cumemtrack run` traces the exec'd image (a second dump), `run --no-children` does not
#    (one dump, the first image's, ending in exec);
#  - threads exiting: covered by rel_concurrency (short-lived threads); here, threads exiting while
#    others fork.
# make test: 4 threads, 3 forks; make stress: 8 threads, 40 forks.
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
nt=$(pick 4 8)
forks=$(pick 3 40)
export FAKECUDA_DEVICES=4
FAKECUDA_GROUND_TRUTH=$PWD/f.%p.gt LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/f.%p.cmt \
    timeout 300 "$REL/rel_app" fork "$nt" "$forks" >f.out 2>f.err || { cat f.err; die "fork: exit $?"; }
parent=$(awk '$1 == "parent-pid" { print $2 }' f.out)
kids=$(awk '$1 == "child-pid" { print $2 }' f.out)
[ "$(echo "$kids" | wc -w)" = "$forks" ] || die "fork: expected $forks children: $kids"
for pid in $kids; do
    "$CMT_BIN" dump "f.$pid.cmt" >"f.$pid.txt" || die "child $pid: no readable dump"
    python3 "$CHECK" "f.$pid.txt" "f.$pid.gt" >/dev/null || die "child $pid: dump differs from its driver"
    grep -q "size=3333 " "f.$pid.txt" && die "child $pid: holds the parent's allocation"
    [ "$(grep -c ' ALLOC ' "f.$pid.txt")" = 3 ] || die "child $pid: expected its 3 allocations"
done
cp f.out "f.$parent.out"
"$CMT_BIN" report --json "f.$parent.cmt" >"f.$parent.json"
"$CMT_BIN" dump "f.$parent.cmt" | python3 "$CHECK" /dev/stdin "f.$parent.gt" "f.$parent.out" "f.$parent.json" \
    || die "fork: the parent's dump differs from its driver"
grep -q "size=41998[56][90] " <("$CMT_BIN" dump "f.$parent.cmt") && die "fork: the parent's dump holds a child's allocation"
[ "$(ls f.*.cmt* | wc -l)" = $((forks + 1)) ] || die "fork: expected $((forks + 1)) dumps: $(ls f.*.cmt*)"
[ "$(warnings f.err)" = 0 ] || { cat f.err; die "fork: the tracker warned"; }
echo "ok fork: $nt threads allocating, $forks forks, $(awk '$1 == "expect-alloc" { print $2 }' f.out) parent allocations"
# exec: traced by default, not with --no-children
for mode in children no-children; do
    mkdir -p "$mode" && cd "$mode"
    opt=; [ $mode = no-children ] && opt=--no-children
    CUMEMTRACK_LIB=$CMT_LIB "$CMT_BIN" run $opt -o "$PWD/x.cmt" -- "$P/rt_exec.shared" >x.out 2>x.err \
        || { cat x.err; die "run $opt: exit $?"; }
    grep -q "expect-alloc" x.out || die "run $opt: the exec'd image did not run"
    n=$(ls x.cmt* | wc -l)
    if [ $mode = children ]; then
        [ "$n" = 2 ] || die "run: expected 2 dumps (before and after exec): $(ls)"
        "$CMT_BIN" dump x.cmt.1 | grep -q "size=5555 " || die "run: the exec'd image's allocation is missing"
    else
        [ "$n" = 1 ] || die "run --no-children: expected 1 dump: $(ls)"
        "$CMT_BIN" dump x.cmt | grep -q "size=5555 " && die "run --no-children: the exec'd image was traced"
    fi
    "$CMT_BIN" dump x.cmt | grep -q "size=4444 " || die "run $opt: the first image's allocation is missing"
    cd ..
    echo "ok exec ($mode): $n dump(s)"
done
echo PASS
