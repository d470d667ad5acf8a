#!/usr/bin/env python3
"""dump_vs_truth.py — checks a tracer dump exactly against the fake driver's ground truth.

usage: dump_vs_truth.py DUMP_TEXT GROUND_TRUTH [PROGRAM_STDOUT] [REPORT_JSON] [--when-exit-only] [--peaks]

DUMP_TEXT is `cumemtrack dump DUMP` (the analyzer's reader, merged in sequence order). The
checker replays ALLOC/FREE/RETRACK/TEARDOWN itself, pointer by pointer, and demands:
  - every allocation recorded once: no ALLOC of a key that is already live;
  - the number of (non-captured) ALLOC records equals the fake's alloc_calls;
  - the set of allocations live at the end or ended by a teardown equals the ground truth's
    `leak` lines exactly: (kind, ordinal, pointer/handle, bytes);
  - with PROGRAM_STDOUT and REPORT_JSON: each `expect-leak KIND ORDINAL BYTES FUNCTION` line is
    matched by a report leak of that kind/device whose frames name FUNCTION (the caller's frame);
  - with --peaks and REPORT_JSON: each device's peak_bytes equals the ground truth's
    `peak ORDINAL BYTES` (the most the driver held on that device; devices it has no line for: 0).
Prints what differs and exits 1, or prints a one-line summary and exits 0.
"""
import json
import re
import sys

FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def parse_dump(path):
    """Yields (type, fields) per record: streamed, so memory follows the live set, not the dump."""
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            parts = line.split(None, 3)
            typ = parts[2]
            fields = dict(FIELD.findall(parts[3] if len(parts) > 3 else ''))
            yield typ, fields


def num(v):
    return int(v, 0)


def replay(recs):
    live = {}       # (space, ptr) -> (kind, dev, size, granted, ctx)
    ctx_dev = {}
    imported = set()
    leaks = []
    allocs = 0
    problems = []
    for typ, f in recs:
        if typ == 'CTX':
            ctx_dev[num(f['idx'])] = num(f['dev'])
        elif typ in ('ALLOC', 'RETRACK'):
            flags = num(f['flags'])
            if flags & 4:  # captured: a graph node
                continue
            if f['kind'] == 'imported':  # another process's memory: not an allocation of this one
                imported.add((flags & 3, num(f['ptr'])))
                continue
            key = (flags & 3, num(f['ptr']))
            if typ == 'ALLOC':
                allocs += 1
                if key in live:
                    problems.append('allocation recorded twice while live: %s 0x%x' % (f['api'], key[1]))
            live[key] = (f['kind'], num(f['dev']), num(f['size']), num(f['granted']), num(f['ctx']))
        elif typ == 'FREE':
            flags = num(f['flags'])
            if flags & 4:
                continue
            key = (flags & 3, num(f['ptr']))
            if key in imported:
                imported.discard(key)
                continue
            live.pop(key, None)
        elif typ == 'TEARDOWN':
            ctx, dev = num(f['ctx']), num(f['dev'])
            for key in list(live):
                kind, d, size, granted, c = live[key]
                if c == 0:
                    continue
                if (ctx and c == ctx) or (not ctx and ctx_dev.get(c) == dev):
                    leaks.append((kind, d, key[1], granted or size, 'teardown'))
                    del live[key]
    for key, (kind, d, size, granted, c) in live.items():
        leaks.append((kind, d, key[1], granted or size, 'exit'))
    return leaks, allocs, problems


def parse_truth(path, problems):
    """The ground truth's leak lines and NAME VALUE lines; a line of neither shape is a problem."""
    leaks, vals, peaks = [], {}, {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0].startswith('#'):
                continue
            try:
                if w[0] == 'leak' and len(w) == 7:
                    leaks.append((w[1], int(w[3]), int(w[4], 16), int(w[5]), w[6]))
                    continue
                if w[0] == 'peak' and len(w) == 3:
                    peaks[int(w[1])] = int(w[2])
                    continue
                if w[0] != 'leak' and len(w) == 2:
                    vals[w[0]] = int(w[1])
                    continue
            except ValueError:
                pass
            problems.append('%s:%d: malformed ground-truth line: %s' % (path, n, line.strip()))
    if 'alloc_calls' not in vals:
        problems.append('%s: no alloc_calls line' % path)
    vals['peaks'] = peaks
    return leaks, vals


def parse_expect(path, problems):
    """The program's `expect-leak KIND ORDINAL BYTES FUNCTION` lines; a malformed one is a problem
    (never skipped: an expectation the checker cannot read would otherwise check nothing)."""
    want = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or not w[0].startswith('expect-leak'):
                continue
            try:
                if w[0] == 'expect-leak' and len(w) == 5:
                    want.append((w[1], int(w[2]), int(w[3]), w[4]))
                    continue
            except ValueError:
                pass
            problems.append('%s:%d: malformed expectation: %s' % (path, n, line.strip()))
    return want


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    exit_only = '--when-exit-only' in sys.argv
    if len(args) < 2:
        print(__doc__)
        return 2
    leaks, allocs, problems = replay(parse_dump(args[0]))
    truth, vals = parse_truth(args[1], problems)
    got = sorted(l[:4] for l in leaks)
    want = sorted(l[:4] for l in truth if not exit_only or l[4] == 'exit')
    if got != want:
        gs, ws = set(got), set(want)
        for l in sorted(ws - gs):
            problems.append('in ground truth, not in dump: %s dev %d 0x%x %d bytes' % l)
        for l in sorted(gs - ws):
            problems.append('in dump, not in ground truth: %s dev %d 0x%x %d bytes' % l)
        if gs == ws:
            problems.append('leak multiplicities differ')
    if 'alloc_calls' in vals and allocs != vals['alloc_calls']:
        problems.append('dump has %d allocations, the driver made %d' % (allocs, vals['alloc_calls']))
    if len(args) >= 4:
        report = json.load(open(args[3]))
        expected = {}  # (kind, dev, function) -> bytes the program says it leaked from there
        for kind, dev, nbytes, fn in parse_expect(args[2], problems):
            expected[(kind, dev, fn)] = expected.get((kind, dev, fn), 0) + nbytes
        for (kind, dev, fn), nbytes in sorted(expected.items()):
            hits = [l for l in report['leaks'] if l['kind'] == kind and l['device'] == dev and
                    any((fr.get('function') or '').startswith(fn) for fr in l['frames'])]
            if not hits:
                problems.append('no %s leak on device %d with a frame in %s' % (kind, dev, fn))
            elif sum(l['bytes'] for l in hits) < nbytes:
                problems.append('%s leaks on device %d with a frame in %s: %d bytes, the program leaked %d' %
                                (kind, dev, fn, sum(l['bytes'] for l in hits), nbytes))
    if '--peaks' in sys.argv and len(args) >= 4:
        got_peaks = {d['ordinal']: d['peak_bytes'] for d in report['devices']}
        for dev in sorted(set(got_peaks) | set(vals['peaks'])):
            if got_peaks.get(dev, 0) != vals['peaks'].get(dev, 0):
                problems.append('device %d: report peak %d bytes, the driver held %d at most' %
                                (dev, got_peaks.get(dev, 0), vals['peaks'].get(dev, 0)))
    for p in problems:
        print('FAIL:', p)
    if problems:
        return 1
    print('ok: %d allocations, %d leaks match the driver exactly' % (allocs, len(got)))
    return 0


sys.exit(main())
