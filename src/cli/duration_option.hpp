#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/partition.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::cli {

// Values given on the command line, parsed once; a usage error names the option.

// A duration ("1.5us").
inline SimTime parse_duration_option(const std::string& option, const std::string& text) {
  std::string error;
  const auto t = parse_duration(text, &error);
  if (!t) throw CLI::ValidationError(option, error);
  if (*t < SimTime::zero()) throw CLI::ValidationError(option, "must not be negative");
  return *t;
}

// A latency given in whole nanoseconds (--launch-ns), where a negative value (-1) leaves the
// default in place.
inline std::optional<SimTime> latency_ns_option(std::int64_t ns) {
  if (ns < 0) return std::nullopt;
  return SimTime::ns(ns);
}

// A CLI11 check for an unsigned option: CLI11 reads "-1" into an unsigned as its wrap-around
// (18446744073709551615 for a seed) and clamps a number too large for the type; both are
// refused instead. `max` is the type's largest value; `min`, the least that means something.
inline CLI::Validator whole_number(std::uint64_t max, std::uint64_t min = 0) {
  return CLI::Validator(
      [max, min](const std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "expected a whole number, not '" + text + "'";
        std::uint64_t value = 0;
        for (char c : text) {
          const auto digit = static_cast<std::uint64_t>(c - '0');
          if (value > (max - digit) / 10) return text + " is larger than " + std::to_string(max);
          value = value * 10 + digit;
        }
        if (value < min) return "must be at least " + std::to_string(min) + ", not " + text;
        return "";
      },
      "WHOLE");
}

// A CLI11 check for a positive, finite real option: CLI::Range lets "nan" through (no
// comparison with it is true) and takes "inf" as a number.
inline CLI::Validator positive_real() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        double value = 0;
        try {
          value = std::stod(text);
        } catch (const std::exception&) {
          return "expected a number, not '" + text + "'";
        }
        if (!std::isfinite(value) || value <= 0) return "must be a positive number, not " + text;
        return "";
      },
      "POSITIVE");
}

// "name=value" of a --set style option, split at the first '='.
inline std::pair<std::string, std::string> parse_assignment_option(const std::string& option, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw CLI::ValidationError(option, "expected name=value, found '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

inline pdes::PartitionMethod parse_partition_option(const std::string& text) {
  const auto m = pdes::partition_method_from_name(text);
  if (!m) throw CLI::ValidationError("--partition", "unknown method '" + text + "' (block, round-robin, random, metis)");
  return *m;
}

// The help of every command's --queue.
inline constexpr const char* kQueueOptionHelp = "Event queue: wheel (timing wheel), radix (radix heap), heap (4-ary) or calendar";

inline pdes::QueueKind parse_queue_option(const std::string& text) {
  const auto q = pdes::queue_kind_from_name(text);
  if (!q) throw CLI::ValidationError("--queue", "unknown queue '" + text + "' (wheel, radix, heap, calendar)");
  return *q;
}

}  // namespace collsim::cli
