#!/usr/bin/env bash
# The analyzer's C unit tests (tests/unit/test_replay.c, test_ranks.c, test_follow.c, built by
# `make test-programs`): the replay's live/peak/leak/OOM accounting, the per-rank view, and the
# follow-mode reader's order when a writer has not yet written a record taken before the open.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
for t in test_replay test_ranks test_follow; do
    b=$CMT_BUILD/tests/unit/$t
    [ -x "$b" ] || make -s -C "$CMT_ROOT" "build/tests/unit/$t" >&2 || fail "cannot build $t"
    $VALGRIND "$b" || fail "$t"
done
echo ok
