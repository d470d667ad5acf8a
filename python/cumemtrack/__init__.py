"""cumemtrack from Python: the tracer's test markers, the analyzer's size grammar, and the pytest
plugin (cumemtrack.pytest_plugin: ``pytest --cumemtrack``).

The marker functions call the tracer's exported C API (include/cumemtrack.h) through ctypes: they
exist only when libcumemtrack.so is preloaded (``cumemtrack run``); without it they do nothing.
"""

import ctypes
import re

__all__ = ["tracer", "test_begin", "test_end", "mark", "dump_path", "parse_size", "human_size", "SizeError"]

_UNSET = object()
_lib = _UNSET


def tracer():
    """The preloaded tracer (a ctypes library with cmt_test_begin, cmt_test_end, cmt_mark and
    cmt_dump_path), or None when this process runs without it."""
    global _lib
    if _lib is _UNSET:
        lib = None
        try:
            proc = ctypes.CDLL(None)
            for name in ("cmt_test_begin", "cmt_test_end", "cmt_mark", "cmt_dump_path"):
                getattr(proc, name)
            proc.cmt_test_begin.argtypes = [ctypes.c_char_p]
            proc.cmt_test_begin.restype = None
            proc.cmt_test_end.argtypes = [ctypes.c_char_p]
            proc.cmt_test_end.restype = None
            proc.cmt_mark.argtypes = [ctypes.c_char_p]
            proc.cmt_mark.restype = None
            proc.cmt_dump_path.argtypes = []
            proc.cmt_dump_path.restype = ctypes.c_char_p
            lib = proc
        except (AttributeError, OSError):
            lib = None
        _lib = lib
    return _lib


def _label(s):
    return s.encode("utf-8", "replace") if isinstance(s, str) else bytes(s)


def test_begin(name):
    """Begins the range of test NAME (the analyzer's per-test view)."""
    lib = tracer()
    if lib is not None:
        lib.cmt_test_begin(_label(name))


def test_end(name):
    """Ends the range of test NAME."""
    lib = tracer()
    if lib is not None:
        lib.cmt_test_end(_label(name))


def mark(label):
    """A point marker (cmt_mark): live memory at this moment, growth across markers of a label."""
    lib = tracer()
    if lib is not None:
        lib.cmt_mark(_label(label))


def dump_path():
    """The path of the dump this process writes, or None (no tracer, or no dump yet)."""
    lib = tracer()
    if lib is None:
        return None
    p = lib.cmt_dump_path()
    return p.decode("utf-8", "surrogateescape") if p else None


class SizeError(ValueError):
    pass


# The grammar of the analyzer's cmt_parse_size (analyzer/util/util.c): digits, then optionally blanks
# and a unit: B, or K M G T (powers of 1024, any case) alone or followed by "B", "iB" or "ib".
_SIZE = re.compile(r"([0-9]+)(?:[ \t]*([^ \t].*))?\Z", re.S)
_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
SIZE_HELP = ('digits, then optionally a unit: B, K, M, G or T (powers of 1024; KiB, KB and K are the same), '
             'e.g. "0 B", "512 MiB", "2G" (as the cumemtrack CLI reads sizes)')


def parse_size(text):
    """Bytes of a size written as the cumemtrack CLI reads it ("0 B", "512 MiB", "4K", "1GiB").
    Raises SizeError with the reason otherwise."""
    if isinstance(text, bool):
        raise SizeError("not a size: %r (%s)" % (text, SIZE_HELP))
    if isinstance(text, int):
        if text < 0:
            raise SizeError("not a size: %r (a negative number)" % text)
        return text
    if not isinstance(text, str):
        raise SizeError("not a size: %r (a string or an int is needed; %s)" % (text, SIZE_HELP))
    m = _SIZE.match(text)
    if not m:
        raise SizeError("not a size: %r (%s)" % (text, SIZE_HELP))
    v = int(m.group(1))
    unit = m.group(2)
    mult = 1
    if unit:
        c = unit[0].upper()
        if c == "B" and len(unit) == 1:
            mult = 1
        elif c in _UNITS and unit[1:] in ("", "iB", "B", "ib"):
            mult = _UNITS[c]
        else:
            raise SizeError("not a size: %r (%s)" % (text, SIZE_HELP))
    if v * mult >= 1 << 64:
        raise SizeError("not a size: %r (more than 2^64 - 1 bytes)" % text)
    return v * mult


def human_size(b):
    """The analyzer's human-readable size (cmt_human_size): "0 B", "1.00 MiB", "11.0 MiB"."""
    if b < 1024:
        return "%d B" % b
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    v = float(b)
    i = 0
    while v >= 1024 and i < 5:
        v /= 1024
        i += 1
    fmt = "%.2f %s" if v < 10 else "%.1f %s" if v < 100 else "%.0f %s"
    return fmt % (v, units[i])
