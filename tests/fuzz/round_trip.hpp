#pragma once
// A schedule that a reader accepted must survive writing and reading back unchanged;
// anything else is a bug, and the fuzzer should stop on it.

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "collsim/goal/schedule.hpp"

namespace collsim::fuzz {

template <typename Write, typename Read>
void require_round_trip(const goal::Schedule& schedule, Write&& write, Read&& read) {
  std::ostringstream out;
  write(schedule, out);
  const std::string bytes = out.str();
  const goal::Schedule again = read(bytes);
  if (!(again == schedule)) {
    std::fprintf(stderr, "round trip changed the schedule\n");
    std::abort();
  }
}

}  // namespace collsim::fuzz
