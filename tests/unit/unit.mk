# tests/unit/unit.mk — the tracer's own unit and linking tests (format layout, dlsym identity) and
# the analyzer's NVML module against the fake NVML (test_nvml).
UNIT := $(BUILD)/tests/unit
test-programs: $(UNIT)/test_format $(UNIT)/dlsym_next $(UNIT)/stack_alias $(UNIT)/stack_sites $(UNIT)/vfork_exit \
	$(UNIT)/test_nvml $(UNIT)/stack_thread_exit

$(UNIT)/test_format: tests/unit/test_format.c include/cmt_format.h include/cmt_wire.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< -o $@

# the Python-frames side: the reader's interleaving, the walker on synthetic CPython structures
test-programs: $(UNIT)/test_interleave $(UNIT)/py_walk

CMT_AN_READ_SRCS := analyzer/read/reader.c analyzer/read/decode.c analyzer/read/follow.c analyzer/read/merge.c
$(UNIT)/test_interleave: tests/unit/test_interleave.c $(CMT_AN_READ_SRCS) analyzer/read/reader.h analyzer/read/reader_internal.h analyzer/util/util.c analyzer/util/util.h include/cmt_format.h include/cmt_wire.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMT_AN_INC_read) tests/unit/test_interleave.c $(CMT_AN_READ_SRCS) analyzer/util/util.c -o $@

$(UNIT)/py_walk: tests/unit/py_walk.c preload/cmt_python.c preload/cmt_records.c preload/cmt_seq.c preload/cmt_python.h \
		preload/cmt_internal.h preload/cmt_seq.h preload/cmt_state.h preload/cmt_writer.h preload/cmt_records.h \
		include/cmt_format.h include/cmt_wire.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ipreload tests/unit/py_walk.c preload/cmt_python.c preload/cmt_records.c preload/cmt_seq.c \
		-o $@ -lpthread

# the sequence numbers (preload/cmt_seq.c) with chosen times
test-programs: $(UNIT)/test_seq
$(UNIT)/test_seq: tests/unit/test_seq.c preload/cmt_seq.c preload/cmt_seq.h preload/cmt_state.h preload/cmt_init.h \
		include/cmt_format.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ipreload tests/unit/test_seq.c preload/cmt_seq.c -o $@ -lpthread

$(UNIT)/sub/libnext_private.so: tests/unit/libnext_private.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $< -o $@
$(UNIT)/libnext_a.so: tests/unit/libnext_a.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $< -o $@
$(UNIT)/libnext_b.so: tests/unit/libnext_b.c $(UNIT)/sub/libnext_private.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $< -o $@ -ldl -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/sub'
$(UNIT)/dlsym_next: tests/unit/dlsym_next.c $(UNIT)/libnext_a.so $(UNIT)/libnext_b.so
	$(CC) $(ALL_CFLAGS) $< -o $@ -L$(UNIT) -Wl,--no-as-needed -lnext_b -lnext_a -ldl -Wl,-rpath,'$$ORIGIN'

$(UNIT)/stack_alias $(UNIT)/stack_sites: $(UNIT)/%: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls $< -o $@ \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

$(UNIT)/stack_thread_exit: tests/unit/stack_thread_exit.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls $< -o $@ \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(UNIT)/vfork_exit: tests/unit/vfork_exit.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda

$(UNIT)/test_nvml: tests/unit/test_nvml.c $(BUILD)/analyzer/read/cmt_nvml.o analyzer/read/cmt_nvml.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMT_AN_INC_read) $< $(BUILD)/analyzer/read/cmt_nvml.o -o $@ -ldl

# the tracer with exit/_exit not found by RTLD_NEXT (tests/unit/nonext_exit.c)
test-programs: $(UNIT)/libcumemtrack_nonext.so
$(UNIT)/libcumemtrack_nonext.so: tests/unit/nonext_exit.c $(PRELOAD_OBJS) $(BUILD)/preload/exports.map
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -shared -o $@ $< $(PRELOAD_OBJS) -Wl,--wrap=cmt_next_sym \
		-Wl,--version-script=$(BUILD)/preload/exports.map -Wl,-z,defs -lpthread -ldl

# the live-allocation table (preload/cmt_ptrtab.c) against a reference
test-programs: $(UNIT)/test_ptrtab
$(UNIT)/test_ptrtab: tests/unit/test_ptrtab.c preload/cmt_ptrtab.c preload/cmt_ptrtab.h preload/cmt_seq.c preload/cmt_seq.h \
		preload/cmt_state.h preload/cmt_writer.h include/cmt_format.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ipreload tests/unit/test_ptrtab.c preload/cmt_ptrtab.c preload/cmt_seq.c -o $@ -lpthread
