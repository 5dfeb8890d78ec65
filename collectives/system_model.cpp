#include "collsim/collectives/system_model.hpp"

#include <cctype>
#include <string>

namespace collsim::collectives {

std::string_view to_string(GpuArch a) {
  switch (a) {
    case GpuArch::Volta: return "volta";
    case GpuArch::Ampere: return "ampere";
    case GpuArch::Hopper: return "hopper";
    case GpuArch::Blackwell: return "blackwell";
  }
  return "?";
}

std::optional<GpuArch> gpu_arch_from_name(std::string_view name) {
  std::string key;
  for (char ch : name) key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  for (GpuArch a : {GpuArch::Volta, GpuArch::Ampere, GpuArch::Hopper, GpuArch::Blackwell})
    if (to_string(a) == key) return a;
  if (key == "sm70" || key == "v100") return GpuArch::Volta;
  if (key == "sm80" || key == "a100") return GpuArch::Ampere;
  if (key == "sm90" || key == "h100") return GpuArch::Hopper;
  if (key == "sm100" || key == "b200" || key == "gb200") return GpuArch::Blackwell;
  return std::nullopt;
}

}  // namespace collsim::collectives
