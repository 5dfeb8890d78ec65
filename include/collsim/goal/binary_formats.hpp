#pragma once
// The two binary forms of a schedule.
//
// LogGOPSim binary (".bin"): the file txt2bin writes and LogGOPSim and ATLAHS's htsim
// backend read (layout in the README). Read and written byte-compatibly.
//
// collsim binary (".goalb"): the schedule's columns as they are in memory, each in a
// 64-byte-aligned section with its own XXH3 checksum, behind a versioned header. Loading
// is a bounds check, a checksum pass and one copy per column.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>

#include "collsim/goal/schedule.hpp"

namespace collsim::goal {

inline constexpr std::uint64_t kLogGOPSimMagic = 4223;

// Throw collsim::InputError ("file: byte N: ...") on a truncated or inconsistent file.
Schedule parse_loggopsim_binary(std::span<const std::byte> bytes, const std::string& file_name);
Schedule read_loggopsim_binary_file(const std::string& path);
void write_loggopsim_binary(const Schedule& schedule, std::ostream& out);
void write_loggopsim_binary_file(const Schedule& schedule, const std::string& path);

inline constexpr std::uint32_t kGoalbVersion = 1;
// "\x89GOALB\r\n": the high byte and the CR LF pair expose 7-bit and text-mode transfers.
inline constexpr unsigned char kGoalbMagic[8] = {0x89, 'G', 'O', 'A', 'L', 'B', '\r', '\n'};

Schedule parse_goalb(std::span<const std::byte> bytes, const std::string& file_name);
Schedule read_goalb_file(const std::string& path);
void write_goalb(const Schedule& schedule, std::ostream& out);
void write_goalb_file(const Schedule& schedule, const std::string& path);

}  // namespace collsim::goal
