// gtest_listener.cpp — per-test GPU memory for a GoogleTest suite: link this file into the test
// binary (with -lcumemtrack_mark and include/ on the include path) and every test becomes a test
// range in the dump (cmt_test_begin/cmt_test_end of include/cumemtrack.h), named
// "Suite.Test" (parameterized: "Prefix/Suite.Test/0"). The range begins before the fixture's
// SetUp and ends after its TearDown. It registers itself when the binary starts, so it works with
// gtest_main too; without the tracker the calls do nothing.
//
//   g++ my_tests.cpp examples/gtest_listener.cpp -Iinclude -lgtest -lgtest_main -lpthread \
//       -Lbuild -lcumemtrack_mark -o my_tests
//   cumemtrack run -o out/%p.cmt -- ./my_tests      (or: -- ctest, each test binary a dump)
//   cumemtrack check --per-marker out              (fails naming each test that leaked)
//   cumemtrack report out                          (the "per test" table)
#include <gtest/gtest.h>

#include <string>

#include "cumemtrack.h"

namespace {

class CumemtrackListener : public ::testing::EmptyTestEventListener {
    static std::string name(const ::testing::TestInfo &t) {
        return std::string(t.test_suite_name()) + "." + t.name();
    }
    void OnTestStart(const ::testing::TestInfo &t) override {
        cmt_test_begin(name(t).c_str());
    }
    void OnTestEnd(const ::testing::TestInfo &t) override {
        cmt_test_end(name(t).c_str());
    }
};

// Appended before main runs (gtest_main's or the program's own): the listener list takes
// ownership of it.
const bool registered = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new CumemtrackListener);
    return true;
}();

} // namespace
