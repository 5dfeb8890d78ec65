// Random bytes almost never pass the checksums, so before parsing, this target rewrites
// every checksum the (mutated) section table lets it compute: the structural checks
// behind the checksums get fuzzed too.

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/goal/binary_formats.hpp"
#include "round_trip.hpp"

namespace {

template <typename T>
T load(const std::vector<std::byte>& b, std::size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

void reseal(std::vector<std::byte>& b) {
  constexpr std::size_t kHeader = 64, kEntry = 32, kSections = 13;
  if (b.size() < kHeader + kEntry * kSections) return;
  for (std::size_t id = 0; id < kSections; ++id) {
    const std::size_t entry = kHeader + kEntry * id;
    const auto element = load<std::uint32_t>(b, entry + 4);
    const auto offset = load<std::uint64_t>(b, entry + 8);
    const auto count = load<std::uint64_t>(b, entry + 16);
    if (offset > b.size() || element == 0 || count > (b.size() - offset) / element) continue;
    const std::uint64_t sum = XXH3_64bits(b.data() + offset, count * element);
    std::memcpy(b.data() + entry + 24, &sum, sizeof sum);
  }
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  XXH3_64bits_update(st, b.data(), 56);
  XXH3_64bits_update(st, b.data() + kHeader, kEntry * kSections);
  const std::uint64_t sum = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  std::memcpy(b.data() + 56, &sum, sizeof sum);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace collsim;
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data), reinterpret_cast<const std::byte*>(data) + size);
  reseal(bytes);
  try {
    const goal::Schedule s = goal::parse_goalb(bytes, "fuzz.goalb");
    fuzz::require_round_trip(
        s, [](const goal::Schedule& x, std::ostream& o) { goal::write_goalb(x, o); },
        [](const std::string& b) { return goal::parse_goalb(std::as_bytes(std::span(b.data(), b.size())), "rewritten.goalb"); });
  } catch (const InputError&) {
  }
  return 0;
}
