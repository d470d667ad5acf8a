#!/usr/bin/env bash
# The EXIT record holds the process's real status however it ends (issue 13, item 13): a return
# from main (libc's own exit path never calls the exported exit()), exit(), _exit(). The status is
# the one wait() reports (issue 30, item 2): exit(-1) is 255 and exit(263) is 7, in the EXIT
# record, the header's exit_status slot, the dump, the JSON report; an older dump whose EXIT says
# -1 reads as 255 too.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
. "$CMT_ROOT/tests/cases/analyzer_lib.sh.inc"
for how in return exit _exit; do
    for st in 0 3 77 -1 263; do
        want=$((st & 255))
        traced "st.$how.$st" "$P/drv_status" $st $how
        rc=$?
        [ $rc = $want ] || die "drv_status $st $how exited $rc under the tracker"
        "$CMT_BIN" dump "st.$how.$st.cmt" >"st.$how.$st.txt" || die "dump"
        got=$(awk '$3 == "EXIT" { for (i = 4; i <= NF; i++) if ($i ~ /^status=/) print substr($i, 8) }' "st.$how.$st.txt")
        [ "$got" = "$want" ] || die "drv_status $st $how: EXIT status '$got', want $want"
        grep -q "^# exit how=[a-z-]* status=$want (header)$" "st.$how.$st.txt" ||
            { tail -3 "st.$how.$st.txt"; die "drv_status $st $how: header slot"; }
        "$CMT_BIN" report --json --no-symbols "st.$how.$st.cmt" >"st.$how.$st.json" || die "report"
        grep -q "\"exit_status\": $want," "st.$how.$st.json" || die "drv_status $st $how: JSON exit_status"
    done
    echo "ok $how"
done
# a 2.2 dump written by exit(-1): status -1 in its EXIT record
cat >old.script <<'S'
header pid=9 minor=2
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G
exit clean status=-1
S
"$MKDUMP" old.script old.cmt || die "mkdump"
"$CMT_BIN" dump old.cmt | grep -q " EXIT how=clean status=255$" || die "old dump: dump shows the raw -1"
"$CMT_BIN" report --json --no-symbols old.cmt | grep -q '"exit_status": 255,' || die "old dump: JSON exit_status"
echo PASS
