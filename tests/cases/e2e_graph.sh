#!/usr/bin/env bash
# CUDA graph memory (issue 13, item 8): graph memory nodes (cuGraphAddMemAllocNode and stream-
# ordered allocations captured into a graph) are live from the launch that reaches them until a
# free node, a free outside the graph or an AUTO_FREE_ON_LAUNCH relaunch; destroying the graph
# or its executable does not free them (a leak at exit), kind graph, with the node's stack.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
traced graph "$P/drv_graph" || { cat graph.err; die "drv_graph exited $?"; }
check graph
python3 - graph.json <<'PY' || die "graph memory in the report"
import json, sys
r = json.load(open(sys.argv[1]))
assert all(v == 0 for k, v in r['anomalies'].items() if k != 'captured_allocations'), r['anomalies']
d = {x['ordinal']: x for x in r['devices']}
# peak: the captured graph's 3 MiB while the first graph's 1 MiB is live
assert d[0]['peak_bytes'] == 4 << 20 and d[0]['leaked_bytes'] == 1 << 20, d[0]
assert [(l['kind'], l['bytes']) for l in r['leaks']] == [('graph', 1 << 20)], r['leaks']
PY
echo PASS
