#!/usr/bin/env bash
# cumemtrack top on a RUNNING Python job (issue 25 item 3), as a user watches one: a ctypes script
# (tests/python/grow_phases.py) started with `cumemtrack run` on the fake runtime grows device memory
# step by step; at each phase `top --once --json DIR` (no crash, schema-valid) and `top --once DIR`
# show the report's stacks: Python frames interleaved (step, <module>), the runtime's internal frame
# above cudaMallocAsync and the interpreter/ctypes/libffi frames hidden (JSON: every frame, "kind",
# "hidden" as the report's JSON, never "python": true/false), and for a stack with more frames than
# the view has room for, the frames nearest the user's code (the API entry, then mid_a and the
# Python frames, "... 2 frames" for the native frames skipped). top's JSON frames equal the frames
# `report --json` gives for the same stacks once the job has exited; flame, timeline --perfetto,
# check and diff name the report's shown frames; the HTML report's summary line of the deep stack is
# its Python frame (the same rule).
source "$CMT_ROOT/tests/cases/py_lib.sh.inc"
py=$(interpreters 8 | head -n 1)
[ -n "$py" ] || { echo "no CPython 3.8+ found"; exit 77; }
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT
wait_for() { # FILE: the job's phase file, while the job runs
    for _ in $(seq 1200); do
        [ -e "$1" ] && return 0
        kill -0 "$rp" 2>/dev/null || { cat run.err; die "the job ended before $1"; }
        sleep 0.05
    done
    die "timeout waiting for $1"
}
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
cc -shared -fPIC -O0 -g "$PYDIR/mid.c" -o libmid.so -L"$FAKERT" -l:libcudart.so.13 || die "libmid.so"
cp "$PYDIR/grow_phases.py" grow.py
S=$(grep -n 'rt.cudaMalloc(' grow.py | cut -d: -f1)
A=$(grep -n 'rt.cudaMallocAsync(' grow.py | cut -d: -f1)
D=$(grep -n 'mid.mid_a(' grow.py | cut -d: -f1)
M1=$(grep -n 'keep.append(step())' grow.py | cut -d: -f1)
M2=$(grep -n 'keep.append(step_async())' grow.py | cut -d: -f1)
M3=$(grep -n '        deep()' grow.py | cut -d: -f1)
STEPS=3
mkdir st job
"$CMT_BIN" run -o "$PWD/job/%p.cmt" -- "$py" grow.py "$PWD/st" "$PWD/libmid.so" 2 $STEPS >run.out 2>run.err &
pids+=($!)
rp=$!

# top_phase N: one JSON and one text frame while the job waits in phase N
top_phase() {
    local n=$1
    "$CMT_BIN" top --once --json job >j$n.json 2>j$n.err
    local rc=$?
    [ $rc = 0 ] || { cat j$n.err; die "top --once --json (phase $n): exit $rc"; }
    python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/top-schema.json" j$n.json || die "j$n.json: schema"
    "$CMT_BIN" top --once job >t$n.txt 2>t$n.err || { cat t$n.err; die "top --once (phase $n)"; }
    cat t$n.txt
    python3 - j$n.json "$n" "$STEPS" <<'PY' || die "top --json frames (phase $1)"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]); steps = int(sys.argv[3])
MiB = 1 << 20
rows = {r["live_bytes"]: r for r in d["top_live"]}
want = {2 * MiB * steps * n: "deep", MiB * steps * n: "step", MiB // 2 * steps * n: "step_async"}
assert set(rows) == set(want), (sorted(rows), sorted(want))
for b, fn in want.items():
    fr = rows[b]["frames"]
    for f in fr:
        assert "python" not in f and f["kind"] in ("native", "python"), f
    py = [f["function"] for f in fr if f["kind"] == "python"]
    assert py == [fn, "<module>"], (fn, py)
    assert all(f["file"].endswith("/grow.py") and f["line"] > 0 for f in fr if f["kind"] == "python"), fr
    shown = [f["function"] for f in fr if "hidden" not in f]
    api = "cudaMallocAsync" if fn == "step_async" else "cudaMalloc"
    mids = ["mid_c", "mid_b", "mid_a"] if fn == "deep" else []
    assert shown == [api] + mids + [fn, "<module>"], (fn, shown)
    # the hidden ones: the interpreter's machinery (ctypes, libffi, the eval loop), and above
    # cudaMallocAsync the fake runtime's internal frame
    hid = [f for f in fr if "hidden" in f]
    assert hid and all(f["kind"] == "native" for f in hid), hid
    if fn == "step_async":
        assert fr[0]["function"] == "fr_malloc_async" and fr[0]["hidden"] == "cuda", fr[0]
    assert {f["hidden"] for f in hid} <= {"interpreter", "cuda", "startup"}, hid
PY
    # text: at most 4 frames a stack, those nearest the user's code; hidden frames never shown
    python3 - t$n.txt "$PWD/grow.py" "$S" "$A" "$D" "$M1" "$M2" "$M3" <<'PY' || die "top text frames (phase $n)"
import re, sys
txt, g, S, A, D, M1, M2, M3 = sys.argv[1:]
g = re.escape(g)
sec = open(txt).read().split("TOP STACKS BY LIVE BYTES\n")[1].split("\n\n")[0]
rows = [b.split("\n")[1:] for b in re.split(r"\n(?=  \S)", "\n" + sec.strip("\n")) if b.strip()]
want = [  # bytes desc: deep (2 MiB a step), step (1 MiB), step_async (512 KiB)
    [r"cudaMalloc tests/fakert/fakert\.c:\d+", r"\.\.\. 2 frames", r"mid_a \S*mid\.c:\d+", "deep %s:%s" % (g, D),
     "<module> %s:%s" % (g, M3)],
    [r"cudaMalloc tests/fakert/fakert\.c:\d+", "step %s:%s" % (g, S), "<module> %s:%s" % (g, M1)],
    [r"cudaMallocAsync tests/fakert/fakert\.c:\d+", "step_async %s:%s" % (g, A), "<module> %s:%s" % (g, M2)],
]
assert len(rows) == 3, rows
for got, w in zip(rows, want):
    got = [l[6:] for l in got]
    assert len(got) == len(w), (got, w)
    for l, r in zip(got, w):
        assert re.fullmatch(r, l), (l, r)
PY
    grep -Eq "fr_malloc_async|libffi|_ctypes|python3|_PyEval" t$n.txt && die "phase $n: hidden frames in the text"
    return 0
}

wait_for st/phase1
top_phase 1
touch st/go1
wait_for st/phase2
top_phase 2
cp j2.json running.json
touch st/go2
wait $rp || { cat run.err; die "the job failed"; }
# the same stacks, from the report of the finished dump: the same frames, one path
"$CMT_BIN" report --json job >report.json || die "report --json"
python3 - running.json report.json <<'PY' || die "top's frames differ from the report's"
import json, sys
top = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
rf = [l["frames"] for l in rep["leaks"]]
assert len(rf) == 3, len(rf)
for r in top["top_live"]:
    assert r["frames"] in rf, r["frames"]
PY
# every other view of the finished dump names the same frames (the report's shown ones), for
# each of the three stacks: flame's folded stacks, timeline --perfetto's stack instants, check's
# failure message, diff's function chains
"$CMT_BIN" flame --leaks --no-device job >flame.txt || die "flame"
"$CMT_BIN" timeline --perfetto job >trace.json || die "timeline --perfetto"
"$CMT_BIN" check job >check.out 2>check.err; [ $? = 1 ] || die "check should fail on the leaks"
"$CMT_BIN" diff --json job job >diff.json || die "diff"
python3 - report.json flame.txt trace.json check.err diff.json <<'PY' || die "a view's frames differ from the report's"
import json, sys
rep, flame, trace, check, diff = sys.argv[1:]
shown = [[f["function"] for f in l["frames"] if "hidden" not in f] for l in json.load(open(rep))["leaks"]]
assert len(shown) == 3 and all(shown), shown
fl = [l.rsplit(" ", 1)[0].split(";") for l in open(flame).read().splitlines()]
assert sorted([[x.split(" ")[0] for x in f] for f in fl]) == sorted([list(reversed(s)) for s in shown]), (fl, shown)
ev = json.load(open(trace))["traceEvents"]
st = {tuple(x.split(" ")[0] for x in e["args"]["stack"]) for e in ev if e.get("cat") == "stack"}
assert st == {tuple(s) for s in shown}, (st, shown)
msg = [l.strip().split(" ")[0] for l in open(check).read().splitlines() if l.startswith("        ")]
for s in shown:
    assert any(msg[i:i + len(s)] == s for i in range(len(msg))), (s, msg)
ch = {tuple(r["functions"]) for r in json.load(open(diff))["leaks"]}
assert ch == {tuple(s) for s in shown}, (ch, shown)
PY
# the HTML report's short views (a stack's summary line, a tooltip's frames) follow the same rule:
# the deep stack's summary is its Python frame, not the first native frame after the API entry
"$CMT_BIN" report --html -o report.html job || die "report --html"
python3 - report.html <<'PY' || die "HTML summary frames"
import json, re, sys
h = open(sys.argv[1]).read()
d = json.loads(re.findall(r'<script type="application/json" id="cmt-data">(.*?)</script>', h, re.S)[0])
deep = [i for i, f in enumerate(d["stacks"]) if any(x.startswith("mid_a ") for x in f)]
assert deep, d["stacks"]
for i in deep:
    f = d["stacks"][i]
    assert f[d["stacks_user"][i]].startswith("deep "), (f, d["stacks_user"][i])
    assert [f[k] for k in d["stacks_brief"][i]] == f, d["stacks_brief"][i]  # 6 shown frames: all fit in 8
PY
echo PASS
