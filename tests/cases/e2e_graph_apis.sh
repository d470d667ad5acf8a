#!/usr/bin/env bash
# Graph APIs beyond memory nodes made one by one (issue 25, item 5): cuGraphAddNode alloc/free
# nodes, cuGraphInstantiateWithParams and the 5-argument cuGraphInstantiate, cuGraphUpload, a
# child graph with memory nodes moved into its parent, cuGraphClone (refused with memory nodes;
# a clone's alloc nodes are its own), cuGraphExecUpdate, instantiation for device launch. Each
# device holds one case (drv_graph_apis); peaks and leaks must equal the fake driver's.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
traced apis "$P/drv_graph_apis" || { cat apis.err; die "drv_graph_apis exited $?"; }
check apis --peaks
python3 - apis.json <<'PY' || die "graph APIs"
import json, sys
r = json.load(open(sys.argv[1]))
MiB = 1 << 20
peaks = {x['ordinal']: x['peak_bytes'] for x in r['devices']}
assert peaks == {0: 2 * MiB, 1: 4 * MiB, 2: 2 * MiB + 4096, 3: 4 * MiB + 4096}, peaks
assert [(l['kind'], l['device'], l['bytes']) for l in r['leaks']] == [('graph', 0, 2 * MiB)], r['leaks']
fr = [f.get('function') or '' for f in r['leaks'][0]['frames']]
assert any(f.startswith('add_alloc_node') for f in fr) and any(f.startswith('add_node_with_params') for f in fr), fr
PY
echo PASS
