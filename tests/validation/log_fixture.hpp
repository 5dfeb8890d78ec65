#pragma once
// Reading the shared logs of validation/logs by their number ("05" -> 05_alltoall_...log).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "collsim/validation/nccl_tests_log.hpp"

namespace collsim::validation::testing {

inline std::string log_path(const std::string& number) {
  for (const auto& e : std::filesystem::directory_iterator(COLLSIM_VALIDATION_LOGS))
    if (e.path().filename().string().rfind(number + "_", 0) == 0) return e.path().string();
  ADD_FAILURE() << "no log " << number << " in " << COLLSIM_VALIDATION_LOGS;
  return {};
}

inline LogFile read_log(const std::string& number) { return read_nccl_tests_log(log_path(number)); }

}  // namespace collsim::validation::testing
