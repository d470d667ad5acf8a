#!/usr/bin/env bash
# The Python frame walker on synthetic CPython structures (tests/unit/py_walk.c): grouping, each
# validation that ends a walk (counted in python_walk_failed), bounds, interning, lines; a version
# without a layout entry and an unknown object layout give no frames and the INFO note.
set -u
T=$CMT_TESTBIN/unit/py_walk
[ -x "$T" ] || { echo "py_walk not built"; exit 77; }
"$T" || exit 1
CUMEMTRACK_PYTHON_VERSION=3.99 "$T" future || exit 1
"$T" layout || exit 1
echo PASS
