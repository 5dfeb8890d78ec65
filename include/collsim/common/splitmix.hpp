#pragma once
// SplitMix64's output function: a well-mixed 64-bit value of a 64-bit key, for draws that
// must be a function of what they are for (a seed, a rank, an op) rather than of the order
// they are made in.

#include <cstdint>

namespace collsim {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace collsim
