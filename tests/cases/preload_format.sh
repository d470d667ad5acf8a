# The dump layout is pinned: offsets, sizes, record/kind/flag values and the varint encoding.
set -eu
"$CMT_TESTBIN/unit/test_format"
