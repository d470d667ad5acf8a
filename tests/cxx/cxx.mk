# tests/cxx/cxx.mk — a C++ program for the tracer tests (demangled frames, host exceptions).
CXX ?= g++
test-programs: $(BUILD)/tests/cxx/cxx_alloc
$(BUILD)/tests/cxx/cxx_alloc: tests/cxx/cxx_alloc.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -I$(CUDA_INC) $< -o $@ \
		-L$(CUDA_HOME)/lib64/stubs -lcuda
