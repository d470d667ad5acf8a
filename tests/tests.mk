# tests/tests.mk — the GPU-less test bed (included by the top Makefile). `make test-programs`
# builds:
#   build/tests/fakecuda/libcuda.so.1 (+ libcuda.so)   fake CUDA driver      (tests/fakecuda/)
#   build/tests/fakenvml/libnvidia-ml.so.1             fake NVML             (tests/fakenvml/)
#   build/tests/fakert/libcudart.so.13 (+ libcudart.so) and libcudart_static.a
#                                                      runtime test double   (tests/fakert/)
#   build/tests/progs/NAME.shared, NAME.static         runtime test programs (tests/progs/rt_*.c)
#   build/tests/progs/NAME                             driver-API programs   (tests/progs/drv_*.c)
#   build/tests/progs/fake_getproc_test, libdlsymcount.so  checks of the fake itself
# The runtime's driver look-up list comes from FAKE_GETPROC_REF (the look-ups the real CUDA 13.0
# runtime makes, recorded on a GPU machine: see the file's header) through awk into fakert_procs.h.

.PHONY: test-programs

FAKE_OUT := $(BUILD)/tests
FAKE_GETPROC_REF ?= tests/fakert/cudart13-getprocaddress.txt
# -fno-ipa-icf (gcc): every ABI symbol stays a distinct function, so dladdr names the variant.
FAKE_NO_ICF := $(shell $(CC) -fno-ipa-icf -E -x c /dev/null >/dev/null 2>&1 && echo -fno-ipa-icf)
FAKE_PIC_CFLAGS = $(ALL_CFLAGS) -D__CUDA_API_VERSION_INTERNAL -fPIC -fvisibility=hidden $(FAKE_NO_ICF)
FAKE_PROG_CFLAGS = $(filter-out -O2,$(ALL_CFLAGS)) -O0 -g -fno-omit-frame-pointer -rdynamic
FAKE_CUDA_STUB := $(CUDA_HOME)/lib64/stubs/libcuda.so

FAKE_RT_PROGS := $(patsubst tests/progs/%.c,%,$(wildcard tests/progs/rt_*.c))
FAKE_DRV_PROGS := $(patsubst tests/progs/%.c,%,$(wildcard tests/progs/drv_*.c))

FAKE_TARGETS := $(FAKE_OUT)/fakecuda/libcuda.so.1 $(FAKE_OUT)/fakecuda/libcuda.so \
	$(FAKE_OUT)/fakert/libcudart.so.13 $(FAKE_OUT)/fakert/libcudart.so \
	$(FAKE_OUT)/fakert/libcudart_static.a $(FAKE_OUT)/fakenvml/libnvidia-ml.so.1 \
	$(foreach p,$(FAKE_RT_PROGS),$(FAKE_OUT)/progs/$(p).shared $(FAKE_OUT)/progs/$(p).static) \
	$(foreach p,$(FAKE_DRV_PROGS),$(FAKE_OUT)/progs/$(p)) \
	$(FAKE_OUT)/progs/fake_getproc_test $(FAKE_OUT)/progs/libdlsymcount.so

test-programs: $(FAKE_TARGETS)

# --- fake driver ---------------------------------------------------------------------------
$(FAKE_OUT)/fakecuda/libcuda.so.1: tests/fakecuda/fakecuda.c tests/fakecuda/fakecuda_graph.c tests/fakecuda/fakecuda_graph_exec.c include/cmt_format.h tests/tests.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_PIC_CFLAGS) -shared -Wl,-soname,libcuda.so.1 -o $@ $< -lpthread

$(FAKE_OUT)/fakecuda/libcuda.so: $(FAKE_OUT)/fakecuda/libcuda.so.1
	ln -sf libcuda.so.1 $@

# --- fake NVML (shares the NVML ABI declarations of analyzer/read/cmt_nvml.h) ---------------------
$(FAKE_OUT)/fakenvml/libnvidia-ml.so.1: tests/fakenvml/fakenvml.c analyzer/read/cmt_nvml.h tests/tests.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_PIC_CFLAGS) -Ianalyzer/read -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $< -lpthread

# the same fake as a driver that lacks some entry points (tests/fakecuda/old_driver.map)
test-programs: $(FAKE_OUT)/fakecuda_old/libcuda.so.1
$(FAKE_OUT)/fakecuda_old/libcuda.so.1: tests/fakecuda/fakecuda.c tests/fakecuda/fakecuda_graph.c tests/fakecuda/fakecuda_graph_exec.c tests/fakecuda/old_driver.map include/cmt_format.h tests/tests.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_PIC_CFLAGS) -shared -Wl,-soname,libcuda.so.1 -Wl,--version-script=tests/fakecuda/old_driver.map \
		-o $@ $< -lpthread

# --- runtime double ------------------------------------------------------------------------
$(FAKE_OUT)/fakert/fakert_procs.h: $(FAKE_GETPROC_REF) tests/tests.mk
	@mkdir -p $(@D)
	awk 'BEGIN { print "/* generated from $(FAKE_GETPROC_REF) by tests/tests.mk */"; \
	             print "#define FAKERT_PROC_LIST(X) \\" } \
	     /^#/ || NF == 0 { next } \
	     NF == 2 { printf "    X(P__%s_%s, \"\", %s, %s) \\\n", $$1, $$2, $$1, $$2; next } \
	     NF == 3 { printf "    X(P_%s_%s_%s, \"%s\", %s, %s) \\\n", $$1, $$2, $$3, $$1, $$2, $$3; next } \
	     { print "bad line: " $$0 > "/dev/stderr"; exit 1 } \
	     END { print "" }' $< > $@.tmp && mv $@.tmp $@

$(FAKE_OUT)/fakert/fakert.o: tests/fakert/fakert.c $(FAKE_OUT)/fakert/fakert_procs.h tests/tests.mk
	$(CC) $(FAKE_PIC_CFLAGS) -I$(FAKE_OUT)/fakert -c -o $@ $<

$(FAKE_OUT)/fakert/fakert_graph.o: tests/fakert/fakert_graph.c tests/fakert/fakert_internal.h $(FAKE_OUT)/fakert/fakert_procs.h tests/tests.mk
	$(CC) $(FAKE_PIC_CFLAGS) -I$(FAKE_OUT)/fakert -c -o $@ $<

$(FAKE_OUT)/fakert/libcudart.so.13: $(FAKE_OUT)/fakert/fakert.o $(FAKE_OUT)/fakert/fakert_graph.o
	$(CC) -shared -Wl,-soname,libcudart.so.13 -o $@ $^ -ldl -lpthread

$(FAKE_OUT)/fakert/libcudart.so: $(FAKE_OUT)/fakert/libcudart.so.13
	ln -sf libcudart.so.13 $@

$(FAKE_OUT)/fakert/libcudart_static.a: $(FAKE_OUT)/fakert/fakert.o $(FAKE_OUT)/fakert/fakert_graph.o
	rm -f $@ && ar rcs $@ $^

# --- programs ------------------------------------------------------------------------------
FAKE_PROG_DEPS := tests/progs/fake_prog.h tests/tests.mk

# rt_ptsz is the per-thread-default-stream build.
fake_rt_extra = $(if $(filter rt_ptsz,$(1)),-DCUDA_API_PER_THREAD_DEFAULT_STREAM)

$(FAKE_OUT)/progs/%.shared: tests/progs/%.c $(FAKE_OUT)/fakert/libcudart.so $(FAKE_PROG_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) $(call fake_rt_extra,$*) -o $@ $< -L$(FAKE_OUT)/fakert -lcudart \
		-Wl,-rpath,'$$ORIGIN/../fakert' -lpthread

$(FAKE_OUT)/progs/%.static: tests/progs/%.c $(FAKE_OUT)/fakert/libcudart_static.a $(FAKE_PROG_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) $(call fake_rt_extra,$*) -o $@ $< $(FAKE_OUT)/fakert/libcudart_static.a \
		-ldl -lpthread

$(FAKE_OUT)/progs/drv_%: tests/progs/drv_%.c $(FAKE_PROG_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) -o $@ $< $(FAKE_CUDA_STUB) -lpthread

# drv_atfork needs libatforkcuda.so (another library's atfork child handler calling CUDA)
$(FAKE_OUT)/progs/libatforkcuda.so: tests/progs/atforkcuda.c tests/tests.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< $(FAKE_CUDA_STUB) -lpthread
$(FAKE_OUT)/progs/drv_atfork: tests/progs/drv_atfork.c $(FAKE_OUT)/progs/libatforkcuda.so $(FAKE_PROG_DEPS)
	$(CC) $(FAKE_PROG_CFLAGS) -o $@ $< -L$(FAKE_OUT)/progs -Wl,--no-as-needed -latforkcuda \
		-Wl,-rpath,'$$ORIGIN' $(FAKE_CUDA_STUB) -lpthread

$(FAKE_OUT)/progs/fake_getproc_test: tests/progs/fake_getproc_test.c $(FAKE_GETPROC_REF) $(FAKE_PROG_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) -o $@ $< -ldl

$(FAKE_OUT)/progs/libdlsymcount.so: tests/progs/dlsymcount.c tests/tests.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl
-include tests/stackcache/stackcache.mk
