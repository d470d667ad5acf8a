#!/usr/bin/env bash
# `make install` installs the pytest plugin with an entry point (issue 27): with the installed
# site directory on PYTHONPATH and the installed bin/ on PATH, plain `pytest --cumemtrack` (the
# pytest command, no -p) loads it, re-executes under the installed cumemtrack and fails the leaking
# test; pytest lists its markers; make uninstall removes it all.
source "$CMT_ROOT/tests/cases/pytest_lib.sh.inc"
need_pytest
[ -x /usr/bin/pytest ] || { echo "no /usr/bin/pytest"; exit 77; }
prefix=$CMT_TMP/prefix
make -s -C "$CMT_ROOT" -o build/cumemtrack -o build/libcumemtrack.so -o build/libcumemtrack_mark.so install \
    PREFIX="$prefix" >make.log 2>&1 || { cat make.log; fail "make install failed"; }
site=$(find "$prefix" -name entry_points.txt -path '*cumemtrack-*.dist-info/*' | head -1)
[ -n "$site" ] || { find "$prefix"; fail "no entry_points.txt installed"; }
grep -qx '\[pytest11\]' "$site" && grep -qx 'cumemtrack.pytest_plugin = cumemtrack.pytest_plugin' "$site" || fail "entry point"
site=$(dirname "$(dirname "$site")")
[ -f "$site/cumemtrack/pytest_plugin.py" ] && [ -f "$site/cumemtrack/__init__.py" ] || fail "package not installed"
[ -f "$prefix/share/cumemtrack/gtest_listener.cpp" ] || fail "GoogleTest listener not installed"
grep -q "went to $site (for $PY)" make.log || { cat make.log; fail "install does not say where the plugin went"; }
# only the installed copies: no python/ on PYTHONPATH, no build/ on PATH
export PYTHONPATH=$site PATH=$prefix/bin:/usr/bin:/bin
build_torch_double
/usr/bin/pytest --markers 2>&1 | grep -q "@pytest.mark.cuda_limit_leaks" || fail "markers not registered by the entry point"
/usr/bin/pytest -p no:cacheprovider --cumemtrack "$SUITE" -rfE >ep.out 2>&1
rc=$?
[ "$rc" = 1 ] || { cat ep.out; fail "pytest --cumemtrack via the entry point: exit $rc"; }
grep '^ERROR ' ep.out | sed 's/ - .*//; s/.*:://' | sort >errored
printf 'test_leaks\ntest_over_memory\n' | diff - errored || { cat ep.out; fail "entry point: wrong tests"; }
grep -q "^8 tests in 1 process" ep.out || { cat ep.out; fail "entry point: table"; }
grep -q "$site/cumemtrack" <("$PY" -c 'import cumemtrack; print(cumemtrack.__file__)') || fail "not the installed copy"
/usr/bin/pytest -p no:cacheprovider "$SUITE" -k clean >plain.out 2>&1 || { cat plain.out; fail "plain pytest with the plugin installed"; }
grep -v "^plugins:" plain.out | grep -q cumemtrack && { cat plain.out; fail "the installed plugin spoke without --cumemtrack"; }
# the entry point is named like the module: -p cumemtrack.pytest_plugin as well is no second
# registration, and -p no:cumemtrack.pytest_plugin turns it off
/usr/bin/pytest -p cumemtrack.pytest_plugin -p no:cacheprovider "$SUITE" -k clean --cumemtrack >both.out 2>&1 ||
    { cat both.out; fail "installed plugin and -p cumemtrack.pytest_plugin"; }
/usr/bin/pytest -p no:cumemtrack.pytest_plugin -p no:cacheprovider "$SUITE" -k clean --cumemtrack >off.out 2>&1
[ $? = 4 ] && grep -q "unrecognized arguments: --cumemtrack" off.out || { cat off.out; fail "-p no:cumemtrack.pytest_plugin"; }
make -s -C "$CMT_ROOT" uninstall PREFIX="$prefix" >make.log 2>&1 || { cat make.log; fail "make uninstall failed"; }
[ -z "$(find "$prefix" -type f)" ] || { find "$prefix" -type f; fail "uninstall left files"; }
echo PASS
