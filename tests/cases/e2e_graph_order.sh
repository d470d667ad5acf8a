#!/usr/bin/env bash
# Graph memory in launch order (issue 25, item 4): a launch allocates and frees its memory nodes
# in an order the graph's edges allow (a free that an allocation depends on comes first), and a
# capture's free nodes come from every stream that joined it. drv_graph_order puts one case on
# each device; the report's per-device peaks and leaks must equal what the fake driver held
# (its ground truth's `peak` lines: 1, 1, 2 and 5 MiB; nothing leaked). Device 4: two unordered
# branches, counted live together (3 MiB), as README "Graph launches and the peak" says. Device 5:
# a capture into an existing graph, after its alloc node (1 MiB).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
export FAKECUDA_DEVICES=6
traced order "$P/drv_graph_order" || { cat order.err; die "drv_graph_order exited $?"; }
check order --peaks
python3 - order.json order.gt <<'PY' || die "graph memory in launch order"
import json, sys
r = json.load(open(sys.argv[1]))
peaks = {x['ordinal']: x['peak_bytes'] for x in r['devices']}
MiB = 1 << 20
assert peaks == {0: MiB, 1: MiB, 2: 2 * MiB, 3: 5 * MiB, 4: 3 * MiB, 5: MiB}, peaks
assert r['leaks'] == [], r['leaks']
truth = dict((int(w[1]), int(w[2])) for w in (l.split() for l in open(sys.argv[2])) if w[0] == 'peak')
assert truth == peaks, truth
PY
echo PASS
