#pragma once
// Per-LP random numbers: xoshiro256** seeded from (run seed, LP id) through splitmix64, so
// an LP draws the same numbers wherever it runs.

#include <cstdint>

namespace collsim::pdes {

class RandomStream {
 public:
  RandomStream() : RandomStream(0, 0) {}
  RandomStream(std::uint64_t seed, std::uint64_t stream_id);

  std::uint64_t next_u64();
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n), without modulo bias. n > 0.
  std::uint64_t below(std::uint64_t n);
  // Exponentially distributed with the given mean.
  double exponential(double mean);

 private:
  std::uint64_t s_[4];
};

}  // namespace collsim::pdes
