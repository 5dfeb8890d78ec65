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

namespace {

// Ziggurat tables for the standard exponential (Marsaglia & Tsang, 2000): 256 layers of equal
// area; x[i] is the right edge of layer i, f[i] = exp(-x[i]).
struct ExponentialZiggurat {
  static constexpr int kLayers = 256;
  static constexpr double kR = 7.69711747013104972;      // right edge of the base layer
  static constexpr double kArea = 3.949659822581572e-3;  // area of every layer
  double x[kLayers + 1];
  double f[kLayers + 1];
  ExponentialZiggurat() {
    x[0] = kArea / std::exp(-kR);  // the base layer includes the tail
    x[1] = kR;
    for (int i = 2; i < kLayers; ++i) x[i] = -std::log(kArea / x[i - 1] + std::exp(-x[i - 1]));
    x[kLayers] = 0;
    for (int i = 0; i <= kLayers; ++i) f[i] = std::exp(-x[i]);
  }
};

const ExponentialZiggurat& ziggurat() {
  static const ExponentialZiggurat z;
  return z;
}

}  // namespace

double RandomStream::exponential(double mean) {
  const ExponentialZiggurat& z = ziggurat();
  for (;;) {
    const std::uint64_t bits = next_u64();
    const int layer = static_cast<int>(bits & 0xFF);
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // independent of the layer bits
    const double x = u * z.x[layer];
    // Inside the rectangle under the layer above: accept at once (about 98.9 % of draws).
    if (x < z.x[layer + 1]) return mean * x;
    if (layer == 0) return mean * (ExponentialZiggurat::kR - std::log(uniform()));  // the tail
    // In the wedge between the rectangle and the curve.
    if (z.f[layer] + uniform() * (z.f[layer + 1] - z.f[layer]) < std::exp(-x)) return mean * x;
  }
}

}  // namespace collsim::pdes
