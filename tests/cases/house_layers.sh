#!/usr/bin/env bash
# The analyzer's folders are layers (util -> read -> model -> render -> cmd, docs/ARCHITECTURE.md):
# every module of a folder uses (by symbol, from the built objects) only modules of its own folder
# or the folders below, and no modules use each other in a circle (scripts/layers.py). The build
# already refuses an upward #include (each folder compiles with the include paths of the folders
# below it only); this checks the calls too, and that every analyzer source lies in a layer folder.
# The same for the tracer's modules, layered by preload/layers.txt.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v nm >/dev/null || { echo "no nm"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
root=$CMT_ROOT
stray=$(find "$root/analyzer" -maxdepth 1 -name '*.[ch]')
[ -z "$stray" ] || fail "analyzer sources outside a layer folder: $stray"
layers=()
for l in util read model render cmd; do
    mods=$(cd "$root/analyzer/$l" && ls *.c | sed 's/\.c$//' | tr '\n' ' ')
    [ -n "$mods" ] || fail "analyzer/$l has no source"
    echo "$l: $mods" >>layers.txt
done
for d in "$root"/analyzer/*/; do
    case $(basename "$d") in util | read | model | render | cmd) ;; *) fail "unknown analyzer folder $d" ;; esac
done
# the objects of today's sources only (a build tree may hold objects of files moved or removed since)
objs=
for src in $(cd "$root/analyzer" && find . -name '*.c' | sort); do
    o=$CMT_BUILD/analyzer/${src#./}
    o=${o%.c}.o
    [ -f "$o" ] || fail "no object $o for analyzer/${src#./}: make"
    [ "$o" -nt "$root/analyzer/${src#./}" ] || fail "$o is older than its source: make"
    objs="$objs $o"
done
python3 "$root/scripts/layers.py" --quiet --layers layers.txt $objs >layers.out
rc=$?
cat layers.out
[ $rc -eq 0 ] || fail "the analyzer's layers are broken (above)"
# the check itself catches an upward use: render's symbol used from read
printf 'util: %s\nread: %s\nmodel: %s\nrender: %s\ncmd: %s\n' "$(sed -n 's/^util: //p' layers.txt)" \
    "$(sed -n 's/^read: //p' layers.txt) $(sed -n 's/^render: //p' layers.txt)" \
    "$(sed -n 's/^model: //p' layers.txt)" "" "$(sed -n 's/^cmd: //p' layers.txt)" >inverted.txt
python3 "$root/scripts/layers.py" --quiet --layers inverted.txt $objs >inverted.out &&
    fail "layers.py passed a layer order with render below model"
grep -q '^upward: ' inverted.out || fail "layers.py named no upward use"
echo "ok analyzer layers: $(wc -l <layers.txt) folders, no circle, no upward use"

# The tracer (preload/): its layers are preload/layers.txt (bottom first; preload/README.md says
# what each module owns). Every tracer source (each .c but cmt_mark_stub.c, which is the separate
# libcumemtrack_mark.so, and cmt_tramp.S) lies in exactly one layer, no layer names a module that
# has no source, and the built objects use no module above their own layer and none in a circle.
ptxt=$root/preload/layers.txt
[ -f "$ptxt" ] || fail "no preload/layers.txt"
grep -v '^#' "$ptxt" | sed 's/^[^:]*://' | tr ' ' '\n' | sed '/^$/d' | sort >placed
dup=$(uniq -d placed)
[ -z "$dup" ] || fail "preload modules in more than one layer: $dup"
(cd "$root/preload" && ls *.c *.S) | grep -vx cmt_mark_stub.c | sed 's/\.[cS]$//' | sort >sources
diff sources placed >placed.diff || { cat placed.diff; fail "preload sources (<) and the modules of preload/layers.txt (>) differ"; }
pobjs=()
while read -r m; do
    [ -f "$CMT_BUILD/preload/$m.o" ] || fail "no object $CMT_BUILD/preload/$m.o: make"
    pobjs+=("$CMT_BUILD/preload/$m.o")
done <sources
python3 "$root/scripts/layers.py" --quiet --layers "$ptxt" "${pobjs[@]}" >players.out
rc=$?
cat players.out
[ $rc -eq 0 ] || fail "the tracer's layers are broken (above)"
# the check itself catches an upward use in the tracer: the writer's layer moved to the top
{ grep -v '^#' "$ptxt" | grep -v '^writer:'; grep '^writer:' "$ptxt"; } >pinverted.txt
python3 "$root/scripts/layers.py" --quiet --layers pinverted.txt "${pobjs[@]}" >pinverted.out &&
    fail "layers.py passed a tracer layer order with the writer on top"
grep -q '^upward: .*uses cmt_writer' pinverted.out || fail "layers.py named no upward use of cmt_writer"
echo "ok tracer layers: $(grep -vc '^#' "$ptxt") layers, $(wc -l <sources) modules, no circle, no upward use"
echo PASS
