# bench/bench.mk — `make bench` (included by the top Makefile): builds bench/cmtbench.c against the
# CUDA toolkit's stub libcuda.so, then bench/run.sh measures the tracer and the analyzer on the fake
# driver (FAKECUDA_FAST=1) and writes BENCHMARKS.md; bench/multirank.sh appends its "Multi-rank
# merge" section, bench/py_frames.sh its "Python frames" section, bench/live_top.py its "Live view
# (top)" section (make bench-live: that section alone). Section 5 measures the analyzer, on moving
# peaks too (issue 28: cmtbench's patterns random, rising and walk side by side). Section 6 holds the
# rows of issue 16's table (bench/cmtbench.c's patterns one, sites:N, depths:N, random; the analyzer
# rows also rising and walk). Benchmarks assert nothing; `make test` never runs them. BENCH_REPS (default 7)
# sets the repetitions; BENCH_OUT the report's path.
BENCH_OUT ?= BENCHMARKS.md
BENCH_REPS ?= 7
BENCH_FAKE := $(BUILD)/tests/fakecuda/libcuda.so.1

$(BUILD)/bench/cmtbench: bench/cmtbench.c bench/bench.mk
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(ALL_CFLAGS)) -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls \
		-o $@ $< $(CUDA_HOME)/lib64/stubs/libcuda.so -lpthread

# the random-free row's floor (bench/floor_shim.c): a measuring instrument, not the product
$(BUILD)/bench/floor_shim.so: bench/floor_shim.c bench/bench.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -ldl

# heaptrack (the comparison rows of sections 2 and 6) is installed when missing; without it those
# rows read n/a and the rest is measured
.PHONY: bench-deps
bench-deps:
	@scripts/deps.sh heaptrack || echo "bench: heaptrack could not be installed: its rows will read n/a" >&2

bench: bench-deps all $(BENCH_FAKE) $(BUILD)/tests/fakert/libcudart.so.13 $(BUILD)/bench/cmtbench $(BUILD)/bench/floor_shim.so
	BUILD=$(BUILD) BENCH_REPS=$(BENCH_REPS) bench/run.sh $(BENCH_OUT)
	BUILD=$(BUILD) bench/multirank.sh $(BENCH_OUT)
	BUILD=$(BUILD) BENCH_REPS=$(BENCH_REPS) bench/py_frames.sh $(BENCH_OUT)
	BUILD=$(BUILD) python3 bench/live_top.py $(BENCH_OUT)

# the "Multi-rank merge" section alone (appended to BENCH_OUT)
.PHONY: bench-multirank
bench-multirank: all test-programs $(BUILD)/bench/cmtbench
	BUILD=$(BUILD) bench/multirank.sh $(BENCH_OUT)

# the "Live view (top)" section alone (appended to BENCH_OUT)
.PHONY: bench-live
bench-live: all test-programs $(BUILD)/bench/cmtbench
	BUILD=$(BUILD) python3 bench/live_top.py $(BENCH_OUT)
