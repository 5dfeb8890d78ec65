#include "collsim/goal/schedule_file.hpp"

#include <cstring>

#include "collsim/common/input_error.hpp"
#include "collsim/common/mapped_file.hpp"
#include "collsim/goal/binary_formats.hpp"
#include "collsim/goal/text_format.hpp"
#include "collsim/logging/logging.hpp"

namespace collsim::goal {

std::string_view to_string(ScheduleFormat format) {
  switch (format) {
    case ScheduleFormat::Text: return "text";
    case ScheduleFormat::LogGOPSimBinary: return "loggopsim";
    case ScheduleFormat::CollsimBinary: return "goalb";
  }
  return "unknown";
}

std::optional<ScheduleFormat> format_from_name(std::string_view name) {
  if (name == "text" || name == "goal") return ScheduleFormat::Text;
  if (name == "loggopsim" || name == "bin") return ScheduleFormat::LogGOPSimBinary;
  if (name == "goalb" || name == "collsim") return ScheduleFormat::CollsimBinary;
  return std::nullopt;
}

std::optional<ScheduleFormat> format_from_extension(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return std::nullopt;
  const std::string_view ext = std::string_view(path).substr(dot + 1);
  if (ext == "goal" || ext == "txt") return ScheduleFormat::Text;
  if (ext == "bin") return ScheduleFormat::LogGOPSimBinary;
  if (ext == "goalb") return ScheduleFormat::CollsimBinary;
  return std::nullopt;
}

namespace {
ScheduleFormat detect(std::span<const std::byte> bytes) {
  if (bytes.size() >= sizeof kGoalbMagic && std::memcmp(bytes.data(), kGoalbMagic, sizeof kGoalbMagic) == 0)
    return ScheduleFormat::CollsimBinary;
  std::uint64_t magic = 0;
  if (bytes.size() >= sizeof magic) std::memcpy(&magic, bytes.data(), sizeof magic);
  if (magic == kLogGOPSimMagic) return ScheduleFormat::LogGOPSimBinary;
  return ScheduleFormat::Text;
}
}  // namespace

ScheduleFormat detect_format(const std::string& path) { return detect(MappedFile(path).bytes()); }

Schedule load_schedule(const std::string& path, ScheduleFormat* detected) {
  const ScheduleFormat format = detect_format(path);
  if (detected != nullptr) *detected = format;
  Schedule schedule = [&] {
    switch (format) {
      case ScheduleFormat::CollsimBinary: return read_goalb_file(path);
      case ScheduleFormat::LogGOPSimBinary: return read_loggopsim_binary_file(path);
      case ScheduleFormat::Text: break;
    }
    return read_goal_text_file(path);
  }();
  logging::logger("goal").debug("read {} ({}): {} rank(s), {} op(s)", path, to_string(format), schedule.num_ranks(),
                                schedule.num_ops());
  return schedule;
}

void save_schedule(const Schedule& schedule, const std::string& path, ScheduleFormat format) {
  switch (format) {
    case ScheduleFormat::Text: write_goal_text_file(schedule, path); return;
    case ScheduleFormat::LogGOPSimBinary: write_loggopsim_binary_file(schedule, path); return;
    case ScheduleFormat::CollsimBinary: write_goalb_file(schedule, path); return;
  }
}

}  // namespace collsim::goal
