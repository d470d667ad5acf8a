# analyzer/analyzer.mk — builds build/cumemtrack (the offline analyzer) and the analyzer's test
# tools (build/tests/tools/cmt_mkdump). Included by the top Makefile (CC, BUILD, ALL_CFLAGS).
CMT_AN_SRCS := $(wildcard analyzer/*.c)
CMT_AN_OBJS := $(patsubst analyzer/%.c,$(BUILD)/analyzer/%.o,$(CMT_AN_SRCS))
CMT_AN_LIBS := -ldw -lelf -ldl
# analyzer/html/report.{css,js} become C arrays (cmt_html_report_css[], cmt_html_report_js[]) in
# a generated header that render_html.c includes; od and awk only, no extra package.
CMT_AN_GEN := $(BUILD)/analyzer/gen
CMT_AN_INC := -Ianalyzer -I$(CMT_AN_GEN)
CMT_AN_ASSETS := $(CMT_AN_GEN)/html_assets.h

$(CMT_AN_ASSETS): analyzer/html/report.css analyzer/html/report.js analyzer/analyzer.mk
	@mkdir -p $(dir $@)
	@{ echo "/* generated from analyzer/html/ by analyzer/analyzer.mk: do not edit */"; \
	  for f in report.css report.js; do \
	    echo "static const char cmt_html_$$(echo $$f | tr . _)[] = {"; \
	    od -An -v -tx1 analyzer/html/$$f | awk '{ for (i = 1; i <= NF; i++) printf "0x%s,", $$i; print "" }'; \
	    echo "0x00};"; \
	  done; } >$@.tmp && mv $@.tmp $@

$(BUILD)/analyzer/%.o: analyzer/%.c $(wildcard analyzer/*.h) include/cmt_format.h include/cmt_wire.h preload/cmt_python.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMT_AN_INC) -c -o $@ $<

$(BUILD)/analyzer/render_html.o: $(CMT_AN_ASSETS)

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
CMT_AN_UNITS := $(BUILD)/tests/unit/test_replay $(BUILD)/tests/unit/test_ranks $(BUILD)/tests/unit/test_decode $(BUILD)/tests/unit/test_replay_queue $(BUILD)/tests/unit/test_follow
CMT_AN_UNITS += $(BUILD)/tests/unit/test_pickle

$(CMT_AN_LIB): $(filter-out $(BUILD)/analyzer/main.o,$(CMT_AN_OBJS))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/unit/test_%: tests/unit/test_%.c tests/unit/an_events.h $(CMT_AN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ianalyzer -o $@ $< $(CMT_AN_LIB) $(CMT_AN_LIBS) -lpthread $(AN_UNIT_LDFLAGS)

# test_replay makes the allocator fail from the n-th call on
$(BUILD)/tests/unit/test_replay: AN_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

test-programs: $(CMT_AN_UNITS)
