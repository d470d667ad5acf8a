#!/usr/bin/env bash
# cmt-test: long
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
# checked arithmetic: a time past 2^62 or below 0, a sequence number past 2^64 - 1, an
# allocation ending past 2^64 are corruption (exit 3 at the record or header field), not wrapped
bad_input time-delta-overflow "$CMT_ROOT/tests/fuzz/regress/time-delta-overflow.input" "offset 4143.*time 1001000 \+ delta"
printf 'header pid=1\nalloc dev=0 ptr=0x1000 size=1\nalloc dev=0 ptr=0x2000 size=1\nfree dev=0 ptr=0x1000\n' | "$MKDUMP" - arith.cmt
# patch FILE OFFSET FORMAT VALUE: a copy of arith.cmt with VALUE packed at OFFSET
patch() { python3 -c "import struct, sys
d = bytearray(open('arith.cmt', 'rb').read()); struct.pack_into(sys.argv[3], d, int(sys.argv[2]), int(sys.argv[4], 0))
open(sys.argv[1], 'wb').write(bytes(d))" "$@"; }
patch seqwrap.cmt 4112 '<Q' 0xffffffffffffffff   # block base_seq: the first record's seq wraps to 0
bad_input seq-wrap seqwrap.cmt "offset 4128.*sequence number 18446744073709551615 \+ delta 1"
patch basetime.cmt 4120 '<q' -5                   # block base_time_ns
bad_input negative-base-time basetime.cmt "offset 4120.*base_time_ns.*-5"
patch bigtime.cmt 4120 '<q' 0x3ffffffffffffff0    # + the first record's delta passes 2^62
bad_input time-past-2^62 bigtime.cmt "offset 4128.*passes 2\^62"
patch clock.cmt 64 '<q' -1
bad_input negative-start-clock clock.cmt "offset 64 \(start_clock_ns\)"
patch realtime.cmt 56 '<q' 0x7fffffffffffffff
bad_input huge-start-realtime realtime.cmt "offset 56 \(start_realtime_ns\)"
printf 'header pid=1\nalloc dev=0 ptr=0x1000 size=1\nalloc dev=0 ptr=0xfffffffffffff000 size=0x2000\n' | "$MKDUMP" - allocend.cmt
bad_input alloc-end-overflow allocend.cmt "offset 4143.*allocation .*ending past 2\^64"
printf 'header pid=1\nvmm op=1 ptr=0xffffffffffff0000 size=0x20000 handle=1\n' | "$MKDUMP" - vmmend.cmt
bad_input vmm-end-overflow vmmend.cmt "offset 4128.*mapping .*ending past 2\^64"
# a pointer delta wraps modulo 2^64 by design: an address near 2^64 after a low one is valid
printf 'header pid=1\nalloc dev=0 ptr=0x1000 size=1\nfree dev=0 ptr=0xffffffffffffff00\nfree dev=0 ptr=0x1000\n' | "$MKDUMP" - ptrwrap.cmt
expect_rc 0 "$CMT_BIN" dump ptrwrap.cmt
grep -q "FREE .*ptr=0xffffffffffffff00" out.txt || { cat out.txt; fail "a free of 0xffffffffffffff00 after 0x1000 does not read back"; }
grep -q "FREE .*ptr=0x1000 " out.txt || { cat out.txt; fail "the free of 0x1000 after 0xffffffffffffff00 does not read back"; }
echo "ok pointer deltas wrap modulo 2^64 (any address round-trips)"
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
