# tests/signals/signals.mk — programs for the live-signal tests (alerts, markers, NVTX).
SIGT := $(BUILD)/tests/signals
test-programs: $(SIGT)/sig_train $(SIGT)/sig_pool
$(SIGT)/sig_train: tests/signals/sig_train.c $(BUILD)/libcumemtrack_mark.so $(BUILD)/tests/fakert/libcudart.so.13
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O0 -fno-omit-frame-pointer -fno-inline $< -o $@ \
		-L$(BUILD)/tests/fakert -l:libcudart.so.13 -L$(BUILD) -lcumemtrack_mark -ldl \
		-Wl,-rpath,'$$ORIGIN/../fakert' -Wl,-rpath,'$$ORIGIN/../..'
$(SIGT)/sig_pool: tests/signals/sig_pool.c $(BUILD)/tests/fakert/libcudart.so.13
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O0 -fno-omit-frame-pointer -fno-inline $< -o $@ \
		-L$(BUILD)/tests/fakert -l:libcudart.so.13 -ldl -Wl,-rpath,'$$ORIGIN/../fakert'
