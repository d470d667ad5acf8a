#!/usr/bin/env bash
# NVIDIA's graphMemoryNodes sample (issue 25, item 4), its memory sequence rewritten with the
# driver API (drv_graph_sample): the driver holds 96 000 001 bytes at most and nothing at exit;
# the report must say the same (old trackers: a 160 000 001-byte peak and a false 32 000 000-byte
# graph leak, from the free on the stream that joined the capture and from counting every alloc
# node of a launch live at once).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
traced sample "$P/drv_graph_sample" || { cat sample.err; die "drv_graph_sample exited $?"; }
check sample --peaks
python3 - sample.json <<'PY' || die "graphMemoryNodes figures"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x['ordinal']: x for x in r['devices']}
assert d[0]['peak_bytes'] == 96000001, d[0]
assert d[0]['leaked_bytes'] == 0 and r['leaks'] == [], r['leaks']
PY
# the CI gate passes the correct program
"$CMT_BIN" check sample.cmt >check.out 2>&1 || { cat check.out; die "check fails a program that leaks nothing"; }
echo PASS
