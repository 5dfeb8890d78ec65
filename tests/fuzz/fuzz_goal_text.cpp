#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/text_format.hpp"
#include "round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  try {
    const goal::Schedule s = goal::parse_goal_text({reinterpret_cast<const char*>(data), size}, "fuzz.goal");
    fuzz::require_round_trip(
        s, [](const goal::Schedule& x, std::ostream& o) { goal::write_goal_text(x, o); },
        [](const std::string& text) { return goal::parse_goal_text(text, "rewritten.goal"); });
  } catch (const InputError&) {
  }
  return 0;
}
