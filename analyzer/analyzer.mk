# analyzer/analyzer.mk — builds build/cumemtrack (the offline analyzer) and the analyzer's test
# tools (build/tests/tools/cmt_mkdump). Included by the top Makefile (CC, BUILD, ALL_CFLAGS).
CMT_AN_SRCS := $(wildcard analyzer/*.c)
CMT_AN_OBJS := $(patsubst analyzer/%.c,$(BUILD)/analyzer/%.o,$(CMT_AN_SRCS))
CMT_AN_LIBS := -ldw -lelf -ldl

$(BUILD)/analyzer/%.o: analyzer/%.c $(wildcard analyzer/*.h) include/cmt_format.h include/cmt_wire.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ianalyzer -c -o $@ $<

$(BUILD)/cumemtrack: $(CMT_AN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(CMT_AN_OBJS) $(CMT_AN_LIBS)

$(BUILD)/tests/tools/cmt_mkdump: tests/tools/cmt_mkdump.c include/cmt_format.h include/cmt_wire.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

.PHONY: analyzer analyzer-tools
analyzer: $(BUILD)/cumemtrack
analyzer-tools: $(BUILD)/tests/tools/cmt_mkdump
test-programs: $(BUILD)/tests/tools/cmt_mkdump

# The analyzer's unit tests (tests/unit/test_replay.c, test_ranks.c) link every analyzer object
# but main.o, through a static archive.
CMT_AN_LIB := $(BUILD)/analyzer/libcmt_analyzer.a
CMT_AN_UNITS := $(BUILD)/tests/unit/test_replay $(BUILD)/tests/unit/test_ranks

$(CMT_AN_LIB): $(filter-out $(BUILD)/analyzer/main.o,$(CMT_AN_OBJS))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/unit/test_%: tests/unit/test_%.c tests/unit/an_events.h $(CMT_AN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ianalyzer -o $@ $< $(CMT_AN_LIB) $(CMT_AN_LIBS) -lpthread $(AN_UNIT_LDFLAGS)

# test_replay makes the allocator fail from the n-th call on
$(BUILD)/tests/unit/test_replay: AN_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

test-programs: $(CMT_AN_UNITS)
