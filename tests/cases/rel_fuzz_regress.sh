# Bad input to the analyzer, beyond analyzer_corrupt (which covers hand-made header and record
# corruptions and bit flips of generated dumps): every input in tests/fuzz/regress/ (crashes and
# hangs found by `make fuzz`, kept as regression tests), real tracer dumps truncated at many
# offsets, bit-flipped real dumps, and huge counts (a header claiming 2^40 blocks, blocks claiming
# writer/index 0xffffffff, thousands of one-block writers, sequence numbers near 2^64). Each exits
# 0 or 3 (3 with a message naming the file), under `ulimit -v` 1 GiB and a 20 s time limit.
source "$CMT_ROOT/tests/cases/rel_lib.sh.inc"
export FAKECUDA_DEVICES=4
ulimit -v $((1024 * 1024))
# run_all FILE...: report, report --json, dump, check on each
run_all() {
    local f sub rc
    for f in "$@"; do
        for sub in "report --no-symbols" "report --json --no-symbols" "dump --raw" "check --no-symbols"; do
            timeout 20 "$CMT_BIN" $sub "$f" >/dev/null 2>err.txt; rc=$?
            case $rc in
                0|1) ;;  # check exits 1 on leaks
                3) grep -q "^cumemtrack: .*$f" err.txt || { cat err.txt; die "$f: $sub: message does not name the file"; } ;;
                124) die "$f: $sub: hang (time limit)" ;;
                *) cat err.txt; die "$f: $sub exited $rc" ;;
            esac
        done
    done
}
reg=$(ls "$CMT_ROOT"/tests/fuzz/regress/* 2>/dev/null | wc -l)
[ "$reg" -gt 0 ] && run_all "$CMT_ROOT"/tests/fuzz/regress/*
echo "ok $reg regression input(s) from fuzzing"
# a real dump: several threads, stacks, modules
LD_PRELOAD=$CMT_LIB CUMEMTRACK_DEPTH=8 CUMEMTRACK_OUTPUT=$PWD/real.cmt "$REL/rel_app" stress 4 400 2 >/dev/null 2>&1 \
    || die "could not make a real dump"
"$CMT_BIN" dump real.cmt >/dev/null || die "the real dump is unreadable"
python3 - <<'PY' >made.txt || die "could not make the hostile inputs"
import random, struct
random.seed(4242)
d = open('real.cmt', 'rb').read()
n = 0
# truncated: inside the header, at block boundaries, inside blocks
cuts = [0, 1, 8, 100, 4095, 4096, 4097, 4096 + 32, 4096 + 65536, len(d) - 1]
cuts += [random.randrange(4096, len(d)) for _ in range(14)]
for c in cuts:
    open('trunc_%07d.cmt' % c, 'wb').write(d[:c]); n += 1
for k in range(16):
    b = bytearray(d)
    for _ in range(random.randint(1, 8)):
        b[random.randrange(len(b))] ^= 1 << random.randrange(8)
    open('flip_%02d.cmt' % k, 'wb').write(bytes(b)); n += 1
# wrong versions
for v in (0, 2, 0xffff):
    b = bytearray(d); struct.pack_into('<H', b, 8, v); open('ver_%d.cmt' % v, 'wb').write(bytes(b)); n += 1
b = bytearray(d); struct.pack_into('<H', b, 10, 0xffff); open('minor_ffff.cmt', 'wb').write(bytes(b)); n += 1
# huge counts: blocks_used, header/block sizes, writer and index of every block, base_seq
b = bytearray(d); struct.pack_into('<Q', b, 328, 1 << 40); open('huge_blocks_used.cmt', 'wb').write(bytes(b)); n += 1
for off, val, name in ((12, 0xffffffff, 'header_size'), (16, 0xffffffff, 'block_size'), (16, 32, 'block_size32'), (16, 0, 'block_size0')):
    b = bytearray(d); struct.pack_into('<I', b, off, val); open('huge_%s.cmt' % name, 'wb').write(bytes(b)); n += 1
bs = 65536
nb = (len(d) - 4096) // bs
for field, off in (('writer', 4), ('index', 8)):
    b = bytearray(d)
    for i in range(nb):
        struct.pack_into('<I', b, 4096 + i * bs + off, 0xffffffff)
    open('huge_%s.cmt' % field, 'wb').write(bytes(b)); n += 1
b = bytearray(d)
for i in range(nb):
    struct.pack_into('<Q', b, 4096 + i * bs + 16, (1 << 64) - 2)
open('huge_seq.cmt', 'wb').write(bytes(b)); n += 1
# thousands of one-block writers (1 record each), and one writer with thousands of block indexes
hdr = bytearray(d[:4096])
struct.pack_into('<I', hdr, 16, 64)  # 64-byte blocks
def block(writer, index):
    blk = bytearray(64)
    struct.pack_into('<IIIIQq', blk, 0, 0x42544d43, writer, index, 1, 1 + writer * 100000 + index, 0)
    return bytes(blk)
open('many_writers.cmt', 'wb').write(bytes(hdr) + b''.join(block(w + 1, 0) for w in range(20000))); n += 1
open('many_indexes.cmt', 'wb').write(bytes(hdr) + b''.join(block(1, 20000 - i) for i in range(20000))); n += 1
print('made %d hostile inputs' % n)
PY
cat made.txt
made=$(awk '$1 == "made" { print $2 }' made.txt)
hostile=(trunc_*.cmt flip_*.cmt ver_*.cmt minor_*.cmt huge_*.cmt many_*.cmt)
for f in "${hostile[@]}"; do [ -f "$f" ] || die "no input matches $f"; done
[ "${#hostile[@]}" -eq "$made" ] || die "${#hostile[@]} inputs on disk, the generator made $made"
run_all "${hostile[@]}"
echo "ok $(ls trunc_* flip_* ver_* minor_* huge_* many_* | wc -l) truncated / flipped / wrong-version / huge-count inputs: exit 0 or 3, bounded memory, no hang"
echo PASS
