# A vfork child (exec or _exit right after vfork: posix_spawn-like code, Python's subprocess)
# shares the parent's memory without running fork handlers: its end must not be recorded as the
# parent's. The parent's dump ends with a clean exit and holds both allocations.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
traced v "$CMT_TESTBIN/unit/vfork_exit" || { cat v.err; die "vfork_exit failed"; }
grep -qx ok v.out || die "vfork_exit output"
"$CMT_BIN" dump v.cmt >v.txt || die "dump unreadable"
[ "$(grep -c ' EXIT ' v.txt)" = 1 ] || { grep ' EXIT ' v.txt; die "expected exactly one EXIT record"; }
grep -q ' EXIT how=clean ' v.txt || die "the parent's exit is not clean: $(grep ' EXIT ' v.txt)"
grep -q ' ALLOC .*size=2222 ' v.txt || die "the allocation after the vforks is missing"
check v
echo PASS
