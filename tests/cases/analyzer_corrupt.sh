#!/usr/bin/env bash
# Corrupt and hostile inputs: every one exits 3 with a message naming the file (and the offset
# where it applies), never crashes or hangs; random bit flips exit 0 or 3 only. Under valgrind
# when available.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
"$MKDUMP" "$g/basic.script" good.cmt || fail mkdump
# bad_input NAME FILE PATTERN: report and dump exit 3 with PATTERN in the message
bad_input() {
    for sub in "report --no-symbols" "dump" "check --no-symbols"; do
        $VALGRIND "$CMT_BIN" $sub "$2" >out.txt 2>err.txt
        rc=$?
        [ $rc -eq 3 ] || { cat err.txt; fail "$1: $sub exited $rc, expected 3"; }
        grep -q "^cumemtrack: .*$2" err.txt || { cat err.txt; fail "$1: message does not name the file"; }
        grep -Eq "$3" err.txt || { cat err.txt; fail "$1: message lacks '$3'"; }
    done
    echo "ok $1: $(head -1 err.txt)"
}
: >empty.cmt
bad_input zero-length empty.cmt "offset 0"
head -c 100 good.cmt >short.cmt
bad_input short-header short.cmt "offset [0-9]+"
cp good.cmt version.cmt; printf '\x7f\x00' | dd of=version.cmt bs=1 seek=8 conv=notrunc status=none
bad_input wrong-version version.cmt "offset 8 \(version_major\)"
cp good.cmt magic.cmt; printf 'XUMEMTRK' | dd of=magic.cmt bs=1 seek=0 conv=notrunc status=none
bad_input bad-magic magic.cmt "offset 0 \(magic\)"
cp good.cmt bsize.cmt; printf '\x07\x00\x00\x00' | dd of=bsize.cmt bs=1 seek=16 conv=notrunc status=none
bad_input bad-block-size bsize.cmt "offset 16 \(block_size\)"
cp good.cmt bmagic.cmt; printf '\x01\x02\x03\x04' | dd of=bmagic.cmt bs=1 seek=4096 conv=notrunc status=none
bad_input bad-block-magic bmagic.cmt "offset 4096"
printf 'header pid=1\nstack id=1 nframes=100000 0x1 0x2\n' | "$MKDUMP" - frames.cmt
bad_input huge-nframes frames.cmt "offset [0-9]+.*nframes"
printf 'header pid=1\nmodule id=1 path=/x nseg=1 seg=0:1:5\n' >/dev/null
printf 'header pid=1\nalloc dev=0 ptr=1 size=1\nraw type=0x20 hex=00\nalloc dev=0 ptr=2 size=1\n' | "$MKDUMP" - coretype.cmt
bad_input unknown-core-type coretype.cmt "offset 4[0-9]{3}.*unknown core record type"
# offset of the Nth record (from 1) of a dump, from `dump --raw`
rec_off() { "$CMT_BIN" dump --raw "$1" | sed -n "$(( $2 + 1 ))p" | sed 's/.* off=//'; }
# an extension record whose payload length runs past the end of its block
printf 'header pid=1 block_size=128\nalloc dev=0 ptr=1 size=1\ninfo key=k value=v\n' | "$MKDUMP" - extlen.cmt
n=$(rec_off extlen.cmt 2)
printf '\x7f' | dd of=extlen.cmt bs=1 seek=$((n + 4)) conv=notrunc status=none  # type, seq, time (2 bytes), plen
bad_input ext-length extlen.cmt "offset $n.*past the end"
printf 'header pid=1\nalloc dev=0 ptr=1 size=1\nalloc dev=0 ptr=2 size=1\n' | "$MKDUMP" - seq.cmt
n=$(rec_off seq.cmt 2)
printf '\x00' | dd of=seq.cmt bs=1 seek=$((n + 1)) conv=notrunc status=none
bad_input seq-not-increasing seq.cmt "offset $n.*sequence number"
# a string length over CMT_MAX_STR
printf 'header pid=1\nalloc dev=0 ptr=1 size=1\ninfo key=k value=v\n' | "$MKDUMP" - str.cmt
n=$(rec_off str.cmt 2)
printf '\xff\x7f' | dd of=str.cmt bs=1 seek=$((n + 5)) conv=notrunc status=none
bad_input huge-string str.cmt "offset $n"
# a directory without dumps, a missing file
mkdir -p nodumps; expect_rc 3 "$CMT_BIN" report nodumps; expect_rc 3 "$CMT_BIN" report missing.cmt
# random bit flips in the block area: exit 0 or 3, never a crash (rc >= 128) or hang
nscripts=0
for s in "$g"/*.script; do
    "$MKDUMP" "$s" "f_$(basename "$s" .script).cmt" || fail "mkdump $s"
    nscripts=$((nscripts + 1))
done
[ "$nscripts" -gt 0 ] || fail "no golden script"
python3 - <<'PY' || fail "could not make the bit-flipped dumps"
import random, glob
random.seed(1234)
for src in sorted(glob.glob('f_*.cmt')):
    d=open(src,'rb').read()
    for k in range(25):
        b=bytearray(d)
        for _ in range(random.randint(1,4)):
            i=random.randrange(4096, len(b)) if len(b)>4096 and random.random()<0.9 else random.randrange(0,4096)
            b[i]^=1<<random.randrange(8)
        open('%s.flip%02d'%(src,k),'wb').write(bytes(b))
PY
n=0
for f in f_*.flip*; do
    for sub in "report --no-symbols" "report --json --no-symbols" "dump"; do
        timeout 20 "$CMT_BIN" $sub "$f" >/dev/null 2>err.txt; rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat err.txt; fail "$f: $sub exited $rc"; }
        [ $rc -eq 3 ] && ! grep -q "^cumemtrack: .*$f" err.txt && { cat err.txt; fail "$f: message does not name the file"; }
    done
    n=$((n + 1))
done
# a few flipped ones under valgrind
if [ -n "$VALGRIND" ]; then
    for f in $(ls f_*.flip* | head -12); do
        $VALGRIND "$CMT_BIN" report --no-symbols "$f" >/dev/null 2>err.txt; rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat err.txt; fail "valgrind $f: exit $rc"; }
    done
fi
[ "$n" -eq $((nscripts * 25)) ] || fail "$n bit-flipped dumps checked, expected $((nscripts * 25))"
echo "ok: $n bit-flipped dumps"
