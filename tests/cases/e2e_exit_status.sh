#!/usr/bin/env bash
# The EXIT record holds the process's real status however it ends (issue 13, item 13): a return
# from main (libc's own exit path never calls the exported exit()), exit(), _exit().
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
for how in return exit _exit; do
    for st in 0 3 77; do
        traced "st.$how.$st" "$P/drv_status" $st $how
        rc=$?
        [ $rc = $st ] || die "drv_status $st $how exited $rc under the tracker"
        "$CMT_BIN" dump "st.$how.$st.cmt" >"st.$how.$st.txt" || die "dump"
        got=$(awk '$3 == "EXIT" { for (i = 4; i <= NF; i++) if ($i ~ /^status=/) print substr($i, 8) }' "st.$how.$st.txt")
        [ "$got" = "$st" ] || die "drv_status $st $how: EXIT status '$got', want $st"
    done
    echo "ok $how"
done
echo PASS
