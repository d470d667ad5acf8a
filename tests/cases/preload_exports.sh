# The library exports exactly the names of its version script (generated from the hook table),
# every hooked variant among them, and nothing else (no helper symbol leaks into the process).
# Reverse: every symbol the objects export (global, default visibility: CMT_EXPORT) is in the
# version script, so `local: *` never silently hides a wrapper someone meant to export; and the
# forwarding library libcumemtrack_mark.so exports exactly the API of include/cumemtrack.h.
set -eu
die() { echo "FAIL: $*"; exit 1; }
nm -D --defined-only "$CMT_LIB" | awk '{ print $3 }' | sort >exported
tr -s ' ;\n' '\n' <"$CMT_BUILD/preload/exports.map" | grep -vE '^(\{|\}|global:|local:|\*|)$' | sort >wanted
[ -s wanted ] || die "empty version script"
diff wanted exported || die "the library's exports differ from the version script (< script, > library)"
grep -qx cuMemAlloc_v2 exported && grep -qx cuMemAllocAsync_ptsz exported && grep -qx dlsym exported
# the version node is anonymous: no version definitions that could hide dlsym from dlsym@GLIBC_2.34
if readelf -V "$CMT_LIB" | grep -q "Version definition section"; then echo "named version node"; exit 1; fi

# the objects the library is linked from (preload/preload.mk: every preload/*.c but the stub, and
# the trampolines): their default-visibility definitions, each once, are exactly the script's names
objs=("$CMT_BUILD/preload/cmt_tramp.o")
for c in "$CMT_ROOT"/preload/*.c; do
    [ "$(basename "$c")" = cmt_mark_stub.c ] && continue
    objs+=("$CMT_BUILD/preload/$(basename "$c" .c).o")
done
for o in "${objs[@]}"; do [ -f "$o" ] || die "missing object $o (make all)"; done
[ ${#objs[@]} -gt 5 ] || die "only ${#objs[@]} objects found"
for o in "${objs[@]}"; do
    readelf -sW "$o" | awk -v o="$(basename "$o")" \
        '$5 ~ /^(GLOBAL|WEAK)$/ && $6 == "DEFAULT" && $7 != "UND" && $8 != "" { print $8, o }'
done | sort >objexports
awk '{ print $1 }' objexports | uniq -d >twice
[ ! -s twice ] || die "defined in more than one object: $(tr '\n' ' ' <twice)"
awk '{ print $1 }' objexports >objnames
if ! diff wanted objnames >obj.diff; then
    cat obj.diff
    grep '^>' obj.diff | while read -r _ s; do grep "^$s " objexports; done
    die "objects export names the version script lacks (>) or lack names it lists (<)"
fi
echo "ok $(wc -l <wanted) names: version script = library exports = object exports"

# the forwarding library: exactly the functions include/cumemtrack.h declares
nm -D --defined-only "$CMT_BUILD/libcumemtrack_mark.so" | awk '{ print $3 }' | sort >mark_exported
sed -n 's/^[a-z][a-z_ ]* \**\([a-z_][a-z0-9_]*\)(.*/\1/p' "$CMT_ROOT/include/cumemtrack.h" | sort >mark_api
[ -s mark_api ] || die "no function found in include/cumemtrack.h"
diff mark_api mark_exported || die "libcumemtrack_mark.so exports differ from include/cumemtrack.h"
echo PASS
