# cumemtrack run: lists exactly the dumps the manifest names — the command's, a forked child's, an
# exec'd child's — and nothing else from the output directory; keeps an existing LD_PRELOAD;
# --no-children leaves no dump for exec'd children and none for forked ones; -o relative templates
# and a nested run's manifest.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
build_helper

# unrelated dumps already in the directory must not be listed
mkdir d1 && echo junk >d1/old.1.cmt
run_rc 0 run -o "d1/t.%p.cmt" -- ./helper alloc 1000 fork exec
grep -q "run: 3 dumps:" err.txt || { cat err.txt >&2; fail "expected 3 dumps"; }
listed_dumps >listed.txt
ls "$PWD"/d1/t.*.cmt | sort >files.txt
diff listed.txt files.txt >&2 || fail "listed dumps differ from the dumps written"
[ "$(wc -l <listed.txt)" -eq 3 ] || fail "expected 3 dump files"
grep -q "old.1.cmt" listed.txt && fail "an unrelated dump was listed"
for l in "leaked:" "peak:" "OOM:"; do grep -q "^cumemtrack: $l" err.txt || fail "no '$l' summary line"; done
# 1000 + 2222 (fork) + 3333 (exec) leaked, 3 processes
grep -q "leaked: .*(6555 bytes) in 3 allocations at 3 sites" err.txt || { cat err.txt >&2; fail "wrong leak summary"; }
"$CMT_BIN" report --json d1/t.*.cmt >r.json || fail "report failed"
json_check r.json 'assert len(r["processes"]) == 3, r["processes"]'

# --no-children: neither the exec'd nor the forked child writes a dump
mkdir d2
run_rc 0 run --no-children -o "$PWD/d2/t.%p.cmt" -- ./helper alloc 1000 fork exec
grep -q "run: 1 dump:" err.txt || { cat err.txt >&2; fail "--no-children: expected 1 dump"; }
[ "$(ls d2 | wc -l)" -eq 1 ] || { ls d2 >&2; fail "--no-children: children wrote dumps"; }
listed_dumps >listed.txt
[ "$(cat listed.txt)" = "$(ls "$PWD"/d2/*)" ] || fail "--no-children: wrong dump listed"
grep -q "(1000 bytes) in 1 allocation at 1 site" err.txt || { cat err.txt >&2; fail "--no-children: wrong summary"; }

# an existing LD_PRELOAD is kept, and loaded, and ours comes after it
cat >pre.c <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void pre_loaded(void)
{
    const char *m = getenv("PRE_MARK");
    FILE *f = m ? fopen(m, "a") : NULL;
    if (f) { fputs("loaded\n", f); fclose(f); }
}
CEOF
cc -shared -fPIC -o libpre.so pre.c || fail "cannot build libpre.so"
mkdir d3
LD_PRELOAD=$PWD/libpre.so PRE_MARK=$PWD/mark.txt run_rc 0 run -o "d3/t.%p.cmt" -- ./helper env alloc 10
grep -q "^LD_PRELOAD=$PWD/libpre.so:$CMT_LIB\$" out.txt ||
    { cat out.txt >&2; fail "LD_PRELOAD not kept or ours not appended: $(cat out.txt)"; }
grep -q loaded mark.txt || fail "the existing preload was not loaded"
[ "$(ls d3 | wc -l)" -eq 1 ] || fail "no dump with an existing LD_PRELOAD"

# our library already preloaded: not added twice
LD_PRELOAD=$CMT_LIB run_rc 0 run -o "d3/u.%p.cmt" -- ./helper env
grep -q "^LD_PRELOAD=$CMT_LIB\$" out.txt || { cat out.txt >&2; fail "tracer preloaded twice"; }

# a relative template is relative to run's directory, also for a command that changes directory
mkdir d4 sub
run_rc 0 run -o "d4/t.%p.cmt" -- sh -c 'cd sub && exec ../helper alloc 10'
[ "$(ls d4 | wc -l)" -eq 1 ] && [ "$(ls sub | wc -l)" -eq 0 ] || fail "relative template not anchored"

# a nested run hands its dumps to the outer manifest
mkdir d5
run_rc 0 run -o "d5/outer.%p.cmt" -- "$CMT_BIN" run -o "d5/inner.%p.cmt" -- ./helper alloc 10
grep -q "run: 1 dump:" err.txt || { cat err.txt >&2; fail "nested run: outer did not list the inner dump"; }
listed_dumps | grep -q "/d5/inner\." || fail "nested run: wrong dump listed"
# a program linked with AddressSanitizer: its libasan is preloaded first (else ASan aborts)
if cc -fsanitize=address -std=c11 -D_GNU_SOURCE -g -I"${CUDA_HOME:-/usr/local/cuda}/include" -o helper_asan helper.c \
        -L"$CMT_TESTBIN/fakert" -l:libcudart.so.13 -Wl,-rpath,"$CMT_TESTBIN/fakert" 2>asan_build.txt; then
    mkdir d6
    ASAN_OPTIONS=detect_leaks=0 run_rc 0 run -o "d6/t.%p.cmt" -- ./helper_asan env alloc 10
    grep -q "^LD_PRELOAD=libasan\.so[.0-9]*:$CMT_LIB\$" out.txt || { cat out.txt err.txt >&2; fail "ASan: wrong LD_PRELOAD"; }
    grep -q "run: 1 dump:" err.txt || { cat err.txt >&2; fail "ASan: no dump"; }
else
    echo "note: no AddressSanitizer here; its case is not checked"
fi
echo ok
