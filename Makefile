# cumemtrack — top-level build. Each part has its own fragment (preload/, analyzer/, tests/,
# examples/, bench/); outputs go to build/. CUDA headers come from $(CUDA_HOME); nothing links
# libcuda or libcudart.
CUDA_HOME ?= /usr/local/cuda
PREFIX ?= /usr/local
CC ?= cc
BUILD := build
CUDA_INC := $(CUDA_HOME)/include

WARN := -Wall -Wextra -Werror
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -Iinclude -I$(CUDA_INC)
CFLAGS ?=
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)

.PHONY: all deps test demo install clean bench stress fuzz gpu-check
.DEFAULT_GOAL := all

all: $(BUILD)/libcumemtrack.so $(BUILD)/cumemtrack

deps:
	@scripts/deps.sh

$(BUILD):
	@mkdir -p $@

-include preload/preload.mk
-include analyzer/analyzer.mk
-include tests/tests.mk
-include tests/unit/unit.mk
-include tests/reliability/reliability.mk
-include tests/signals/signals.mk
-include tests/cxx/cxx.mk
-include examples/examples.mk
-include bench/bench.mk
-include tests/gpu/gpu.mk
-include install.mk

# The test suite: builds everything (TEST_JOBS compilations at a time, default the CPUs), then runs
# tests/run.sh, whose last line is "N passed, N failed, N skipped".
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) all test-programs
	@tests/run.sh

clean:
	rm -rf $(BUILD)
