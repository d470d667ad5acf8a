# examples/examples.mk — the example programs and `make demo` (included by the top Makefile).
#
# The examples (examples/*.c) compile against the real $(CUDA_HOME)/include/cuda_runtime_api.h.
# Where a real GPU is usable (`nvidia-smi -L` succeeds and nvcc exists; override with
# EX_REAL_GPU=1 or 0) `make demo` builds them with nvcc against the real cudart into
# build/examples/cuda/; otherwise it links them against the runtime double
# (build/tests/fakert/libcudart.so.13, rpath) into build/examples/fake/ and examples/demo.sh runs
# them on the fake driver (build/tests/fakecuda). The test suite always uses the fake builds
# (`make test-programs` builds them).
.PHONY: examples examples-fake

EX_NAMES := train_leak dp_skew oom
EX_DEPS := examples/cmt_example.h examples/examples.mk
EX_FAKE_DIR := $(BUILD)/examples/fake
EX_CUDA_DIR := $(BUILD)/examples/cuda
EX_FAKE_BINS := $(addprefix $(EX_FAKE_DIR)/,$(EX_NAMES))
EX_CUDA_BINS := $(addprefix $(EX_CUDA_DIR)/,$(EX_NAMES))
EX_FAKE_RT := $(BUILD)/tests/fakert/libcudart.so.13
EX_FAKE_DRV := $(BUILD)/tests/fakecuda/libcuda.so.1
EX_NVCC ?= $(CUDA_HOME)/bin/nvcc
# Frame pointers and -rdynamic keep the example functions (cache_attention_mask) on the stacks.
EX_CFLAGS = $(filter-out -O2,$(ALL_CFLAGS)) -O0 -g -fno-omit-frame-pointer -rdynamic -Iexamples

# Decided at most once per make run, and only when a recipe needs it (memoized lazy variable).
ifndef EX_REAL_GPU
EX_REAL_GPU = $(eval EX_REAL_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && test -x $(EX_NVCC) && echo 1 || echo 0))$(EX_REAL_GPU)
endif
EX_BINS = $(if $(filter 1,$(EX_REAL_GPU)),$(EX_CUDA_BINS),$(EX_FAKE_BINS))
EX_DIR = $(if $(filter 1,$(EX_REAL_GPU)),$(EX_CUDA_DIR),$(EX_FAKE_DIR))

$(EX_FAKE_DIR)/%: examples/%.c $(EX_DEPS) $(EX_FAKE_RT)
	@mkdir -p $(@D)
	$(CC) $(EX_CFLAGS) -o $@ $< -L$(BUILD)/tests/fakert -l:libcudart.so.13 \
		-Wl,-rpath,'$$ORIGIN/../../tests/fakert' -lpthread -ldl

$(EX_CUDA_DIR)/%: examples/%.c $(EX_DEPS)
	@mkdir -p $(@D)
	$(EX_NVCC) -x c -O0 -g -Iexamples -Xcompiler -fno-omit-frame-pointer,-rdynamic,-Wall,-Wextra \
		-cudart shared -Xlinker -rpath=$(CUDA_HOME)/lib64 -o $@ $< -ldl

examples-fake: $(EX_FAKE_BINS)
test-programs: $(EX_FAKE_BINS)

# `make examples`: the builds demo runs (nvcc on a real GPU, the fake ones otherwise).
examples:
	@$(MAKE) --no-print-directory $(EX_BINS) EX_REAL_GPU=$(EX_REAL_GPU)

# `make demo`: one command on a fresh clone — packages, tracer, analyzer, fake driver and runtime
# (without a GPU), examples, then examples/demo.sh.
demo: deps
	@$(MAKE) --no-print-directory all $(EX_BINS) \
		$(if $(filter 1,$(EX_REAL_GPU)),,$(EX_FAKE_DRV) $(EX_FAKE_RT)) EX_REAL_GPU=$(EX_REAL_GPU)
	@EX_REAL_GPU=$(EX_REAL_GPU) EX_DIR=$(EX_DIR) examples/demo.sh
