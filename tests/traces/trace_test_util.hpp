#pragma once
// What the reader tests share: where the Chakra samples are, and an error's text.

#include <string>

#include "collsim/common/input_error.hpp"

namespace collsim::traces::testing {

inline const std::string kChakra = std::string(COLLSIM_TEST_DATA) + "/traces/chakra/";

// The error's text, or "" when `f` does not throw InputError.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace collsim::traces::testing
