#!/usr/bin/env bash
# Offline symbolization: a small binary built without -g resolves function names from its symbol
# table; with -g also file:line; a file found by GNU build-id under --debug-dir; --no-symbols and
# unresolvable modules give module+offset.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
cat >sym.c <<'C'
#include <stdlib.h>
__attribute__((noinline)) void *leaky_function(size_t n) {
    void *p = malloc(n);
    return p;
}
int main(void) { return leaky_function(8) == 0; }
C
cc -O0 -g -o sym_g sym.c || fail "cc -g"
cc -O0 -o sym_nog sym.c || fail cc
unset DEBUGINFOD_URLS
mkscript() { # BINARY PATH-IN-DUMP BUILD-ID
    local addr; addr=$(nm "$1" | awk '$3 == "leaky_function" { print $1 }')
    [ -n "$addr" ] || fail "nm $1"
    printf 'header pid=42 cmd=sym\ndevice ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G\n'
    printf 'module id=1 base=0x555555554000 path=%s buildid=%s seg=0x0:0x100000:5\n' "$2" "$3"
    printf 'stack id=1 0x%x\n' $((0x555555554000 + 0x$addr + 12))
    printf 'alloc dev=0 ptr=0x1000 size=1M stack=1\nexit clean\n'
}
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
mkscript sym_nog "$PWD/sym_nog" "$(bid sym_nog)" | "$MKDUMP" - nog.cmt || fail mkdump
"$CMT_BIN" report nog.cmt >nog.txt || fail report
grep -q "leaky_function (sym_nog+0x" nog.txt || { cat nog.txt; fail "no function name without -g"; }
mkscript sym_g "$PWD/sym_g" "$(bid sym_g)" | "$MKDUMP" - g.cmt || fail mkdump
"$CMT_BIN" report g.cmt >g.txt || fail report
grep -Eq "leaky_function .*sym.c:[234]$" g.txt || { cat g.txt; fail "no file:line with -g"; }
"$CMT_BIN" report --json g.cmt >g.json
python3 -c "
import json; d=json.load(open('g.json')); f=d['leaks'][0]['frames'][0]
assert f['function']=='leaky_function' and f['file'].endswith('sym.c') and f['line'] in (2,3,4), f
assert f['module'].endswith('/sym_g') and f['address'].startswith('0x'), f" || fail "JSON frame"
# by build-id in --debug-dir, the recorded path no longer existing
b=$(bid sym_g); mkdir -p "dbg/.build-id/${b:0:2}"; cp sym_g "dbg/.build-id/${b:0:2}/${b:2}.debug"
mkscript sym_g /gone/sym_g "$b" | "$MKDUMP" - bid.cmt
"$CMT_BIN" report --debug-dir dbg bid.cmt >bid.txt || fail report
grep -Eq "leaky_function .*sym.c:[234]" bid.txt || { cat bid.txt; fail "build-id lookup"; }
"$CMT_BIN" report bid.cmt >nobid.txt
grep -q "sym_g+0x" nobid.txt || { cat nobid.txt; fail "unresolvable: module+offset"; }
# a different binary at the recorded path (build-id mismatch) is not used
mkscript sym_g "$PWD/sym_nog" "$b" | "$MKDUMP" - mismatch.cmt
"$CMT_BIN" report mismatch.cmt >mm.txt; grep -q "leaky_function" mm.txt && fail "used a file whose build-id differs"
"$CMT_BIN" report --no-symbols g.cmt >ns.txt; grep -q "sym_g+0x" ns.txt || fail "--no-symbols"
grep -q leaky_function ns.txt && fail "--no-symbols symbolized"
echo ok
