#pragma once
// Per-module loggers ("pdes", "net", "topo", ...) that share one configuration: a level, stderr,
// an optional file and, under MPI, a "[rank N] " prefix. Logging is process-wide by nature (one
// stderr, one log file per process), so this is the one global that collsim keeps; no simulated
// result ever depends on it. Lines go to stderr, never stdout: stdout carries commands' JSON.
//
// Never log from per-event code: use COLLSIM_TRACE_LOG there (below), which costs nothing in
// release builds unless COLLSIM_TRACE_LOGGING is defined (CMake option of the same name).

#include <spdlog/logger.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace collsim::logging {

struct Config {
  std::string level = "warn";  // trace|debug|info|warn|error|off
  // Empty: stderr only. With more than one rank each rank appends to FILE.rank<N> (never one
  // shared file: appends from several processes may interleave inside a line on network file
  // systems). Lines go to stderr as well as to the file.
  std::string file;
  std::uint32_t rank = 0;
  std::uint32_t ranks = 1;  // more than 1: lines carry "[rank N] " and files get ".rank<N>"
};

// The level a name stands for; InputError naming the accepted names otherwise.
spdlog::level::level_enum parse_level(std::string_view name);

// Applies `config` to every logger, existing and future. Call it before starting threads that
// log: loggers handed out earlier get their sinks replaced. Throws InputError for an unknown level
// or a log file that cannot be opened; the previous configuration then stays in force.
void configure(const Config& config);

// The configuration last applied (the defaults before any configure()).
Config current_config();

// The file one rank writes to, or "" without a file.
std::string file_for_rank(const Config& config);

// The logger of `module`, created on first use with the configured sinks and level.
spdlog::logger& logger(std::string_view module);

// Writes `message` to the log file only (nothing without a file): for messages that the caller
// already shows on stderr in their own format, such as "collsim: error: ...".
void note_in_file(std::string_view module, spdlog::level::level_enum level, std::string_view message);

#if defined(COLLSIM_TRACE_LOGGING) || !defined(NDEBUG)
inline constexpr bool kTraceLogging = true;
#else
inline constexpr bool kTraceLogging = false;
#endif

}  // namespace collsim::logging

// A trace line next to a hot path. In release builds without COLLSIM_TRACE_LOGGING the branch is
// discarded at compile time (no call, no level check), yet its arguments still count as used.
#define COLLSIM_TRACE_LOG(module, ...)                                     \
  do {                                                                      \
    if constexpr (::collsim::logging::kTraceLogging)                        \
      ::collsim::logging::logger(module).trace(__VA_ARGS__);                \
  } while (false)
