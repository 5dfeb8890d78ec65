#pragma once
// One GOAL operation, as a value. The schedule stores ops column-wise; this struct is
// for building schedules and for reading one op back.

#include <cstdint>
#include <string_view>

namespace collsim::goal {

// The codes are those of LogGOPSim's binary format.
enum class OpKind : std::uint8_t { Send = 1, Recv = 2, Calc = 3 };

std::string_view to_string(OpKind kind);

using RankId = std::uint32_t;
// Index of an op within its rank, in order of appearance (as in LogGOPSim).
using LocalOp = std::uint32_t;

// Wildcards, stored as LogGOPSim stores "-1".
inline constexpr std::uint32_t kAnySource = 0xFFFFFFFFu;
inline constexpr std::uint32_t kAnyTag = 0xFFFFFFFFu;

// Bound on sizes and durations so that later arithmetic in signed 64-bit picoseconds and
// bytes cannot overflow on parse (2^63 - 1).
inline constexpr std::uint64_t kMaxSize = 0x7FFFFFFFFFFFFFFFull;
// A calc's nanoseconds become picoseconds: no more than 2^63 - 1 ps (106 days) of them, or
// they would wrap around to a short or negative time.
inline constexpr std::uint64_t kMaxCalcNs = kMaxSize / 1000;

struct Op {
  OpKind kind = OpKind::Calc;
  std::uint32_t peer = 0;  // send: destination; recv: source or kAnySource; calc: 0
  std::uint32_t tag = 0;   // send/recv: tag or kAnyTag; calc: 0
  std::uint64_t size = 0;  // send/recv: bytes; calc: nanoseconds
  std::uint8_t cpu = 0;
  std::uint8_t nic = 0;    // calc: always 0

  static Op send(std::uint64_t bytes, std::uint32_t to, std::uint32_t tag = 0, std::uint8_t cpu = 0,
                 std::uint8_t nic = 0) {
    return {OpKind::Send, to, tag, bytes, cpu, nic};
  }
  static Op recv(std::uint64_t bytes, std::uint32_t from, std::uint32_t tag = 0, std::uint8_t cpu = 0,
                 std::uint8_t nic = 0) {
    return {OpKind::Recv, from, tag, bytes, cpu, nic};
  }
  static Op calc(std::uint64_t nanoseconds, std::uint8_t cpu = 0) {
    return {OpKind::Calc, 0, 0, nanoseconds, cpu, 0};
  }
  bool operator==(const Op&) const = default;
};

}  // namespace collsim::goal
