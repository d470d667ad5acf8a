#!/usr/bin/env bash
# The fake's look-ups return the driver's own entry points by default, as a real libcuda's do (the
# preloaded tracker is not handed its own wrappers, so each hooked variant is recognised by its
# variant map or goes unseen): every case runs that way. This one runs the cases that reach the
# driver through cuGetProcAddress the other way too (FAKECUDA_OWN_PROCS=0: the exported functions,
# which bind to the tracker's wrappers, as a program linked against libcuda gets them): e2e_programs (the runtime doubles, shared and static, which reach every driver function
# through cuGetProcAddress_v2; driver programs at old, new and future versions, per-thread flags),
# e2e_graph_apis, e2e_graph_inst12 and e2e_async_streams, each dump equal to the driver's record.
set -u
export FAKECUDA_OWN_PROCS=0
for t in e2e_programs e2e_graph_apis e2e_graph_inst12 e2e_async_streams; do
    mkdir -p "$t"
    (cd "$t" && CMT_TMP=$PWD/$t bash "$CMT_ROOT/tests/cases/$t.sh") >"$t.log" 2>&1 ||
        { tail -20 "$t.log"; echo "FAIL: $t with the exported entry points"; exit 1; }
    echo "ok $t: $(grep -c '^ok' "$t.log") checks"
done
echo PASS
