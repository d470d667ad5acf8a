# Sequence numbers (hybrid logical clock, cmt_format.h ORDERING): ordering after a structure's
# clock, the definition floor, slot reuse with its last number, the shared slot, the range's end.
set -eu
"$CMT_TESTBIN/unit/test_seq"
