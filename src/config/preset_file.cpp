#include "collsim/config/preset_file.hpp"

#include <algorithm>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/logging/logging.hpp"

namespace collsim::config {

std::filesystem::path resolve_preset(const std::string& name_or_path, const std::filesystem::path& dir,
                                     std::string_view kind) {
  if (std::filesystem::exists(name_or_path)) return name_or_path;
  const std::filesystem::path preset = dir / (name_or_path + ".yaml");
  if (name_or_path.find('/') == std::string::npos && std::filesystem::exists(preset)) {
    logging::logger("config").debug("{} preset '{}' is {}", kind, name_or_path, preset.string());
    return preset;
  }
  std::vector<std::string> names;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());  // directories list in no particular order
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  throw InputError::in_file(name_or_path, "no such file, and not a " + std::string(kind) + " preset (" +
                                              (known.empty() ? "none found in " + dir.string() : known) + ")");
}

}  // namespace collsim::config
