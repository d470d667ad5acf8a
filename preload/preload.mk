# preload/preload.mk — builds build/libcumemtrack.so (the LD_PRELOAD tracer).
PRELOAD_SRCS := $(filter-out preload/cmt_mark_stub.c,$(wildcard preload/*.c))
PRELOAD_OBJS := $(PRELOAD_SRCS:preload/%.c=$(BUILD)/preload/%.o) $(BUILD)/preload/cmt_tramp.o
PRELOAD_HDRS := $(wildcard preload/*.h) $(wildcard include/*.h)
PRELOAD_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -fno-omit-frame-pointer -Ipreload

$(BUILD)/preload/%.o: preload/%.c $(PRELOAD_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -c $< -o $@

# The generated wrappers zero a struct cmt_call on every call of the general path (the hot calls'
# inline path has none): vector stores, not `rep stos` (whose start-up cost was ~30 ns a pair;
# check with objdump -d).
$(BUILD)/preload/cmt_wrappers.o: PRELOAD_CFLAGS += -mmemset-strategy=vector_loop:-1:noalign

$(BUILD)/preload/cmt_tramp.o: preload/cmt_tramp.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(BUILD)/preload/exports.map: preload/exports.map.in preload/cmt_hooks.h
	@mkdir -p $(dir $@)
	$(CC) -E -P -x c -Ipreload $< -o $@

$(BUILD)/libcumemtrack.so: $(PRELOAD_OBJS) $(BUILD)/preload/exports.map
	$(CC) -shared -o $@ $(PRELOAD_OBJS) -Wl,--version-script=$(BUILD)/preload/exports.map \
		-Wl,-z,defs -Wl,-soname,libcumemtrack.so -lpthread -ldl

# The forwarding library programs link for cmt_mark() (a no-op without the tracker).
all: $(BUILD)/libcumemtrack_mark.so
$(BUILD)/libcumemtrack_mark.so: preload/cmt_mark_stub.c include/cumemtrack.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $< -o $@ -Wl,-soname,libcumemtrack_mark.so -ldl
