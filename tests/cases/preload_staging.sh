# Staging blocks (include/cmt_format.h, BLOCKS): a writer's last records live in its staging block;
# a staging block whose (writer, index) was already copied to a normal block is skipped. Here the
# copy is simulated after the fact: appending a normal copy of every staging block, then scribbling
# over the staging originals, must not change what the reader sees.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
traced s "$P/rt_threads.shared" || die "rt_threads failed"
"$CMT_BIN" dump s.cmt | grep -v '^#' >before.txt || die "dump unreadable"
python3 - <<'PY' || die "could not rewrite the dump"
import struct
d = bytearray(open('s.cmt', 'rb').read())
HDR, BS = 4096, 65536
nst = 0
copies = []
for off in range(HDR, len(d) - BS + 1, BS):
    magic = struct.unpack_from('<I', d, off)[0]
    if magic == 0x53544d43:                      # CMTS: staging
        blk = bytearray(d[off:off + BS])
        struct.pack_into('<I', blk, 0, 0x42544d43)  # as the writer's copy would be: CMTB
        copies.append(bytes(blk))
        d[off + 40:off + 200] = b'\xff' * 160     # scribble over the stale original's records
        nst += 1
assert nst >= 1, 'no staging block found'
d += b''.join(copies)
open('s2.cmt', 'wb').write(d)
print('staging blocks:', nst)
PY
"$CMT_BIN" dump s2.cmt | grep -v '^#' >after.txt || die "rewritten dump unreadable"
diff before.txt after.txt >/dev/null || die "a stale staging copy was read"
echo PASS
