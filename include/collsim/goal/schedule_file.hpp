#pragma once
// Reading and writing a schedule in any of its three forms.

#include <optional>
#include <string>
#include <string_view>

#include "collsim/goal/schedule.hpp"

namespace collsim::goal {

enum class ScheduleFormat {
  Text,             // GOAL text, ".goal"
  LogGOPSimBinary,  // txt2bin's output, ".bin"
  CollsimBinary,    // ours, ".goalb"
};

std::string_view to_string(ScheduleFormat format);
// "text"/"goal", "loggopsim"/"bin", "goalb"/"collsim".
std::optional<ScheduleFormat> format_from_name(std::string_view name);
std::optional<ScheduleFormat> format_from_extension(const std::string& path);

// Recognises the binary forms by their magic numbers; anything else is read as text.
// Throws collsim::InputError.
ScheduleFormat detect_format(const std::string& path);
Schedule load_schedule(const std::string& path, ScheduleFormat* detected = nullptr);
void save_schedule(const Schedule& schedule, const std::string& path, ScheduleFormat format);

}  // namespace collsim::goal
