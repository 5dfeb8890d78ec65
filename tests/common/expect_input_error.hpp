#pragma once
// The check every reader's tests make: a call fails with a collsim::InputError at a given
// position whose message says the right thing.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "collsim/common/input_error.hpp"

namespace collsim::testing {

// Runs `f` and expects an InputError at `line` and `column` (0: any column) whose message
// contains `needle`; and, if `file` is given, naming that file.
inline void expect_input_error(const std::function<void()>& f, std::uint64_t line, std::uint64_t column,
                               const std::string& needle, const std::string& file = "") {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << needle;
  } catch (const InputError& e) {
    if (!file.empty()) {
      EXPECT_EQ(e.file(), file) << e.what();
    }
    EXPECT_EQ(e.line(), line) << e.what();
    if (column != 0) {
      EXPECT_EQ(e.column(), column) << e.what();
    }
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

}  // namespace collsim::testing
