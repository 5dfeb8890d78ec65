#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/text_format.hpp"
#include "common/expect_input_error.hpp"

namespace collsim::goal::testing {

inline std::string example(const std::string& name) { return std::string(COLLSIM_GOAL_EXAMPLES) + "/" + name; }
inline std::string test_data(const std::string& name) { return std::string(COLLSIM_TEST_DATA) + "/" + name; }

inline const char* const kExamples[] = {
    "loggopsim_binary_tree_16.goal",
    "loggopsim_schedgen2_bcast_8.goal",
    "loggopsim2_tests_scripts_schedule_4.goal",
    "loggopsim2_binomialtreebcast_128_1024.goal",
};

inline Schedule parse(const std::string& text) { return parse_goal_text(text, "t.goal"); }

using collsim::testing::expect_input_error;

inline void expect_parse_error(const std::string& text, std::uint64_t line, std::uint64_t column,
                               const std::string& needle) {
  expect_input_error([&] { parse(text); }, line, column, needle);
}

}  // namespace collsim::goal::testing
