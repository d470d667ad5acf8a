# cumemtrack run -o TEMPLATE when the template's directories are missing or cannot be written:
# run creates the missing ones (mode 0700) before the command starts and the job is tracked; a
# directory component naming a process (%p, %r) is created by the tracer, which also creates
# missing directories when used without run (LD_PRELOAD + CUMEMTRACK_OUTPUT); a directory that
# cannot be created or written is exit 2 with a message naming it, and the command never starts.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
build_helper
umask 022
host=$(hostname)

# runs/ missing: created 0700, the dump is in it
run_rc 0 run -o 'runs/%h.%p.cmt' -- ./helper alloc 4096
[ -d runs ] || fail "runs/ was not created"
[ "$(stat -c %a runs)" = 700 ] || fail "runs/ has mode $(stat -c %a runs), not 700"
d=$(listed_dumps)
[ "$(echo "$d" | wc -l)" = 1 ] || { cat err.txt; fail "expected one dump listed"; }
case $d in "$PWD/runs/$host."*.cmt) ;; *) fail "dump listed as '$d', not in runs/";; esac
[ -f "$d" ] || fail "listed dump $d does not exist"
"$CMT_BIN" report --json "$d" >r.json || fail "the dump in runs/ is unreadable"
json_check r.json "assert r['leaks'][0]['bytes'] == 4096, r['leaks']"
echo "ok run -o 'runs/%h.%p.cmt' creates runs/ (0700) and the job is tracked"

# several levels, with %h and %% in directory names
run_rc 0 run -o 'deep/%h/a%%b/%p.cmt' -- ./helper alloc 100
for dir in deep "deep/$host" "deep/$host/a%b"; do
    [ "$(stat -c %a "$dir" 2>/dev/null)" = 700 ] || fail "$dir missing or not mode 700"
done
[ "$(ls "deep/$host/a%b/"*.cmt | wc -l)" = 1 ] || fail "no dump in deep/$host/a%b"
echo "ok nested missing directories (%h, %%) created, 0700"

# an existing directory keeps its mode
mkdir -m 755 kept
run_rc 0 run -o 'kept/%p.cmt' -- ./helper alloc 100
[ "$(stat -c %a kept)" = 755 ] || fail "an existing directory's mode was changed"
echo "ok an existing directory keeps its mode"

# a directory per process (%p) or rank (%r): the tracer creates it, in each process
run_rc 0 run -o 'per/%p/x.cmt' -- ./helper alloc 100 fork
n=$(listed_dumps | grep -c "^$PWD/per/[0-9]*/x.cmt$")
[ "$n" = 2 ] || { cat err.txt; fail "expected 2 dumps in per/PID/, got $n"; }
for dir in per per/*; do [ "$(stat -c %a "$dir")" = 700 ] || fail "$dir is not mode 700"; done
RANK=3 run_rc 0 run -o 'rank%r/d/%p.cmt' -- ./helper alloc 100
[ "$(listed_dumps | grep -c "^$PWD/rank3/d/[0-9]*.cmt$")" = 1 ] || { cat err.txt; fail "no dump in rank3/d/"; }
echo "ok per-process directories (%p, %r) created by the tracer"

# the tracer without run
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/direct/sub/x.cmt ./helper alloc 100 2>err.txt || fail "helper failed"
[ -f direct/sub/x.cmt ] || { cat err.txt; fail "the tracer did not create direct/sub/"; }
[ "$(stat -c %a direct/sub)" = 700 ] || fail "direct/sub is not mode 700"
echo "ok the tracer alone creates missing directories (0700)"

# cannot be created or written: exit 2 naming the directory; the command does not run
touch afile
for t in "afile/x/%p.cmt:$PWD/afile/x" "/proc/cmt-no-such-dir/%p.cmt:/proc/cmt-no-such-dir" "/proc/%p.cmt:/proc"; do
    tmpl=${t%%:*} dir=${t#*:}
    rm -f ran
    run_rc 2 run -o "$tmpl" -- sh -c 'touch ran'
    [ -e ran ] && fail "-o $tmpl: the command ran although its dumps cannot be written"
    grep -q "^cumemtrack: run: .*directory $dir: " err.txt || { cat err.txt; fail "-o $tmpl: message does not name $dir"; }
done
# a template naming a directory, not a file
run_rc 2 run -o 'dir-only/' -- sh -c 'touch ran'
[ -e ran ] && fail "-o dir-only/: the command ran"
grep -q "names a directory, not a file" err.txt || { cat err.txt; fail "-o dir-only/: no message"; }
# the same through CUMEMTRACK_OUTPUT
CUMEMTRACK_OUTPUT=afile/y.%p.cmt run_rc 2 run -- sh -c 'touch ran'
[ -e ran ] && fail "CUMEMTRACK_OUTPUT=afile/...: the command ran"
grep -q "afile" err.txt || fail "no message naming afile"
if [ "$(id -u)" != 0 ]; then
    mkdir -m 500 ro
    run_rc 2 run -o 'ro/%p.cmt' -- true
    grep -q "directory $PWD/ro: " err.txt || { cat err.txt; fail "no message naming ro/"; }
fi
echo "ok a directory that cannot be created or written: exit 2 naming it, the command not started"
echo PASS
