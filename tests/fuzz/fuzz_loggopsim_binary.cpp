#include <cstddef>
#include <cstdint>
#include <span>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/binary_formats.hpp"
#include "round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  try {
    const goal::Schedule s = goal::parse_loggopsim_binary(std::as_bytes(std::span(data, size)), "fuzz.bin");
    fuzz::require_round_trip(
        s, [](const goal::Schedule& x, std::ostream& o) { goal::write_loggopsim_binary(x, o); },
        [](const std::string& b) {
          return goal::parse_loggopsim_binary(std::as_bytes(std::span(b.data(), b.size())), "rewritten.bin");
        });
  } catch (const InputError&) {
  }
  return 0;
}
