"""pytest --cumemtrack: GPU memory leak gates per test (the pytest plugin of cumemtrack).

Load it with ``-p cumemtrack.pytest_plugin`` (python/ on PYTHONPATH), or install cumemtrack
(``make install``: an entry point, then ``pytest --cumemtrack`` finds it). Only pytest is needed.

How it works:
  * Without the tracer in this process, ``--cumemtrack`` re-executes the same pytest command under
    ``cumemtrack run --quiet`` (the ``cumemtrack`` command on PATH): one command does it all. The
    variable CUMEMTRACK_PYTEST marks the re-executed process, so it never happens twice.
  * Every test (setup, call and teardown) is a range of test markers in the dump
    (cmt_test_begin/cmt_test_end, include/cumemtrack.h), named by its node id.
  * A test marked ``@pytest.mark.cuda_limit_leaks("0 B")`` or
    ``@pytest.mark.cuda_limit_memory("512 MiB")`` is judged right after its teardown: the plugin
    runs ``cumemtrack report --json`` on this process's own dump (the tracer writes it through a
    shared mapping, so what is recorded is readable while the process runs) and fails the test's
    teardown, in pytest's own terms, with the leaking stack in the message.
  * At the end, the per-test table (``cumemtrack report``'s "tests": GPU memory each test left
    live at its end, what caching allocators hold, its peak, the top leaking stack) is printed in
    pytest's terminal summary; pytest-xdist workers are processes with dumps of their own, which
    they hand to the controller, whose table merges them.
  * ``--cumemtrack-dir DIR`` keeps the dumps (``cumemtrack report DIR`` shows the same view);
    without it they go to a temporary directory that is removed at the end.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

import cumemtrack

LIMITS = (
    ("cuda_limit_leaks", "leaked_bytes",
     "cuda_limit_leaks(SIZE): fail this test when it leaves more than SIZE of GPU memory it allocated live at its "
     "end (caching-allocator holdings are not leaks) (cumemtrack; needs --cumemtrack)"),
    ("cuda_limit_memory", "peak_bytes",
     "cuda_limit_memory(SIZE): fail this test when the GPU memory it allocated peaks above SIZE during it "
     "(cumemtrack; needs --cumemtrack)"),
)
REEXEC_ENV = "CUMEMTRACK_PYTEST"
TENSORS_CONF = "backend:cudaMallocAsync"  # what `cumemtrack run --tensors` puts in PYTORCH_CUDA_ALLOC_CONF


def alloc_backend(conf):
    """The backend PYTORCH_CUDA_ALLOC_CONF names (comma-separated key:value pairs, blanks allowed, as
    `cumemtrack run --tensors` reads it), or None."""
    for item in (conf or "").split(","):
        key, sep, value = item.partition(":")
        if sep and key.strip() == "backend":
            return value.strip()
    return None
TMPDIR_ENV = "CUMEMTRACK_PYTEST_TMPDIR"
DUMP_TEMPLATE = "pytest.%h.%p.cmt"
OLD_DUMP = re.compile(r"pytest\..*\.cmt(\.[0-9]+)?\Z")  # what DUMP_TEMPLATE makes (.N: the name was taken)


def pytest_addoption(parser):
    group = parser.getgroup("cumemtrack", "GPU memory per test (cumemtrack)")
    group.addoption("--cumemtrack", action="store_true", default=False,
                    help="track GPU memory per test under cumemtrack (re-executes pytest under `cumemtrack run` "
                         "unless the tracer is loaded); a per-test table at the end; enables the cuda_limit_leaks "
                         "and cuda_limit_memory markers")
    group.addoption("--cumemtrack-dir", metavar="DIR", default=None,
                    help="keep the dumps in DIR (created; earlier pytest.*.cmt dumps in it are removed first): "
                         "`cumemtrack report DIR` shows the same per-test view")
    group.addoption("--cumemtrack-top", metavar="N", type=int, default=10,
                    help="tests shown in the table (default 10; 0: all)")
    group.addoption("--cumemtrack-tensors", action="store_true", default=False,
                    help="one allocation per PyTorch tensor (cumemtrack run --tensors: PYTORCH_CUDA_ALLOC_CONF="
                         "backend:cudaMallocAsync), so a test that keeps a tensor leaks it even when PyTorch's "
                         "cache had room for it")
    group.addoption("--cumemtrack-caching-allocator", metavar="REGEX", action="append", default=[],
                    help="also a caching allocator (as cumemtrack report --caching-allocator): what a stack with a "
                         "frame matching REGEX holds is cached, not leaked (repeatable)")
    group.addoption("--cumemtrack-suppressions", metavar="FILE", default=None,
                    help="leak:PATTERN suppressions (as cumemtrack report --suppressions): matching stacks are not "
                         "leaks")


_owned_tmp = {}  # id(config) -> the temporary dump directory that session removes at its end


def pytest_configure(config):
    for name, _, help_text in LIMITS:
        config.addinivalue_line("markers", help_text)
    if not config.getoption("cumemtrack"):
        if config.getoption("cumemtrack_tensors"):
            raise pytest.UsageError("--cumemtrack-tensors: needs --cumemtrack")
        return
    if os.environ.get(REEXEC_ENV) and not hasattr(config, "workerinput") and os.environ.get(TMPDIR_ENV):
        # the re-executed controller owns it; taken out of the environment so that no test's own
        # pytest (a subprocess, or pytester in this process) removes it
        _owned_tmp[id(config)] = os.environ.pop(TMPDIR_ENV)
    if config.getoption("cumemtrack_top") < 0:
        raise pytest.UsageError("--cumemtrack-top: needs a number >= 0")
    if config.getoption("cumemtrack_tensors"):
        # PyTorch reads PYTORCH_ALLOC_CONF (when set) and PYTORCH_CUDA_ALLOC_CONF, in an order that
        # depends on the release: both must name the backend. In place (started under cumemtrack
        # run) or with a backend named already, PyTorch may have chosen its allocator in this
        # process, so it is not changed from here.
        wrong = [v for v in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
                 if (v == "PYTORCH_CUDA_ALLOC_CONF" or os.environ.get(v))
                 and alloc_backend(os.environ.get(v)) != "cudaMallocAsync"]
        if wrong:
            raise pytest.UsageError(
                "--cumemtrack-tensors: %s does not name %s in this process (%r); start pytest without the tracer "
                "(the plugin re-executes it under `cumemtrack run --tensors`) or as `cumemtrack run --tensors -- "
                "pytest ...`, with no other backend named" % (wrong[0], TENSORS_CONF, os.environ.get(wrong[0], "")))
    if cumemtrack.tracer() is None and (os.environ.get(REEXEC_ENV) or hasattr(config, "workerinput")):
        raise pytest.UsageError(
            "--cumemtrack: pytest runs without the tracer (libcumemtrack.so is not preloaded) although it was "
            "started under `cumemtrack run`; is LD_PRELOAD overwritten?")
    config.pluginmanager.register(CumemtrackPlugin(config), "cumemtrack-session")


def pytest_unconfigure(config):
    """The re-executed controller removes the temporary dump directory (no --cumemtrack-dir)."""
    tmp = _owned_tmp.pop(id(config), None)
    if tmp and os.path.basename(tmp).startswith("cumemtrack-pytest-"):
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Re-executes pytest under `cumemtrack run` when --cumemtrack is given and this process runs
    without the tracer (before any test is collected)."""
    if not config.getoption("cumemtrack") or cumemtrack.tracer() is not None:
        return None
    if os.environ.get(REEXEC_ENV) or hasattr(config, "workerinput"):
        return None  # pytest_configure reports it
    if config.getoption("help", False) or config.getoption("version", False):
        return None
    if list(config.invocation_params.args) != list(sys.argv[1:]):
        # pytest.main(ARGS) from a program of its own: re-executing that program would run its
        # code again (and not this pytest), so the program itself must start under the tracer
        raise pytest.UsageError("--cumemtrack: pytest was started from a program (pytest.main) without the "
                                "tracer; run that program under `cumemtrack run -- ...`")
    exe = shutil.which("cumemtrack")
    if not exe:
        raise pytest.UsageError("--cumemtrack: the cumemtrack command is not on PATH (make install, or put the "
                                "build directory on PATH)")
    keep = config.getoption("cumemtrack_dir")
    if keep:
        keep = os.path.abspath(keep)
        try:
            os.makedirs(keep, exist_ok=True)
            for f in os.listdir(keep):
                if OLD_DUMP.match(f):
                    os.unlink(os.path.join(keep, f))
        except OSError as e:
            raise pytest.UsageError("--cumemtrack-dir %s: %s" % (keep, e.strerror or e))
        outdir = keep
    else:
        outdir = tempfile.mkdtemp(prefix="cumemtrack-pytest-")
        os.environ[TMPDIR_ENV] = outdir
    os.environ[REEXEC_ENV] = "1"
    argv = _own_command()
    cmd = [exe, "run", "--quiet", "-o", os.path.join(outdir, DUMP_TEMPLATE)]
    if config.getoption("cumemtrack_tensors"):
        cmd.append("--tensors")
    cmd += ["--"] + argv
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(exe, cmd)
    except OSError as e:
        if not keep:
            shutil.rmtree(outdir, ignore_errors=True)
        raise pytest.UsageError("--cumemtrack: cannot run %s: %s" % (exe, e.strerror or e))
    return None


def _own_command():
    """This interpreter's command line: the same pytest again (python -m pytest ..., pytest ...)."""
    orig = getattr(sys, "orig_argv", None)  # Python 3.10+: the interpreter's own options too
    if orig:
        return [sys.executable] + list(orig[1:])
    return [sys.executable, "-m", "pytest"] + list(sys.argv[1:])


def manifest_dumps():
    """The dumps `cumemtrack run` has seen created so far (its manifest: one path a line)."""
    try:
        with open(os.environ["CUMEMTRACK_MANIFEST"]) as f:
            return [line.rstrip("\n") for line in f if line.strip() and os.path.exists(line.rstrip("\n"))]
    except (KeyError, OSError):
        return []


def check_report_options(options):
    """A usage error when the analyzer refuses OPTIONS (a regex that does not compile, a bad
    suppressions file): it says so with exit 2 before it looks at dumps."""
    exe = shutil.which("cumemtrack")
    if not exe:
        return
    p = subprocess.run([exe, "report", "--quiet"] + list(options) + ["--", os.devnull], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=_analyzer_env(), universal_newlines=True)
    if p.returncode == 2:
        raise pytest.UsageError(p.stderr.strip())


def _analyzer_env():
    """The environment for the analyzer: without the tracer (it must not track itself)."""
    env = dict(os.environ)
    pre = [p for p in env.get("LD_PRELOAD", "").replace(":", " ").split() if "libcumemtrack" not in p]
    if pre:
        env["LD_PRELOAD"] = " ".join(pre)
    else:
        env.pop("LD_PRELOAD", None)
    env.pop("CUMEMTRACK_MANIFEST", None)
    return env


def analyze(paths, top=3, options=()):
    """The "tests" of `cumemtrack report --json` (with OPTIONS) on the dumps PATHS, or raises
    RuntimeError."""
    exe = shutil.which("cumemtrack")
    if not exe:
        raise RuntimeError("the cumemtrack command is not on PATH")
    cmd = [exe, "report", "--json", "--quiet", "--top", str(max(top, 1))] + list(options) + ["--"] + list(paths)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_analyzer_env(),
                       universal_newlines=True, encoding="utf-8", errors="replace")
    if p.returncode != 0:
        raise RuntimeError("`%s` exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    try:
        return json.loads(p.stdout).get("tests", [])
    except ValueError as e:
        raise RuntimeError("`%s` wrote no JSON: %s" % (" ".join(cmd), e))


def this_test(rows, nodeid, pid):
    """The row of the test NODEID that process PID ran last (the tracer keeps the first 1024 bytes
    of a name: a longer one matches by that prefix), or None."""
    mine = [r for r in rows if r["pid"] == pid]
    same = [r for r in mine if r["name"] == nodeid]
    if not same and len(nodeid.encode("utf-8")) > 1024:
        same = [r for r in mine if r["name"] and nodeid.startswith(r["name"].rstrip("\ufffd"))]
    return max(same, key=lambda r: r["begin_ns"]) if same else None


def format_frame(f):
    """One frame as the analyzer's text prints it (render_text.c cmt_print_frame)."""
    if f.get("kind") == "python":
        if f.get("line"):
            return "%s %s:%d" % (f.get("function"), f.get("file") or "?", f["line"])
        return "%s %s" % (f.get("function"), f.get("file") or "?")
    mod = os.path.basename(f.get("module") or "?")
    off = int(f.get("offset") or "0", 16)
    if f.get("function") and f.get("file"):
        return "%s %s:%d%s" % (f["function"], f["file"], f.get("line") or 0, " (inlined)" if f.get("inlined") else "")
    if f.get("function"):
        return "%s (%s+0x%x)" % (f["function"], mod, off)
    return "%s+0x%x" % (mod, off)


def _runner_frame(f):
    """A frame of pytest or pluggy running the test: left out of the plugin's stacks."""
    fn = f.get("file") or ""
    return f.get("kind") == "python" and ("/_pytest/" in fn or "/pluggy/" in fn)


def _user_frame(frames):
    """The frame nearest the user's code, as the analyzer picks it (cmt_stack_user_frame): the
    innermost Python frame, else the frame that called the API entry point (the second)."""
    for i, f in enumerate(frames):
        if f.get("kind") == "python":
            return i
    return 1 if len(frames) > 1 else 0


def format_frames(frames, indent="        ", limit=8):
    """At most LIMIT frames up to the test runner's own, hidden ones left out unless all are, picked
    as every view of the analyzer picks them (cmt_stack_pick, cmt_print_frames): all when they fit,
    else the API entry (what allocated), then LIMIT - 1 from the user's frame outward, a line
    "... N frames" where frames are left out. PyTorch puts a dozen native frames between
    cudaMalloc and the test's Python line: the line must still show."""
    if not frames:
        return [indent + "(no stack recorded)"]
    visible = [f for f in frames if not f.get("hidden")] or frames
    for i, f in enumerate(visible):
        if _runner_frame(f):
            visible = visible[:i] or visible
            break
    n = len(visible)
    if n <= limit:
        picked = list(range(n))
    elif limit <= 1:
        picked = [_user_frame(visible)]
    else:
        start = min(max(_user_frame(visible), 1), n - (limit - 1))
        picked = [0] + list(range(start, start + limit - 1))
    out, prev = [], None
    for i in picked:
        if prev is not None and i - prev > 1:
            gap = i - prev - 1
            out.append("%s... %d frame%s" % (indent, gap, "" if gap == 1 else "s"))
        out.append(indent + format_frame(visible[i]))
        prev = i
    return out


class LimitFailure:
    """A test's limit failure as a pytest longrepr: the whole text, its first line in the short
    test summary (reprcrash.message), a plain string where reports are serialized (xdist)."""

    def __init__(self, text, path, lineno):
        self.text = text
        self.reprcrash = _Crash(text.splitlines()[0], path, lineno)

    def toterminal(self, tw):
        for line in self.text.splitlines():
            tw.line(line)

    def __str__(self):
        return self.text


class _Crash:
    def __init__(self, message, path, lineno):
        self.message, self.path, self.lineno = message, path, lineno


def top_stack(row, status=("leaked",)):
    for s in row.get("stacks", []):
        if s.get("status") in status:
            return s
    return None


class CumemtrackPlugin:
    """The session's side (with --cumemtrack, under the tracer)."""

    def __init__(self, config):
        self.config = config
        self.worker = hasattr(config, "workerinput")
        self.open = None
        self.dumps = []  # dumps of xdist workers (the controller's table merges them)
        self.worker_lost = False  # an xdist worker died: its dump is found through the run's manifest
        self.bad_limits = {}  # nodeid -> usage error (seen in a worker: its test fails)
        self.report_options = []  # for every `cumemtrack report`
        for regex in config.getoption("cumemtrack_caching_allocator"):
            self.report_options += ["--caching-allocator", regex]
        supp = config.getoption("cumemtrack_suppressions")
        if supp:
            if not os.path.isfile(supp):
                raise pytest.UsageError("--cumemtrack-suppressions %s: no such file" % supp)
            self.report_options += ["--suppressions", os.path.abspath(supp)]
        if self.report_options:
            check_report_options(self.report_options)

    # ---- limits: parsed at collection (a bad size is a usage error)
    def _limits(self, item):
        out = []
        for name, key, _ in LIMITS:
            m = item.get_closest_marker(name)
            if m is None:
                continue
            if len(m.args) != 1 or m.kwargs:
                raise cumemtrack.SizeError('@pytest.mark.%s takes one size, e.g. @pytest.mark.%s("0 B")' % (name, name))
            try:
                out.append((name, key, cumemtrack.parse_size(m.args[0]), m.args[0]))
            except cumemtrack.SizeError as e:
                raise cumemtrack.SizeError("@pytest.mark.%s(%r): %s" % (name, m.args[0], e))
        return out

    def pytest_collection_modifyitems(self, session, config, items):
        for item in items:
            try:
                self._limits(item)
            except cumemtrack.SizeError as e:
                msg = "cumemtrack: %s: %s" % (item.nodeid, e)
                if not self.worker:
                    raise pytest.UsageError(msg)
                self.bad_limits[item.nodeid] = msg

    # ---- the markers around each test
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.open = item.nodeid
        cumemtrack.test_begin(item.nodeid)
        try:
            yield
        finally:
            if self.open is not None:  # no teardown report (an interrupted test)
                cumemtrack.test_end(self.open)
                self.open = None

    def pytest_runtest_setup(self, item):
        if item.nodeid in self.bad_limits:
            raise pytest.UsageError(self.bad_limits[item.nodeid])

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        if call.when == "teardown" and self.open is not None:
            cumemtrack.test_end(self.open)  # after every fixture's teardown
            self.open = None
        outcome = yield
        if call.when != "teardown" or item.nodeid in self.bad_limits:
            return
        limits = self._limits(item)
        if not limits:
            return
        report = outcome.get_result()
        failure = self._judge(item, limits)
        if failure:
            report.outcome = "failed"
            if report.longrepr:
                failure = "%s\n\n%s" % (report.longrepr, failure)
            path, lineno = str(item.location[0]), (item.location[1] or 0) + 1
            report.longrepr = LimitFailure(failure, path, lineno)

    def _judge(self, item, limits):
        path = cumemtrack.dump_path()
        if not path:
            return "cumemtrack: cannot judge %s: this process writes no dump" % item.nodeid
        try:
            row = this_test(analyze([path], options=self.report_options), item.nodeid, os.getpid())
        except RuntimeError as e:
            return "cumemtrack: cannot judge %s: %s" % (item.nodeid, e)
        if row is None:
            return "cumemtrack: cannot judge %s: its range is not in %s" % (item.nodeid, path)
        msgs = []
        for name, key, limit, text in limits:
            if row[key] <= limit:
                continue
            if key == "leaked_bytes":
                msg = ("cumemtrack: %s of GPU memory leaked, limit %s (@pytest.mark.%s(%r)): allocated during %s "
                       "and still live at its end" % (cumemtrack.human_size(row[key]), cumemtrack.human_size(limit),
                                                      name, text, item.nodeid))
                s = top_stack(row)
                if s:
                    msg += "\n    %s in %d allocation%s on device %d, allocated at:\n%s" % (
                        cumemtrack.human_size(s["bytes"]), s["allocations"], "" if s["allocations"] == 1 else "s",
                        s["device"], "\n".join(format_frames(s["frames"])))
            else:
                msg = ("cumemtrack: GPU memory peaked at %s, limit %s (@pytest.mark.%s(%r)): the most of what %s "
                       "allocated live at one moment" % (cumemtrack.human_size(row[key]), cumemtrack.human_size(limit),
                                                         name, text, item.nodeid))
            msgs.append(msg)
        return "\n".join(msgs)

    # ---- xdist: a worker hands its dump to the controller
    def pytest_sessionfinish(self, session):
        if self.worker:
            path = cumemtrack.dump_path()
            if path:
                session.config.workeroutput["cumemtrack_dump"] = path

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        out = getattr(node, "workeroutput", None) or {}
        if out.get("cumemtrack_dump"):
            self.dumps.append(out["cumemtrack_dump"])
        elif error is not None:
            self.worker_lost = True  # it crashed before handing its dump over

    # ---- the table
    def pytest_terminal_summary(self, terminalreporter):
        if self.worker:
            return
        tr = terminalreporter
        paths = list(self.dumps)
        own = cumemtrack.dump_path()
        if own and own not in paths:
            paths.insert(0, own)
        if self.worker_lost:
            paths += [p for p in manifest_dumps() if p not in paths]
        if not paths:
            return  # no test ran (none collected, --collect-only, a usage error)
        top = self.config.getoption("cumemtrack_top")
        tr.write_sep("=", "cumemtrack: GPU memory per test")
        try:
            rows = analyze(paths, top=1, options=self.report_options)
        except RuntimeError as e:
            tr.write_line("cumemtrack: no per-test table: %s" % e, red=True)
            return
        for line in table_lines(rows, top):
            tr.write_line(line)
        held = [r for r in rows if r["cached_bytes"] and any(
            st.get("status") == "cached" and st.get("allocator") == "PyTorch" for st in r.get("stacks", []))]
        if held and not self.config.getoption("cumemtrack_tensors"):
            tr.write_line("cumemtrack: %d test%s grew PyTorch's cache: a tensor a test keeps can hide there, out of "
                          "its leak gate; --cumemtrack-tensors gives each tensor an allocation of its own"
                          % (len(held), "" if len(held) == 1 else "s"))
        keep = self.config.getoption("cumemtrack_dir")
        if keep:
            tr.write_line("dumps: %s (cumemtrack report %s)" % (os.path.abspath(keep), os.path.abspath(keep)))


def table_lines(rows, top):
    """The per-test table (the layout of `cumemtrack report`'s "per test" section)."""
    procs = len({(r["pid"], r["dump"]) for r in rows})
    out = ["%d test%s in %d process%s (GPU memory allocated during each test: leaked = still live at its end, "
           "cached = held by a caching allocator then, peak = the most live at one moment)"
           % (len(rows), "" if len(rows) == 1 else "s", procs, "" if procs == 1 else "es"),
           "  %10s %10s %10s  %s" % ("LEAKED", "CACHED", "PEAK", "TEST")]
    shown = rows if not top else rows[:top]
    for r in shown:
        note = {"next": ", no end marker", "unfinished": ", unfinished"}.get(r["end"], "")
        out.append("  %10s %10s %10s  %s (pid %d%s)" % (
            cumemtrack.human_size(r["leaked_bytes"]), cumemtrack.human_size(r["cached_bytes"]),
            cumemtrack.human_size(r["peak_bytes"]), r["name"], r["pid"], note))
        s = top_stack(r, ("leaked", "cached"))
        if s:
            what = "held by %s" % s["allocator"] if s["status"] == "cached" else "still live at its end"
            out.append("      %s in %d allocation%s %s:" % (cumemtrack.human_size(s["bytes"]), s["allocations"],
                                                            "" if s["allocations"] == 1 else "s", what))
            out.extend(format_frames(s["frames"]))
    rest = rows[len(shown):]
    if rest:
        out.append("  ... %d more test%s (%d leaking; --cumemtrack-top 0 shows all)"
                   % (len(rest), "" if len(rest) == 1 else "s", sum(1 for r in rest if r["leaked_bytes"])))
    return out
