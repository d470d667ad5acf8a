# Bad environment: the application runs on with identical output and exit code, the tracker says
# so once (exactly one warning line where something is wrong, none where nothing is), nothing is
# ever written through a symlink, and never a SIGBUS / SIGXFSZ reaches the application:
#   missing output directories (created 0700, no warning), not-a-directory and read-only (tmpfs
#   ro) ones; a full disk (256 KiB tmpfs); `ulimit -f` below the header and reached mid-run; malformed CUMEMTRACK_DEPTH,
#   empty CUMEMTRACK_OUTPUT, a template with an unknown %x; a file or a (dangling) symlink already
#   at the dump path; the application closing (close_range) or dup2-ing over every descriptor.
# The mounts need CAP_SYS_ADMIN: without it those checks are skipped (said in the log).
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
export FAKECUDA_DEVICES=4
app=$REL/rel_app
top=$PWD
"$app" checksum 5 >base.out 2>base.err
[ $? = 5 ] || die "untracked checksum run: exit $?"
# same NAME WANT_WARNINGS [ENV...] -- ARGS: tracked run equals the untracked one
same() {
    local name=$1 want=$2; shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local base=$top/base.out rc_want=5
    [ "$1" = stress ] && rc_want=0
    env LD_PRELOAD="$CMT_LIB" "${envs[@]}" "$app" "$@" >"$name.out" 2>"$name.err"
    local rc=$?
    [ $rc = $rc_want ] || { cat "$name.err"; die "$name: exit $rc, untracked $rc_want"; }
    if [ "$1" = stress ]; then # thread interleaving varies: every operation ran
        grep -q "^rel-ops $(($2 * $3))\$" "$name.out" || die "$name: not every operation ran"
    else
        cmp -s "$name.out" "$base" || { diff "$name.out" "$base" | head; die "$name: output differs"; }
    fi
    local w; w=$(warnings "$name.err")
    [ "$w" = "$want" ] || { cat "$name.err"; die "$name: $w warning lines, want $want"; }
    [ "$want" = 0 ] || echo "ok $name: $(grep "^cumemtrack\[" "$name.err" | cut -c1-160)"
    [ "$want" = 0 ] && echo "ok $name: no warning"
    return 0
}
# missing directories are created (0700), as `cumemtrack run` does: no warning, a readable dump
same missing-dir 0 CUMEMTRACK_OUTPUT="$PWD/missing/sub/x.cmt" -- checksum 5
[ "$(stat -c %a missing)/$(stat -c %a missing/sub)" = 700/700 ] || die "missing-dir: directories not created 0700"
"$CMT_BIN" dump missing/sub/x.cmt >/dev/null || die "missing-dir: no readable dump in the created directory"
same not-a-dir 1 CUMEMTRACK_OUTPUT="$PWD/base.out/x.cmt" -- checksum 5
same depth-abc 1 CUMEMTRACK_DEPTH=abc CUMEMTRACK_OUTPUT="$PWD/d1.cmt" -- checksum 5
same depth-neg 1 CUMEMTRACK_DEPTH=-1 CUMEMTRACK_OUTPUT="$PWD/d2.cmt" -- checksum 5
same depth-huge 1 CUMEMTRACK_DEPTH=99999 CUMEMTRACK_OUTPUT="$PWD/d3.cmt" -- checksum 5
# yes/no variables: 1/0, yes/no, true/false, on/off in any case; anything else one warning and the
# default (CUMEMTRACK_DISABLE=yes disables, =maybe does not; CUMEMTRACK_PYTHON=off is off)
same disable-yes 0 CUMEMTRACK_DISABLE=yes CUMEMTRACK_OUTPUT="$PWD/dy.cmt" -- checksum 5
[ -e dy.cmt ] && die "CUMEMTRACK_DISABLE=yes did not disable"
same disable-maybe 1 CUMEMTRACK_DISABLE=maybe CUMEMTRACK_OUTPUT="$PWD/dm.cmt" -- checksum 5
[ -e dm.cmt ] || die "CUMEMTRACK_DISABLE=maybe disabled (want: a warning and the default, enabled)"
same quiet-no 1 CUMEMTRACK_QUIET=No CUMEMTRACK_DEPTH=abc CUMEMTRACK_OUTPUT="$PWD/qn.cmt" -- checksum 5
same quiet-on 0 CUMEMTRACK_QUIET=ON CUMEMTRACK_DEPTH=abc CUMEMTRACK_OUTPUT="$PWD/qo.cmt" -- checksum 5
same python-off 0 CUMEMTRACK_PYTHON=off CUMEMTRACK_OUTPUT="$PWD/po.cmt" -- checksum 5
same python-2 1 CUMEMTRACK_PYTHON=2 CUMEMTRACK_OUTPUT="$PWD/p2.cmt" -- checksum 5
for d in d1 d2 d3; do
    [ "$("$CMT_BIN" report --json $d.cmt | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["exit"])')" = clean ] \
        || die "$d: no usable dump with the default depth"
done
mkdir -p empty && ( cd empty && same ../empty-output 1 CUMEMTRACK_OUTPUT= -- checksum 5 ) || exit 1
[ "$(ls empty/cumemtrack.*.cmt | wc -l)" = 1 ] || die "empty CUMEMTRACK_OUTPUT: no default dump in the cwd"
same unknown-escape 1 CUMEMTRACK_OUTPUT="$PWD/t.%x.%p.cmt" -- checksum 5
ls t.%x.*.cmt >/dev/null || die "template with %x: the dump is not at the literal name"
# a rank that would climb out of the template's directory is made a plain name part
mkdir -p rk
same rank-escape 0 RANK=../../etc CUMEMTRACK_OUTPUT="$PWD/rk/r%r.cmt" -- checksum 5
[ -f rk/r______etc.cmt ] || { ls -R rk; die "RANK=../../etc: the dump is not rk/r______etc.cmt"; }
[ -e etc.cmt ] || [ -e rk/etc.cmt ] && die "RANK=../../etc escaped the directory"
# a file and symlinks already at the dump path: never written through, a new name is taken
echo precious >target.txt
echo mine >exists.cmt
ln -s target.txt link.cmt
ln -s nowhere.txt dangling.cmt
for n in exists link dangling; do
    same "pre-$n" 0 CUMEMTRACK_OUTPUT="$PWD/$n.cmt" -- checksum 5
    [ -f "$n.cmt.1" ] || die "pre-$n: no new name taken: $(ls $n.*)"
    "$CMT_BIN" dump "$n.cmt.1" >/dev/null || die "pre-$n: the new dump is unreadable"
done
[ "$(cat target.txt)" = precious ] && [ "$(cat exists.cmt)" = mine ] || die "written through a symlink / over a file"
[ -L link.cmt ] && [ -L dangling.cmt ] && [ ! -e nowhere.txt ] || die "a symlink was followed or replaced"
# file-size limit: below the header (never created), and reached mid-run (writing stops)
( ulimit -f 2; same fsize-header 1 CUMEMTRACK_OUTPUT="$PWD/fs1.cmt" -- checksum 5 ) || exit 1
( ulimit -f 200; same fsize-midrun 1 CUMEMTRACK_OUTPUT="$PWD/fs2.cmt" -- stress 4 3000 9 ) || exit 1
"$CMT_BIN" report --json fs2.cmt >fs2.json || die "fsize-midrun: dump unreadable"
python3 -c 'import json; c = json.load(open("fs2.json"))["processes"][0]["counters"]; assert c["write_stopped"] == 1 and c["dropped_events"] > 0, c' \
    || die "fsize-midrun: write_stopped / dropped_events not counted"
# descriptors closed or replaced under the tracker: it keeps writing, everything is in the dump
for m in closefds dupfds; do
    "$app" $m 3000 >"$m.base" 2>/dev/null || die "$m untracked failed"
    traced "$m" "$app" $m 3000 || { cat "$m.err"; die "$m: exit $?"; }
    grep -v expect-alloc "$m.out" | cmp -s - <(grep -v expect-alloc "$m.base") || die "$m: output differs"
    check "$m"
    [ "$(warnings "$m.err")" = 0 ] || { cat "$m.err"; die "$m: the tracker warned"; }
    echo "ok $m: every allocation recorded after the descriptors were taken"
done
# full disk and read-only directory (tmpfs mounts)
mkdir -p full ro
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
    trap 'umount "$PWD/full" 2>/dev/null; umount "$PWD/ro" 2>/dev/null' EXIT
    same full-disk 1 CUMEMTRACK_OUTPUT="$PWD/full/x.cmt" -- stress 4 3000 9
    "$CMT_BIN" report --json full/x.cmt >full.json || die "full disk: dump unreadable"
    python3 -c 'import json; c = json.load(open("full.json"))["processes"][0]["counters"]; assert c["write_stopped"] == 1, c' \
        || die "full disk: write_stopped not counted"
    # a disk that is already full: not even the header fits
    dd if=/dev/zero of=full/filler bs=4k count=1000 status=none 2>/dev/null
    same full-at-start 1 CUMEMTRACK_OUTPUT="$PWD/full/y.cmt" -- checksum 5
    [ -e full/y.cmt ] && die "full-at-start: a partial dump was left behind"
    umount full
    mount -t tmpfs -o ro tmpfs ro && same read-only 1 CUMEMTRACK_OUTPUT="$PWD/ro/x.cmt" -- checksum 5
    umount ro
else
    echo "skipped: full disk and read-only directory (mount not permitted)"
fi
echo PASS
