# The live-allocation table against a reference: random inserts, replaces and removes in two
# spaces, growth, one home group overflowing past the last group (wraparound) and past an overflow
# count's saturation, a sweep; overflow counts recomputed and compared after each phase.
set -eu
"$CMT_TESTBIN/unit/test_ptrtab"
