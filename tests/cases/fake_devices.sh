#!/usr/bin/env bash
# Without the tracker: FAKECUDA_DEVICES, CUDA_VISIBLE_DEVICES (indices, GPU-<uuid>, an invalid
# entry ends the list), distinct UUIDs / names / bus ids, ordinal -> physical in the ground truth,
# and FAKECUDA_MEM_MB forcing OOM.
source "$CMT_ROOT/tests/progs/fake_lib.sh"
need "$P/drv_devices" "$P/rt_oom.shared" "$P/rt_oom.static"
d=$P/drv_devices

"$d" >all.out || die "drv_devices"
grep -qx 'devices 4' all.out || die "default is 4 devices"
[ "$(awk '$1 == "device" { print $3 }' all.out | sort -u | wc -l)" = 4 ] || die "UUIDs not distinct"
grep -q '^device 1 GPU-[0-9a-f-]* Fake CUDA Device 1 | 0000:20:00.0$' all.out || die "device 1 description"
uuid() { awk -v o="$2" '$1 == "device" && $2 == o { print $3 }' "$1"; }

FAKECUDA_GROUND_TRUTH=$PWD/v23.gt CUDA_VISIBLE_DEVICES=2,3 "$d" >v23.out || die "CUDA_VISIBLE_DEVICES=2,3"
grep -qx 'devices 2' v23.out || die "2,3: count"
[ "$(uuid v23.out 0)" = "$(uuid all.out 2)" ] || die "2,3: ordinal 0 is not physical 2"
[ "$(uuid v23.out 1)" = "$(uuid all.out 3)" ] || die "2,3: ordinal 1 is not physical 3"
grep -q ' Fake CUDA Device 2 | 0000:30:00.0$' v23.out || die "2,3: name/bus of ordinal 0"
grep -q '^leak device 2 0 0x[0-9a-f]* 4096 exit$' v23.gt || die "2,3: ground truth PHYS/ORDINAL"

u3=$(uuid all.out 3)
CUDA_VISIBLE_DEVICES="$u3,1" "$d" >vu.out || die "uuid list"
grep -qx 'devices 2' vu.out && [ "$(uuid vu.out 0)" = "$u3" ] || die "GPU-<uuid> entry"
CUDA_VISIBLE_DEVICES="${u3:0:17},0" "$d" >vp.out || die "uuid prefix"
[ "$(uuid vp.out 0)" = "$u3" ] || die "GPU-<uuid prefix> entry"
CUDA_VISIBLE_DEVICES="${u3:0:12},0" "$d" >va.out || die "ambiguous uuid prefix"
grep -qx 'devices 0' va.out || die "an ambiguous GPU- prefix must end the list"
CUDA_VISIBLE_DEVICES=1,7,2 "$d" >vi.out || die "invalid entry"
grep -qx 'devices 1' vi.out || die "an invalid entry must end the list"
CUDA_VISIBLE_DEVICES=1,1,2 "$d" >vd.out || die "duplicate entry"
grep -qx 'devices 1' vd.out || die "a duplicate entry must end the list"
CUDA_VISIBLE_DEVICES= "$d" >ve.out || die "empty list"
grep -qx 'devices 0' ve.out || die "empty CUDA_VISIBLE_DEVICES: no devices"
CUDA_DEVICE_ORDER=PCI_BUS_ID FAKECUDA_DEVICES=8 CUDA_VISIBLE_DEVICES=7,0 "$d" >v8.out || die "8 devices"
grep -qx 'devices 2' v8.out && grep -q 'Fake CUDA Device 7 | 0000:80:00.0' v8.out || die "FAKECUDA_DEVICES=8"

for v in shared static; do
    FAKECUDA_MEM_MB=16 FAKECUDA_GROUND_TRUTH=$PWD/oom.$v.gt "$P/rt_oom.$v" >oom.$v.out 2>oom.$v.err ||
        { cat oom.$v.err; die "rt_oom.$v"; }
    grep -qx 'oom-ok 8388608' oom.$v.out || die "rt_oom.$v: FAKECUDA_MEM_MB=16 not honoured"
    compare_gt oom.$v.out oom.$v.gt rt_oom.$v
done
echo PASS
