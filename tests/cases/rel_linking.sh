# Hostile linking, all still intercepted (exact match with the driver's ground truth), no
# recursion, no crash, output and exit code as untracked:
#  - a library whose constructor (run before the tracker's) dlopen()s the driver, dlsym()s on the
#    handle and on RTLD_DEFAULT, and allocates (rel_hostile + librel_ctor.so);
#  - an RTLD_NEXT interposer that defines cuMemAlloc_v2 / cuMemFree_v2 and forwards them with
#    dlsym(RTLD_NEXT), and a RTLD_NEXT look-up of cuMemAllocManaged by a library that does not
#    define it (librel_next.so): each call recorded once;
#  - the runtime loaded late with dlopen(RTLD_DEEPBIND) while threads exist, the threads
#    allocating concurrently right after the load: RTLD_DEEPBIND stripped with exactly one
#    warning, the deepbind_stripped counter 1; and the same with a plain late dlopen.
# make test: 8 threads x 200; make stress: 16 threads x 5000 (10 rounds).
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
export FAKECUDA_DEVICES=4
export LD_LIBRARY_PATH=$CMT_TESTBIN/fakert:$LD_LIBRARY_PATH
"$REL/rel_hostile" 200 >base.out 2>base.err || die "rel_hostile untracked: exit $?"
traced hostile timeout 60 "$REL/rel_hostile" 200 || { tail -5 hostile.err; die "rel_hostile: exit $? under the tracker"; }
cmp -s hostile.out base.out || die "rel_hostile: output differs"
check hostile
grep -q "size=7777 " hostile.txt || die "the constructor's allocation (before the tracker's constructor) is missing"
[ "$(warnings hostile.err)" = 0 ] || { cat hostile.err; die "rel_hostile: the tracker warned"; }
echo "ok constructor + RTLD_NEXT interposer"
nt=$(pick 8 16)
per=$(pick 200 5000)
rounds=$(pick 1 10)
for r in $(seq "$rounds"); do
    for mode in deepbind late; do
        n=$mode$r
        traced "$n" timeout 300 "$REL/rel_dl" $mode "$nt" "$per" || { tail -5 "$n.err"; die "$n: exit $?"; }
        check_stream "$n"
        want=0; [ $mode = deepbind ] && want=1
        [ "$(warnings "$n.err")" = $want ] || { cat "$n.err"; die "$n: $(warnings "$n.err") warnings, want $want"; }
        [ $mode = deepbind ] && { grep -q RTLD_DEEPBIND "$n.err" || die "$n: the warning does not name RTLD_DEEPBIND"; }
        python3 -c "import json,sys; c = json.load(open('$n.json'))['processes'][0]['counters']; sys.exit(c['deepbind_stripped'] != $want)" \
            || die "$n: deepbind_stripped counter"
    done
done
echo "ok late dlopen (deepbind and plain): $rounds round(s), $nt threads x $per allocations right after the load"
echo PASS
