# analyzer/analyzer.mk — builds build/cumemtrack (the offline analyzer) and the analyzer's test
# tools (build/tests/tools/cmt_mkdump). Included by the top Makefile (CC, BUILD, ALL_CFLAGS).
#
# The analyzer is a pipeline of five folders, each using only the folders below it:
#   util/ -> read/ -> model/ -> render/ -> cmd/
# (docs/ARCHITECTURE.md). A folder's sources are compiled with the include paths of that folder
# and the ones below it only, so an include that points upward does not compile;
# tests/cases/house_layers.sh checks the same order on the objects' symbols.
CMT_AN_LAYERS := util read model render cmd
CMT_AN_SRCS := $(foreach l,$(CMT_AN_LAYERS),$(wildcard analyzer/$(l)/*.c))
CMT_AN_HDRS := $(foreach l,$(CMT_AN_LAYERS),$(wildcard analyzer/$(l)/*.h))
CMT_AN_OBJS := $(patsubst analyzer/%.c,$(BUILD)/analyzer/%.o,$(CMT_AN_SRCS))
CMT_AN_LIBS := -ldw -lelf -ldl
# analyzer/render/html/report.{css,js} become C arrays (cmt_html_report_css[],
# cmt_html_report_js[]) in a generated header that render_html.c includes; od and awk only, no
# extra package.
CMT_AN_GEN := $(BUILD)/analyzer/gen
CMT_AN_ASSETS := $(CMT_AN_GEN)/html_assets.h
# include paths of each layer: its own folder and the ones below; CMT_AN_INC: all (tests, fuzzers)
CMT_AN_INC_util := -Ianalyzer/util
CMT_AN_INC_read := $(CMT_AN_INC_util) -Ianalyzer/read
CMT_AN_INC_model := $(CMT_AN_INC_read) -Ianalyzer/model
CMT_AN_INC_render := $(CMT_AN_INC_model) -Ianalyzer/render -I$(CMT_AN_GEN)
CMT_AN_INC_cmd := $(CMT_AN_INC_render) -Ianalyzer/cmd
CMT_AN_INC := $(CMT_AN_INC_cmd)

$(CMT_AN_ASSETS): analyzer/render/html/report.css analyzer/render/html/report.js analyzer/analyzer.mk
	@mkdir -p $(dir $@)
	@{ echo "/* generated from analyzer/render/html/ by analyzer/analyzer.mk: do not edit */"; \
	  for f in report.css report.js; do \
	    echo "static const char cmt_html_$$(echo $$f | tr . _)[] = {"; \
	    od -An -v -tx1 analyzer/render/html/$$f | awk '{ for (i = 1; i <= NF; i++) printf "0x%s,", $$i; print "" }'; \
	    echo "0x00};"; \
	  done; } >$@.tmp && mv $@.tmp $@

$(BUILD)/analyzer/%.o: analyzer/%.c $(CMT_AN_HDRS) include/cmt_format.h include/cmt_wire.h preload/cmt_python.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMT_AN_INC_$(firstword $(subst /, ,$*))) -c -o $@ $<

$(BUILD)/analyzer/render/render_html.o: $(CMT_AN_ASSETS)

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

$(CMT_AN_LIB): $(filter-out $(BUILD)/analyzer/cmd/main.o,$(CMT_AN_OBJS))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/unit/test_%: tests/unit/test_%.c tests/unit/an_events.h $(CMT_AN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMT_AN_INC) -o $@ $< $(CMT_AN_LIB) $(CMT_AN_LIBS) -lpthread $(AN_UNIT_LDFLAGS)

# test_replay makes the allocator fail from the n-th call on
$(BUILD)/tests/unit/test_replay: AN_UNIT_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

test-programs: $(CMT_AN_UNITS)
