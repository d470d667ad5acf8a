#!/usr/bin/env bash
# Python frames in every consumer (issue 14): suppressions match Python function names and file
# paths; diff and check --baseline tell Python call sites apart (function chains carry the Python
# frames: the three sites of tests/golden/python.script share their native frames); the OOM
# post-mortem, check's failure message and timeline --perfetto's stacks print Python frames; JSON keeps every frame with "kind".
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
"$MKDUMP" "$g/python.script" py.cmt || fail mkdump
# a second run: Model.leak grew (2 MiB instead of 1), activation and gradient unchanged
sed 's/size=1M kind=device stack=3/size=2M kind=device stack=3/' "$g/python.script" >py2.script
"$MKDUMP" py2.script py2.cmt || fail mkdump
# suppressions: a Python qualified name, then a Python file path
printf 'leak:Model.leak\n' >supp1.txt
expect_rc 0 "$CMT_BIN" report --no-symbols --suppressions supp1.txt py.cmt
sed -n '/^leaks/,/^peaks/p' out.txt | grep -q "Model.leak" && fail "suppressed Python function still reported"
grep -q "97.0 MiB leaked at 3 sites" out.txt || { cat out.txt; fail "suppression by Python name"; }
printf 'leak:/work/train.py\n' >supp2.txt
expect_rc 0 "$CMT_BIN" check --no-symbols --suppressions supp2.txt py.cmt
# diff: only the Model.leak chain grew; the others are unchanged (not merged into one chain)
expect_rc 0 "$CMT_BIN" diff --json --no-symbols py.cmt py2.cmt
python3 - out.txt <<'PY' || fail "diff chains with Python frames"
import json, sys
d = json.load(open(sys.argv[1]))
def walk(o):
    if isinstance(o, dict):
        if 'chain' in o: yield o
        for v in o.values(): yield from walk(v)
    elif isinstance(o, list):
        for v in o: yield from walk(v)
rows = list(walk(d))
chains = {r['chain'] for r in rows}
assert 'malloc;Model.leak;<module>' in chains, chains
assert 'malloc;activation;<module>' in chains, chains
assert 'malloc;gradient;<module>' in chains, chains
assert not any('python3.11' in c for c in chains), chains
PY
# check --baseline: fails on the grown Python call site and names it
expect_rc 1 "$CMT_BIN" check --no-symbols --baseline py.cmt py2.cmt
grep -q "Model.leak" err.txt || { cat err.txt; fail "check --baseline names the Python frame"; }
# OOM post-mortem with Python frames
cat "$g/python.script" | sed 's/^exit clean/oom dev=0 size=100G stack=3 api=cuMemAlloc_v2\nexit clean/' >oom.script
"$MKDUMP" oom.script oom.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" report --no-symbols oom.cmt
sed -n '/^out-of-memory errors/,/^imbalance/p' out.txt | grep -q "Model.leak /work/train.py:48" || { cat out.txt; fail "OOM post-mortem Python frames"; }
# timeline --perfetto: each allocation's stack (an instant beside the counter), OOMs too
expect_rc 0 "$CMT_BIN" timeline --perfetto oom.cmt
python3 - out.txt <<'PY' || fail "perfetto stacks"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents'] if isinstance(d, dict) else d
st = [e for e in ev if e.get('cat') == 'stack']
assert len(st) == 4 and st[2]['args']['stack'] == ['malloc /work/train.py:33', 'Model.leak /work/train.py:48', '<module> /work/train.py:92'], st
oom = [e for e in ev if e.get('cat') == 'oom']
assert oom and oom[0]['args']['stack'][1] == 'Model.leak /work/train.py:48', oom
PY
# JSON: Python frames as {"kind":"python",...}; the hidden interpreter frames kept, flagged
"$CMT_BIN" report --json --no-symbols py.cmt >py.json || fail json
python3 - py.json <<'PY' || fail "JSON frames"
import json, sys
d = json.load(open(sys.argv[1]))
fr = d['leaks'][0]['frames']
py = [f for f in fr if f['kind'] == 'python']
assert py[0] == {'kind': 'python', 'function': 'malloc', 'file': '/work/train.py', 'line': 33}, py[0]
nat = [f for f in fr if f['kind'] == 'native']
assert nat and all(f['hidden'] == 'interpreter' for f in nat), nat
PY
echo ok
