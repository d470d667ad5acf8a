#!/usr/bin/env python3
"""bench/live_top.py — the "Live view (top)" section of BENCHMARKS.md: can `cumemtrack top` keep up
with 256 growing dumps written at 1 M events/s in total, on one core?

1. Records LT_DUMPS (256) dumps with the real tracer: traced cmtbench processes on the fake driver
   (FAKECUDA_FAST=1), LT_PAIRS (20000) cuMemAlloc/cuMemFree pairs each, CUMEMTRACK_DEPTH 8.
2. Replays their growth: a copier (pinned to another core) writes every dump into a watched
   directory block by block, in file order (the order the tracer claimed the blocks; staging blocks
   included), all dumps in step, at LT_RATE (1 000 000) events/s in total (events per block from
   the finished dumps), the header first, each block body before its header as the tracer does.
3. Meanwhile `cumemtrack top -n LT_INTERVAL (0.25) --frames K` runs pinned to ONE core (taskset -c
   0) over that directory, stdout to a file; K covers the growth plus LT_TAIL (8) frames.
Reported: top's CPU time (user + sys, wait4) against the wall time of the growth, the records per
CPU second, and whether its last frame had read every record (the records count of `top --once
--json` on the finished directory). Asserts nothing.
usage: bench/live_top.py [FILE]   (appends the Markdown section to FILE, else prints it)
"""
import json, os, shutil, subprocess, sys, tempfile, time, re

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get('BUILD', os.path.join(root, 'build'))
B = B if os.path.isabs(B) else os.path.join(root, B)
n = int(os.environ.get('LT_DUMPS', 256))
pairs = int(os.environ.get('LT_PAIRS', 20000))
rate = float(os.environ.get('LT_RATE', 1e6))
interval = float(os.environ.get('LT_INTERVAL', 0.25))
tail = int(os.environ.get('LT_TAIL', 8))
bench, cmt, lib = os.path.join(B, 'bench/cmtbench'), os.path.join(B, 'cumemtrack'), os.path.join(B, 'libcumemtrack.so')
for f in (bench, cmt, lib, os.path.join(B, 'tests/fakecuda/libcuda.so.1')):
    if not os.path.exists(f):
        sys.exit('live_top.py: %s missing (make all test-programs %s/bench/cmtbench)' % (f, B))
tmp = tempfile.mkdtemp(prefix='cmt-livetop.')
try:
    src, job = os.path.join(tmp, 'src'), os.path.join(tmp, 'job')
    os.mkdir(src); os.mkdir(job)
    env = dict(os.environ, FAKECUDA_FAST='1', CUMEMTRACK_QUIET='1', CUMEMTRACK_DEPTH='8',
               LD_LIBRARY_PATH=os.path.join(B, 'tests/fakecuda'))
    t0 = time.time()
    procs = []
    for r in range(n):
        e = dict(env, LD_PRELOAD=lib, CUMEMTRACK_OUTPUT=os.path.join(src, 'r%03d.%%p.cmt' % r), RANK=str(r))
        procs.append(subprocess.Popen([bench, 'pairs', 'cuda', '8', str(pairs), '1'], env=e, stdout=subprocess.DEVNULL))
        if len(procs) >= 4:
            procs.pop(0).wait()
    for p in procs:
        p.wait()
    rec_s = time.time() - t0
    dumps = sorted(os.listdir(src))
    final = json.loads(subprocess.run([cmt, 'top', '--once', '--json', '--no-symbols', src], capture_output=True,
                                      text=True, check=True).stdout)
    events = final['events']
    # the growth: blocks of every dump in file order, all dumps in step
    hs, bs = 4096, 65536
    sizes = [os.path.getsize(os.path.join(src, d)) for d in dumps]
    nblk = [(s - hs) // bs for s in sizes]
    total_blocks = sum(nblk)
    grow_s = events / rate
    frames = int(grow_s / interval) + tail
    out = open(os.path.join(tmp, 'frames.txt'), 'w')
    top = subprocess.Popen(['taskset', '-c', '0', cmt, 'top', '-n', str(interval), '--frames', str(frames), job],
                           stdout=out, stderr=subprocess.STDOUT)
    try:
        os.sched_setaffinity(0, {1} if os.cpu_count() > 1 else {0})
    except OSError:
        pass
    fin = [open(os.path.join(src, d), 'rb') for d in dumps]
    fout = []
    for d, fi in zip(dumps, fin):
        fo = open(os.path.join(job, d), 'wb')
        fo.write(fi.read(hs)); fo.flush()
        fout.append(fo)
    start = time.time()
    done = [0] * n
    while sum(done) < total_blocks:
        frac = min(1.0, (time.time() - start) / grow_s)
        for i in range(n):
            want = int(nblk[i] * frac + 0.5)
            while done[i] < want:
                blk = fin[i].read(bs)
                fout[i].write(b"\0" * 32 + blk[32:])  # the body first, the header last
                fout[i].flush()
                fout[i].seek(hs + done[i] * bs)
                fout[i].write(blk[:32]); fout[i].flush()
                fout[i].seek(0, 2)
                done[i] += 1
        time.sleep(0.01)
    wrote_s = time.time() - start
    _, status, ru = os.wait4(top.pid, 0)
    out.close()
    cpu = ru.ru_utime + ru.ru_stime
    text = open(os.path.join(tmp, 'frames.txt')).read()
    counts = [int(m) for m in re.findall(r'^cumemtrack top: .*?, (\d+) records read', text, re.M)]
    last = counts[-1] if counts else 0
    lines = [
        '', '## Live view (top)', '',
        '`bench/live_top.py`: %d dumps recorded by the tracer (cmtbench, %d cuMemAlloc/cuMemFree pairs each,'
        ' depth 8; %d records in all, %.0f s to record), then grown block by block in a watched directory at'
        ' %.2g records/s in total while `cumemtrack top -n %g --frames %d` follows them pinned to one core'
        ' (taskset -c 0; the copier runs on another).' % (n, pairs, events, rec_s, rate, interval, frames), '',
        '| figure | value |', '| --- | --- |',
        '| growth (wall) | %.2f s (%d blocks) |' % (wrote_s, total_blocks),
        '| records written per second | %.0f |' % (events / wrote_s),
        '| top CPU time (user + sys) | %.2f s (%.2f + %.2f) |' % (cpu, ru.ru_utime, ru.ru_stime),
        '| top CPU over the growth | %.0f %% of one core |' % (100 * cpu / (wrote_s + tail * interval)),
        '| records read per CPU second | %.0f |' % (events / cpu if cpu else 0),
        '| last frame read every record | %s (%d of %d) |' % ('yes' if last == events else 'NO', last, events),
        '| top peak RSS | %.0f MiB |' % (ru.ru_maxrss / 1024),
        '| top exit status | %d |' % os.waitstatus_to_exitcode(status), '']
    text = '\n'.join(lines) + '\n'
    if len(sys.argv) > 1:
        open(sys.argv[1], 'a').write(text)
    else:
        sys.stdout.write(text)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
