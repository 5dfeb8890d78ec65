#include "collsim/logging/logging.hpp"

#include <spdlog/details/log_msg.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "collsim/common/input_error.hpp"

namespace collsim::logging {

namespace {

using Level = spdlog::level::level_enum;

constexpr std::array<std::pair<std::string_view, Level>, 6> kLevels{{
    {"trace", Level::trace},
    {"debug", Level::debug},
    {"info", Level::info},
    {"warn", Level::warn},
    {"error", Level::err},
    {"off", Level::off},
}};

std::string_view level_name(Level level) {
  for (const auto& [name, value] : kLevels)
    if (value == level) return name;
  return level == Level::critical ? "critical" : "?";
}

// %* prints our level names ("warn", "error"), the ones --log-level takes, where spdlog's %l
// would print "warning" and "critical".
class LevelFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*tm_time*/, spdlog::memory_buf_t& dest) override {
    const std::string_view name = level_name(msg.level);
    dest.append(name.data(), name.data() + name.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<LevelFlag>(); }
};

std::unique_ptr<spdlog::formatter> line_format(const Config& config) {
  std::string pattern = "[%Y-%m-%d %H:%M:%S.%e] [%*] [%n] ";
  if (config.ranks > 1) pattern += "[rank " + std::to_string(config.rank) + "] ";
  pattern += "%v";
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelFlag>('*').set_pattern(pattern);
  return formatter;
}

struct Hub {
  std::mutex mutex;
  Config config;
  Level level = Level::warn;
  std::vector<spdlog::sink_ptr> sinks;
  spdlog::sink_ptr file_sink;  // also in `sinks`; null without a file
  std::map<std::string, std::shared_ptr<spdlog::logger>, std::less<>> loggers;

  Hub() {
    auto err = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    err->set_formatter(line_format(config));
    sinks.push_back(std::move(err));
  }

  void apply(spdlog::logger& l) const {
    l.sinks() = sinks;
    l.set_level(level);
    // Logging is never on a hot path, so every line is flushed: a rank that is aborted by
    // MPI_Abort or killed by the scheduler still leaves its last lines in the file.
    l.flush_on(Level::trace);
  }
};

Hub& hub() {
  static Hub h;
  return h;
}

}  // namespace

Level parse_level(std::string_view name) {
  for (const auto& [known, value] : kLevels)
    if (known == name) return value;
  std::string names;
  for (const auto& [known, value] : kLevels) names += (names.empty() ? "" : ", ") + std::string(known);
  throw InputError::in_file("--log-level", "unknown log level '" + std::string(name) + "' (expected one of: " + names + ")");
}

std::string file_for_rank(const Config& config) {
  if (config.file.empty() || config.ranks <= 1) return config.file;
  return config.file + ".rank" + std::to_string(config.rank);
}

void configure(const Config& config) {
  const Level level = parse_level(config.level);
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_sink_mt>()};
  spdlog::sink_ptr file_sink;
  if (!config.file.empty()) {
    const std::string path = file_for_rank(config);
    try {
      file_sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
    } catch (const spdlog::spdlog_ex& e) {
      throw InputError::in_file(path, std::string("cannot open the log file: ") + e.what());
    }
    sinks.push_back(file_sink);
  }
  for (const spdlog::sink_ptr& s : sinks) s->set_formatter(line_format(config));

  Hub& h = hub();
  const std::lock_guard lock(h.mutex);
  h.config = config;
  h.level = level;
  h.sinks = std::move(sinks);
  h.file_sink = std::move(file_sink);
  for (auto& [name, l] : h.loggers) h.apply(*l);
}

Config current_config() {
  Hub& h = hub();
  const std::lock_guard lock(h.mutex);
  return h.config;
}

spdlog::logger& logger(std::string_view module) {
  Hub& h = hub();
  const std::lock_guard lock(h.mutex);
  auto it = h.loggers.find(module);
  if (it == h.loggers.end()) {
    auto l = std::make_shared<spdlog::logger>(std::string(module));
    h.apply(*l);
    it = h.loggers.emplace(std::string(module), std::move(l)).first;
  }
  return *it->second;
}

void note_in_file(std::string_view module, Level level, std::string_view message) {
  Hub& h = hub();
  const std::lock_guard lock(h.mutex);
  if (!h.file_sink || level < h.level) return;
  const spdlog::details::log_msg msg(spdlog::string_view_t(module.data(), module.size()), level,
                                     spdlog::string_view_t(message.data(), message.size()));
  h.file_sink->log(msg);
  h.file_sink->flush();
}

}  // namespace collsim::logging
