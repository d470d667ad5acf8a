# install.mk — `make install [PREFIX=/usr/local] [DESTDIR=]` and `make uninstall` (included by
# the top Makefile). Layout under $(DESTDIR)$(PREFIX):
#   bin/cumemtrack                     the analyzer (its `run` finds the tracer at
#   lib/cumemtrack/libcumemtrack.so    ../lib/cumemtrack/ from its own directory)
#   lib/libcumemtrack_mark.so          what programs link for cmt_mark() (-lcumemtrack_mark)
#   include/cumemtrack.h               the public marker API
#   share/man/man1/cumemtrack.1        the manual page
#   share/cumemtrack/report-schema.json the JSON schema of `report --json`
#   share/cumemtrack/top-schema.json    the JSON schema of `top --json --once`
#   share/cumemtrack/gtest_listener.cpp the GoogleTest listener (per-test ranges)
#   SITE/cumemtrack/                    the pytest plugin (python/cumemtrack), and
#   SITE/cumemtrack-VERSION.dist-info/  its entry point (pytest11), so `pytest --cumemtrack` finds it;
#     SITE: the site directory under PREFIX of $(CMT_PYTHON) (default: the first of /usr/bin/python3
#     and python3 that imports pytest, else python3): the dist-packages directory it searches there
#     (Debian: PREFIX=/usr/local), else its posix_prefix purelib; CMT_PY_SITE=DIR overrides it
.PHONY: install uninstall

CMT_INSTALL ?= install
CMT_INST_ROOT = $(DESTDIR)$(PREFIX)
CMT_PY_VERSION := $(shell sed -n 's/^\#define CMT_VERSION "\(.*\)"/\1/p' analyzer/cmd/cli.h)
CMT_PY_FILES := __init__.py pytest_plugin.py
# memoized lazily: only install and uninstall run Python
ifndef CMT_PYTHON
CMT_PYTHON = $(eval CMT_PYTHON := $(shell for p in /usr/bin/python3 python3; do $$p -c 'import pytest' 2>/dev/null && { command -v $$p; exit; }; done; command -v python3))$(CMT_PYTHON)
endif
ifndef CMT_PY_SITE
CMT_PY_SITE = $(eval CMT_PY_SITE := $(if $(CMT_PYTHON),$(shell $(CMT_PYTHON) scripts/py_site.py $(PREFIX))))$(CMT_PY_SITE)
endif
CMT_PY_DIST = cumemtrack-$(CMT_PY_VERSION).dist-info

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
	$(CMT_INSTALL) -m 644 examples/gtest_listener.cpp $(CMT_INST_ROOT)/share/cumemtrack/gtest_listener.cpp
	@if [ -z "$(CMT_PY_SITE)" ]; then echo "cumemtrack: no python3: the pytest plugin is not installed" >&2; else \
	  set -e; d=$(DESTDIR)$(CMT_PY_SITE); \
	  $(CMT_INSTALL) -d $$d/cumemtrack $$d/$(CMT_PY_DIST); \
	  for f in $(CMT_PY_FILES); do $(CMT_INSTALL) -m 644 python/cumemtrack/$$f $$d/cumemtrack/$$f; done; \
	  printf 'Metadata-Version: 2.1\nName: cumemtrack\nVersion: %s\nSummary: GPU memory leak gates per test (pytest --cumemtrack)\nRequires-Dist: pytest\n' \
	    '$(CMT_PY_VERSION)' >$$d/$(CMT_PY_DIST)/METADATA; \
	  printf '[pytest11]\ncumemtrack.pytest_plugin = cumemtrack.pytest_plugin\n' >$$d/$(CMT_PY_DIST)/entry_points.txt; \
	  printf 'cumemtrack\n' >$$d/$(CMT_PY_DIST)/top_level.txt; \
	  printf 'make\n' >$$d/$(CMT_PY_DIST)/INSTALLER; \
	  chmod 644 $$d/$(CMT_PY_DIST)/*; \
	  echo "cumemtrack: the pytest plugin went to $(CMT_PY_SITE) (for $(CMT_PYTHON))"; fi

uninstall:
	rm -f $(CMT_INST_ROOT)/bin/cumemtrack $(CMT_INST_ROOT)/lib/cumemtrack/libcumemtrack.so \
		$(CMT_INST_ROOT)/lib/libcumemtrack_mark.so \
		$(CMT_INST_ROOT)/include/cumemtrack.h $(CMT_INST_ROOT)/share/man/man1/cumemtrack.1 \
		$(CMT_INST_ROOT)/share/cumemtrack/report-schema.json $(CMT_INST_ROOT)/share/cumemtrack/top-schema.json \
		$(CMT_INST_ROOT)/share/cumemtrack/gtest_listener.cpp
	if [ -n "$(CMT_PY_SITE)" ]; then rm -rf $(DESTDIR)$(CMT_PY_SITE)/cumemtrack $(DESTDIR)$(CMT_PY_SITE)/$(CMT_PY_DIST); fi
	rmdir $(CMT_INST_ROOT)/lib/cumemtrack $(CMT_INST_ROOT)/share/cumemtrack 2>/dev/null || true
