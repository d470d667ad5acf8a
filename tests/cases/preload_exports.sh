# The library exports exactly the names of its version script (generated from the hook table),
# every hooked variant among them, and nothing else (no helper symbol leaks into the process).
set -eu
nm -D --defined-only "$CMT_LIB" | awk '{ print $3 }' | sort >exported
tr -s ' ;\n' '\n' <"$CMT_BUILD/preload/exports.map" | grep -vE '^(\{|\}|global:|local:|\*|)$' | sort >wanted
diff wanted exported
grep -qx cuMemAlloc_v2 exported && grep -qx cuMemAllocAsync_ptsz exported && grep -qx dlsym exported
# the version node is anonymous: no version definitions that could hide dlsym from dlsym@GLIBC_2.34
if readelf -V "$CMT_LIB" | grep -q "Version definition section"; then echo "named version node"; exit 1; fi
