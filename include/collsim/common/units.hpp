#pragma once
// Bandwidths and byte sizes, parsed once where they enter ("400Gbps", "32MiB") and carried
// as integers inside: bits per second, bytes.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collsim {

namespace detail {
__extension__ typedef unsigned __int128 uint128;
}

class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bits_per_second(std::int64_t v) { return Bandwidth(v); }
  static constexpr Bandwidth gbps(std::int64_t v) { return Bandwidth(v * 1'000'000'000); }

  constexpr std::int64_t bps() const { return bps_; }
  constexpr double bytes_per_second() const { return static_cast<double>(bps_) / 8.0; }
  constexpr auto operator<=>(const Bandwidth&) const = default;

  // Picoseconds to put `bytes` on the wire, rounded up: bytes * 8e12 / bps.
  constexpr std::int64_t serialization_ps(std::uint64_t bytes) const {
    const auto bps = static_cast<std::uint64_t>(bps_);
    // Packets fit 64-bit arithmetic (bytes * 8e12 < 2^64 up to 2 MB); the 128-bit division is
    // a library call several times slower.
    if (bytes < (std::uint64_t{1} << 21)) return static_cast<std::int64_t>((bytes * 8'000'000'000'000u + bps - 1) / bps);
    const detail::uint128 bits_ps = static_cast<detail::uint128>(bytes) * 8'000'000'000'000u;
    return static_cast<std::int64_t>((bits_ps + bps - 1) / bps);
  }

 private:
  constexpr explicit Bandwidth(std::int64_t bps) : bps_(bps) {}
  std::int64_t bps_ = 0;
};

// "400Gbps", "400 Gb/s", "100Mbps", "1.6Tbps", "50GB/s" (bytes), "25GiB/s". Decimal prefixes are
// powers of 1000, binary (Ki, Mi, Gi, Ti) of 1024; "b"/"bit" are bits, "B" bytes. Returns
// nothing and sets `error` for anything else, for zero, or for more than 2^63-1 bit/s.
std::optional<Bandwidth> parse_bandwidth(std::string_view text, std::string* error = nullptr);

// "4096", "4KiB", "32MiB", "1.5GB", "9000B". Plain numbers are bytes; the result must be a whole
// number of bytes below 2^63.
std::optional<std::uint64_t> parse_byte_size(std::string_view text, std::string* error = nullptr);

std::string format_bandwidth(Bandwidth bw);       // "400Gbps"
std::string format_byte_size(std::uint64_t bytes);  // "32MiB", "1500B"

}  // namespace collsim
