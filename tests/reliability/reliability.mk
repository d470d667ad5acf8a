# tests/reliability/reliability.mk — reliability tests (issue 4), included by the top Makefile.
#   make test-programs  also builds build/tests/rel/* (rel_app, rel_dl, rel_hostile + libs) and the
#                       ASan+UBSan analyzer and test program build/asan/* used by rel_sanitize
#   make test           runs tests/cases/rel_*.sh at their short sizes
#   make stress         the same cases at stress sizes (REL_SCALE=stress; 8 threads x 1 M ops,
#                       many kill -9 trials...), no per-case time limit below 1 h
#   make fuzz           libFuzzer over the dump reader + report + dump paths (clang), seeded with
#                       golden dumps and real dumps of the test programs; FUZZ_SECONDS (default
#                       60), FUZZ_JOBS (default 1); crashes land in build/fuzz/crashes/: copy them
#                       to tests/fuzz/regress/ (run by rel_fuzz_regress)
#   make test-asan      ASan+UBSan analyzer and test programs through the e2e and reliability
#                       checks (tracker preloaded after libasan), valgrind over the golden dumps
.PHONY: stress fuzz test-asan rel-programs rel-asan

REL_OUT := $(BUILD)/tests/rel
REL_CFLAGS = $(filter-out -O2,$(ALL_CFLAGS)) -O1 -g -fno-omit-frame-pointer -rdynamic
REL_FAKERT := $(BUILD)/tests/fakert/libcudart.so
REL_STUB := $(CUDA_HOME)/lib64/stubs/libcuda.so
REL_DEPS := tests/progs/fake_prog.h tests/reliability/reliability.mk

rel-programs: $(REL_OUT)/rel_app $(REL_OUT)/rel_dl $(REL_OUT)/rel_hostile
test-programs: rel-programs rel-asan

$(REL_OUT)/rel_app: tests/reliability/rel_app.c $(REL_FAKERT) $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -o $@ $< -L$(BUILD)/tests/fakert -lcudart -Wl,-rpath,'$$ORIGIN/../fakert' -lpthread

$(REL_OUT)/rel_dl: tests/reliability/rel_dl.c $(REL_FAKERT) $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) -o $@ $< -Wl,-rpath,'$$ORIGIN/../fakert' -ldl -lpthread

$(REL_OUT)/librel_ctor.so: tests/reliability/librel_ctor.c $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

$(REL_OUT)/librel_next.so: tests/reliability/librel_next.c $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

$(REL_OUT)/rel_hostile: tests/reliability/rel_hostile.c $(REL_OUT)/librel_ctor.so $(REL_OUT)/librel_next.so $(REL_DEPS)
	$(CC) $(REL_CFLAGS) -o $@ $< -L$(REL_OUT) -Wl,--no-as-needed -lrel_ctor -lrel_next $(REL_STUB) \
		-Wl,-rpath,'$$ORIGIN' -ldl -lpthread

# --- sanitizer builds (build/asan/): the analyzer and the runtime test programs ---------------
ASAN_OUT := $(BUILD)/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_OK := $(shell echo 'int main(void){return 0;}' | $(CC) $(ASAN_FLAGS) -x c - -o /dev/null 2>/dev/null && echo yes)
ASAN_AN_OBJS := $(patsubst analyzer/%.c,$(ASAN_OUT)/analyzer/%.o,$(CMT_AN_SRCS))
ASAN_RT_PROGS := $(foreach p,$(FAKE_RT_PROGS),$(ASAN_OUT)/tests/progs/$(p).shared $(ASAN_OUT)/tests/progs/$(p).static) \
	$(foreach p,$(FAKE_DRV_PROGS),$(ASAN_OUT)/tests/progs/$(p))

ifeq ($(ASAN_OK),yes)
rel-asan: $(ASAN_OUT)/cumemtrack $(ASAN_OUT)/tests/progs/rt_basic.shared $(ASAN_OUT)/tests/rel/rel_app
else
rel-asan:
	@echo "reliability: $(CC) cannot build with $(ASAN_FLAGS); sanitizer builds skipped"
endif

$(ASAN_OUT)/analyzer/%.o: analyzer/%.c $(CMT_AN_HDRS) include/cmt_format.h include/cmt_wire.h $(CMT_AN_ASSETS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -O1 $(CMT_AN_INC) -c -o $@ $<

$(ASAN_OUT)/cumemtrack: $(ASAN_AN_OBJS)
	$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(CMT_AN_LIBS)

# the programs find the shared runtime double of the normal build ($ORIGIN/../../../tests/fakert)
$(ASAN_OUT)/tests/progs/%.shared: tests/progs/%.c $(REL_FAKERT) $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) $(ASAN_FLAGS) $(call fake_rt_extra,$*) -o $@ $< -L$(BUILD)/tests/fakert \
		-lcudart -Wl,-rpath,'$$ORIGIN/../../../tests/fakert' -lpthread

$(ASAN_OUT)/tests/progs/%.static: tests/progs/%.c $(BUILD)/tests/fakert/libcudart_static.a $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) $(ASAN_FLAGS) $(call fake_rt_extra,$*) -o $@ $< \
		$(BUILD)/tests/fakert/libcudart_static.a -ldl -lpthread

$(ASAN_OUT)/tests/progs/drv_%: tests/progs/drv_%.c $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FAKE_PROG_CFLAGS) $(ASAN_FLAGS) -o $@ $< $(REL_STUB) -lpthread

$(ASAN_OUT)/tests/rel/rel_app: tests/reliability/rel_app.c $(REL_FAKERT) $(REL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) $(ASAN_FLAGS) -o $@ $< -L$(BUILD)/tests/fakert -lcudart \
		-Wl,-rpath,'$$ORIGIN/../../../tests/fakert' -lpthread

test-asan: all test-programs $(ASAN_RT_PROGS)
	@REL_ASAN_FULL=1 CMT_TEST_TIMEOUT=1800 tests/run.sh rel_sanitize

# --- stress ------------------------------------------------------------------------------------
stress: all test-programs
	@REL_SCALE=stress CMT_TEST_TIMEOUT=3600 tests/run.sh rel_

# --- fuzzing -----------------------------------------------------------------------------------
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_OUT := $(BUILD)/fuzz
FUZZ_AN_SRCS := $(filter-out analyzer/cmd/main.c,$(CMT_AN_SRCS))
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -Iinclude -I$(CUDA_INC) $(CMT_AN_INC) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

$(FUZZ_OUT)/fuzz_report: tests/fuzz/fuzz_report.c $(FUZZ_AN_SRCS) $(CMT_AN_HDRS) include/cmt_format.h $(CMT_AN_ASSETS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_report.c $(FUZZ_AN_SRCS) $(CMT_AN_LIBS)

fuzz: all test-programs $(FUZZ_OUT)/fuzz_report
	@tests/fuzz/run_fuzz.sh $(FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_JOBS)
