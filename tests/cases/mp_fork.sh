#!/usr/bin/env bash
# Workers a rank forks (data loaders, mp.spawn) inherit its output template: with a template
# without %p (DIR/%h.%r.cmt) each still gets its own dump (the next free suffix .1 .2 ...), with
# only its own allocations, and the report ties it to its rank (forked_by). Checks %h and %r.
. "$(dirname "$0")/mp_lib.sh.inc"
mkdir -p job
MP_WORKERS=3 "$MP/launch.sh" torchrun 2 -- "$CMT_BIN" run -o "$PWD/job/%h.%r.cmt" -- "$MP/rank.sh" >job.out 2>job.err \
    || fail "job failed"
h=$(hostname)
for r in 0 1; do
    for s in "" .1 .2 .3; do [ -f "job/$h.$r.cmt$s" ] || fail "missing job/$h.$r.cmt$s: $(ls job)"; done
done
[ "$(ls job | wc -l)" = 8 ] || fail "$(ls job | wc -l) dumps, expected 8"
report job job
python3 - job.json job.out <<'PY' || fail "workers' dumps"
import json, sys
r = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().split('\n')
workers = {int(l.split()[2]): int(l.split()[3]) for l in out if l.startswith('worker-pid ')}
mains = {int(l.split()[1]) for l in out if l.startswith('rank-pid ')}
assert len(workers) == 6 and len(mains) == 2, (workers, mains)
rows = {x['pid']: x for x in r['ranks']}
assert set(rows) == set(workers) | mains, (sorted(rows), workers, mains)
procs = {p['pid']: p for p in r['processes']}
for pid, leak in workers.items():
    x = rows[pid]
    assert x['forked_by'] in mains and x['rank'] == rows[x['forked_by']]['rank'], x
    assert x['leaked_bytes'] == leak and x['peak_bytes'] == leak, x  # its allocation only
    assert procs[pid]['ppid'] == x['forked_by']
for pid in mains:
    assert rows[pid]['forked_by'] is None and rows[pid]['leaked_bytes'] == 262144, rows[pid]
# a rank's workers count with it: nobody is an outlier
assert r['rank_imbalance']['ranks_compared'] == 2, r['rank_imbalance']
print('ok: %d workers in their own dumps' % len(workers))
PY
grep -q "(forked by pid" job.txt || fail "text report does not mark the workers"
echo ok
