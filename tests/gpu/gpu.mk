# tests/gpu/gpu.mk — validation on a real NVIDIA GPU (issue 6; docs/gpu-validation.md). Included by
# the top Makefile.
#   make gpu-check           tests/gpu/gpu_check.sh: on a machine without a GPU prints
#                            "skipped: no NVIDIA GPU" and exits 0; otherwise runs the programs of
#                            build/gpu/ (building only the missing ones, with nvcc, when it exists)
#                            under the tracker and prints one table, exit 0 all pass, 1 otherwise
#   make gpu-check-build     builds build/gpu/{static,shared}/gc_* with nvcc (default static cudart
#                            and -cudart shared, libcudart.so.13 copied to build/gpu/lib), the
#                            tracer and the analyzer: carry build/ to the GPU machine
#   make gpu-check-analyze   analyzes dumps brought back in build/gpu/dumps (when the GPU machine
#                            could not run build/cumemtrack)
#   make gpu-check-selftest  the same check end to end on the fake driver (build/gpu-selftest/)
.PHONY: gpu-check gpu-check-build gpu-check-analyze gpu-check-selftest gpu-check-selftest-build

GPU_DIR := $(BUILD)/gpu
GPU_FAKE_DIR := $(BUILD)/gpu-selftest
GPU_NVCC ?= $(CUDA_HOME)/bin/nvcc
GPU_PROGS := gc_runtime gc_vmm gc_cublas gc_loop gc_graph
GPU_FAKE_PROGS := gc_runtime gc_vmm gc_loop gc_graph
GPU_DEPS := tests/gpu/gpu_prog.h tests/gpu/gpu.mk
GPU_BINS := $(foreach m,static shared,$(addprefix $(GPU_DIR)/$(m)/,$(GPU_PROGS))) \
	$(GPU_DIR)/lib/libcudart.so.13
GPU_FAKE_BINS := $(foreach m,static shared,$(addprefix $(GPU_FAKE_DIR)/$(m)/,$(GPU_FAKE_PROGS)))

# Frame pointers and -rdynamic keep the programs' own functions (leak_device, ...) on the stacks.
GPU_NVCC_FLAGS = -x c -O0 -g -Itests/gpu -Xcompiler -fno-omit-frame-pointer,-rdynamic,-Wall,-Wextra
gpu_libs = $(if $(filter gc_vmm,$(1)),-L$(CUDA_HOME)/lib64/stubs -lcuda) \
	$(if $(filter gc_cublas,$(1)),-lcublas) -ldl
GPU_RPATH = -Xlinker -rpath='$$ORIGIN/../lib:$(CUDA_HOME)/lib64'

$(GPU_DIR)/static/%: tests/gpu/%.c $(GPU_DEPS)
	@mkdir -p $(@D)
	$(GPU_NVCC) $(GPU_NVCC_FLAGS) $(GPU_RPATH) -o $@ $< $(call gpu_libs,$*)

$(GPU_DIR)/shared/%: tests/gpu/%.c $(GPU_DEPS)
	@mkdir -p $(@D)
	$(GPU_NVCC) $(GPU_NVCC_FLAGS) -cudart shared $(GPU_RPATH) -o $@ $< $(call gpu_libs,$*)

# The shared runtime travels with the programs (700 KiB; libcublas does not: 50+ MiB).
$(GPU_DIR)/lib/libcudart.so.13: $(CUDA_HOME)/lib64/libcudart.so.13
	@mkdir -p $(@D)
	cp -L $< $@

gpu-check-build: all $(GPU_BINS)

gpu-check:
	@tests/gpu/gpu_check.sh

gpu-check-analyze:
	@tests/gpu/gpu_check.sh --analyze

# --- the fake-driver variant: the same sources against the runtime double ------------------------
GPU_FAKE_CFLAGS = $(filter-out -O2,$(ALL_CFLAGS)) -O0 -g -fno-omit-frame-pointer -rdynamic -Itests/gpu
gpu_fake_libs = $(if $(filter gc_vmm,$(1)),$(CUDA_HOME)/lib64/stubs/libcuda.so) -ldl -lpthread

$(GPU_FAKE_DIR)/shared/%: tests/gpu/%.c $(GPU_DEPS) $(BUILD)/tests/fakert/libcudart.so.13
	@mkdir -p $(@D)
	$(CC) $(GPU_FAKE_CFLAGS) -o $@ $< -L$(BUILD)/tests/fakert -l:libcudart.so.13 \
		-Wl,-rpath,'$$ORIGIN/../../tests/fakert' $(call gpu_fake_libs,$*)

$(GPU_FAKE_DIR)/static/%: tests/gpu/%.c $(GPU_DEPS) $(BUILD)/tests/fakert/libcudart_static.a
	@mkdir -p $(@D)
	$(CC) $(GPU_FAKE_CFLAGS) -o $@ $< $(BUILD)/tests/fakert/libcudart_static.a $(call gpu_fake_libs,$*)

gpu-check-selftest-build: all $(GPU_FAKE_BINS) $(BUILD)/tests/fakecuda/libcuda.so.1

gpu-check-selftest: gpu-check-selftest-build
	@tests/gpu/gpu_check.sh --selftest
