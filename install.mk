# install.mk — `make install [PREFIX=/usr/local] [DESTDIR=]` and `make uninstall` (included by
# the top Makefile). Layout under $(DESTDIR)$(PREFIX):
#   bin/cumemtrack                     the analyzer (its `run` finds the tracer at
#   lib/cumemtrack/libcumemtrack.so    ../lib/cumemtrack/ from its own directory)
#   lib/libcumemtrack_mark.so          what programs link for cmt_mark() (-lcumemtrack_mark)
#   include/cumemtrack.h               the public marker API
#   share/man/man1/cumemtrack.1        the manual page
#   share/cumemtrack/report-schema.json the JSON schema of `report --json`
#   share/cumemtrack/top-schema.json    the JSON schema of `top --json --once`
.PHONY: install uninstall

CMT_INSTALL ?= install
CMT_INST_ROOT = $(DESTDIR)$(PREFIX)

install: all
	$(CMT_INSTALL) -d $(CMT_INST_ROOT)/bin $(CMT_INST_ROOT)/lib/cumemtrack $(CMT_INST_ROOT)/include \
		$(CMT_INST_ROOT)/share/man/man1 $(CMT_INST_ROOT)/share/cumemtrack
	$(CMT_INSTALL) -m 755 $(BUILD)/cumemtrack $(CMT_INST_ROOT)/bin/cumemtrack
	$(CMT_INSTALL) -m 755 $(BUILD)/libcumemtrack.so $(CMT_INST_ROOT)/lib/cumemtrack/libcumemtrack.so
	$(CMT_INSTALL) -m 755 $(BUILD)/libcumemtrack_mark.so $(CMT_INST_ROOT)/lib/libcumemtrack_mark.so
	$(CMT_INSTALL) -m 644 include/cumemtrack.h $(CMT_INST_ROOT)/include/cumemtrack.h
	$(CMT_INSTALL) -m 644 docs/cumemtrack.1 $(CMT_INST_ROOT)/share/man/man1/cumemtrack.1
	$(CMT_INSTALL) -m 644 docs/report-schema.json $(CMT_INST_ROOT)/share/cumemtrack/report-schema.json
	$(CMT_INSTALL) -m 644 docs/top-schema.json $(CMT_INST_ROOT)/share/cumemtrack/top-schema.json

uninstall:
	rm -f $(CMT_INST_ROOT)/bin/cumemtrack $(CMT_INST_ROOT)/lib/cumemtrack/libcumemtrack.so \
		$(CMT_INST_ROOT)/lib/libcumemtrack_mark.so \
		$(CMT_INST_ROOT)/include/cumemtrack.h $(CMT_INST_ROOT)/share/man/man1/cumemtrack.1 \
		$(CMT_INST_ROOT)/share/cumemtrack/report-schema.json $(CMT_INST_ROOT)/share/cumemtrack/top-schema.json
	rmdir $(CMT_INST_ROOT)/lib/cumemtrack $(CMT_INST_ROOT)/share/cumemtrack 2>/dev/null || true
