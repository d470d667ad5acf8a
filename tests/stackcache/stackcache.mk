# tests/stackcache/stackcache.mk — programs that try to make the tracer's stack cache record a stack
# other than libunwind's (included by tests/tests.mk; used by tests/cases/preload_stack_cache_*.sh):
# sc_adversarial.c built without frame pointers (-O2, sibling calls) and with them, and the
# dlclose/dlopen pair (sc_reload.c loading sc_plugin.c built as v1 and v2 at the same address).
SC_OUT := $(BUILD)/tests/stackcache
test-programs: $(SC_OUT)/sc_adversarial $(SC_OUT)/sc_adversarial_fp $(SC_OUT)/sc_reload \
	$(SC_OUT)/sc_plugin_v1.so $(SC_OUT)/sc_plugin_v2.so

$(SC_OUT)/sc_adversarial: tests/stackcache/sc_adversarial.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O2 $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(SC_OUT)/sc_adversarial_fp: tests/stackcache/sc_adversarial.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O2 -fno-omit-frame-pointer $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(SC_OUT)/sc_reload: tests/stackcache/sc_reload.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $< -o $@ -ldl -L$(CUDA_HOME)/lib64/stubs -lcuda

$(SC_OUT)/sc_plugin_v%.so: tests/stackcache/sc_plugin.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O0 -fPIC -shared -DVERSION=$* $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda

# a plugin loaded and unloaded in a loop (tests/cases/preload_stack_reuse.sh)
test-programs: $(SC_OUT)/sc_cycle $(SC_OUT)/sc_cycle_plugin.so

$(SC_OUT)/sc_cycle: tests/stackcache/sc_cycle.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $< -o $@ -ldl -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(SC_OUT)/sc_cycle_plugin.so: tests/stackcache/sc_cycle_plugin.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O0 -fPIC -shared $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda

# one stack defined again after each unload while other threads read it (preload_stack_reuse.sh)
test-programs: $(SC_OUT)/sc_redefine
$(SC_OUT)/sc_redefine: tests/stackcache/sc_redefine.c tests/stackcache/stackcache.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $< -o $@ -ldl -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread
