#include "collsim/pdes/random_stream.hpp"

#include <cmath>

namespace collsim::pdes {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
__extension__ typedef unsigned __int128 u128;
}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::uint64_t stream_id) {
  // Mix the two so that neighbouring streams of neighbouring seeds do not overlap.
  std::uint64_t x = seed;
  const std::uint64_t a = splitmix64(x);
  x = stream_id ^ rotl(a, 17);
  std::uint64_t mix = splitmix64(x) ^ a;
  for (std::uint64_t& word : s_) word = splitmix64(mix);
}

std::uint64_t RandomStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t RandomStream::below(std::uint64_t n) {
  // Lemire's multiply-shift with rejection.
  for (;;) {
    const u128 m = static_cast<u128>(next_u64()) * n;
    const auto low = static_cast<std::uint64_t>(m);
    if (low >= n || low >= (0 - n) % n) return static_cast<std::uint64_t>(m >> 64);
  }
}

double RandomStream::exponential(double mean) { return -mean * std::log1p(-uniform()); }

}  // namespace collsim::pdes
