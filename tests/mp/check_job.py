#!/usr/bin/env python3
"""check_job.py — checks `cumemtrack report --json` of a whole test job (tests/cases/mp_*.sh).
usage: check_job.py REPORT.json [--np N] [--leak-rank R] [--skew-rank R] [--job-id J]
         [--gpus RANK=PHYS,PHYS ...] [--hosts N] [--shared PHYS=RANK,RANK ...] [--text REPORT.txt]
--gpus defaults to rank r on fake physical card (node * 4 + local rank) with 4 GPUs per node."""
import argparse, json, sys


def fake_uuid(p):  # as tests/fakecuda/fakecuda.c fk_uuid
    b = [0xfa, 0xce, 0xc0, 0xda, p, 0x5a ^ p, 0x40, 0x00, 0x80, 0x00] + [(p * 16 + i) & 0xff for i in range(10, 16)]
    h = ''.join('%02x' % x for x in b)
    return 'GPU-%s-%s-%s-%s-%s' % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


ap = argparse.ArgumentParser()
ap.add_argument('report')
ap.add_argument('--np', type=int)
ap.add_argument('--leak-rank', type=int)
ap.add_argument('--skew-rank', type=int)
ap.add_argument('--job-id')
ap.add_argument('--gpus', nargs='*', default=None)
ap.add_argument('--hosts', type=int)
ap.add_argument('--shared', nargs='*', default=[])
ap.add_argument('--text')
a = ap.parse_args()
rep = json.load(open(a.report))
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)


rows = [r for r in rep['ranks'] if r['forked_by'] is None]
by_rank = {r['rank']: r for r in rows}
if a.np is not None:
    check(sorted(by_rank) == list(range(a.np)), 'ranks %s, expected 0..%d' % (sorted(by_rank), a.np - 1))
    for r in rows:
        check(r['world_size'] == a.np, 'rank %s world_size %s' % (r['rank'], r['world_size']))
        check(r['local_rank'] is not None, 'rank %s has no local rank' % r['rank'])
if a.job_id is not None:
    for r in rows:
        check(r['job_id'] == a.job_id, 'rank %s job_id %r' % (r['rank'], r['job_id']))
hosts = sorted({r['host'] for r in rows})
if a.hosts is not None:
    check(len(hosts) == a.hosts, 'hosts %s, expected %d' % (hosts, a.hosts))
# GPUs by UUID: each rank on the expected physical cards
if a.gpus is not None:
    want = {}
    for g in a.gpus:
        rk, phys = g.split('=')
        want[int(rk)] = [fake_uuid(int(p)) for p in phys.split(',')]
else:
    per = {}
    want = {}
    for r in sorted(rows, key=lambda r: r['rank']):
        node = hosts.index(r['host']) if a.hosts and a.hosts > 1 else 0
        want[r['rank']] = [fake_uuid(node * 4 + r['local_rank'])]
for rk, uu in want.items():
    got = by_rank.get(rk, {}).get('uuids')
    check(got == uu, 'rank %d on GPUs %s, expected %s' % (rk, got, uu))
gpus = {g['uuid']: g for g in rep['imbalance']['gpus']}
for rk, uu in want.items():
    r = by_rank.get(rk)
    if r and uu:  # the leak is on ordinal 0: the first card of the list, by UUID
        g = gpus.get(uu[0])
        check(g is not None and g['leaked_bytes'] >= r['leaked_bytes'],
              'rank %d leak not on %s: %s' % (rk, uu[0], g))
outl = rep['rank_imbalance']['outliers']
if a.leak_rank is not None:
    r = by_rank[a.leak_rank]
    check(any(o.startswith('rank %d on host %s leaks ' % (a.leak_rank, r['host'])) for o in outl),
          'leaking rank %d not named: %s' % (a.leak_rank, outl))
if a.skew_rank is not None:
    r = by_rank[a.skew_rank]
    check(any(o.startswith('rank %d on host %s peaks ' % (a.skew_rank, r['host'])) and 'x the mean' in o for o in outl),
          'skewed rank %d not named: %s' % (a.skew_rank, outl))
shared = {s['uuid']: s for s in rep['shared_gpus']}
want_shared = {}
for s in a.shared:
    phys, rks = s.split('=')
    want_shared[fake_uuid(int(phys))] = sorted(int(x) for x in rks.split(','))
for u, rks in want_shared.items():
    check(u in shared and sorted(shared[u]['ranks']) == rks, 'shared %s: %s, expected ranks %s' % (u, shared.get(u), rks))
check(set(shared) == set(want_shared), 'shared GPUs %s, expected %s' % (sorted(shared), sorted(want_shared)))
if a.text:
    t = open(a.text).read()
    check('\nranks\n' in t, 'no ranks section in the text report')
    for o in outl:
        check('outlier: ' + o in t, 'text report lacks: ' + o)
if errors:
    print('\n'.join('check_job: ' + e for e in errors))
    sys.exit(1)
print('check_job: ok (%d ranks, %d hosts, outliers: %s)' % (len(rows), len(hosts), ' | '.join(outl)))
