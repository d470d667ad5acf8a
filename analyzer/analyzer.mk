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
