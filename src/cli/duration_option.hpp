#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "collsim/pdes/sim_time.hpp"

namespace collsim::cli {

// A duration given on the command line ("1.5us"); a usage error names the option.
inline pdes::SimTime parse_duration_option(const std::string& option, const std::string& text) {
  std::string error;
  const auto t = pdes::parse_duration(text, &error);
  if (!t) throw CLI::ValidationError(option, error);
  if (*t < pdes::SimTime::zero()) throw CLI::ValidationError(option, "must not be negative");
  return *t;
}

}  // namespace collsim::cli
