// gtest_suite.cpp — a GoogleTest suite on the runtime double (tests/fakert) for
// tests/cases/pytest_gtest.sh, linked with examples/gtest_listener.cpp: Leaky.KeepsABuffer leaks
// 1 MiB (kept_buffer, from its body), Peak.Big peaks at 64 MiB and frees it, WithFixture.Clean
// allocates in SetUp and frees in TearDown (inside the test's range: no leak), Clean.* free what
// they allocate.
#include <gtest/gtest.h>

#include <cstddef>

extern "C" int cudaMalloc(void **p, size_t n);
extern "C" int cudaFree(void *p);

static const size_t MIB = 1 << 20;
static void *kept;

__attribute__((noinline)) void *kept_buffer(size_t n) {
    void *p = nullptr;
    if (cudaMalloc(&p, n) != 0) return nullptr;
    return p;
}

TEST(Clean, Frees) {
    void *p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, 4 * MIB), 0);
    ASSERT_EQ(cudaFree(p), 0);
}

TEST(Leaky, KeepsABuffer) {
    kept = kept_buffer(MIB);
    ASSERT_NE(kept, nullptr);
}

TEST(Peak, Big) {
    void *p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, 64 * MIB), 0);
    ASSERT_EQ(cudaFree(p), 0);
}

class WithFixture : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_EQ(cudaMalloc(&buf, 8 * MIB), 0);
    }
    void TearDown() override {
        ASSERT_EQ(cudaFree(buf), 0);
    }
    void *buf = nullptr;
};

TEST_F(WithFixture, Clean) {
    EXPECT_NE(buf, nullptr);
}

TEST(Clean, FreesTheEarlierLeak) {
    ASSERT_EQ(cudaFree(kept), 0); // changes neither test's figures
}
