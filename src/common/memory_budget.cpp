#include "collsim/common/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace collsim::common {

std::optional<MemoryState> read_memory_state(const std::string& meminfo, const std::string& statm) {
  std::ifstream info(meminfo);
  std::optional<std::uint64_t> total, available;
  std::string line;
  while (std::getline(info, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    std::uint64_t kib = 0;
    if (!(fields >> key >> kib >> unit) || unit != "kB") continue;
    if (key == "MemTotal:") total = kib * 1024;
    if (key == "MemAvailable:") available = kib * 1024;
  }
  std::ifstream pages(statm);
  std::uint64_t size = 0, resident = 0;
  if (!total || !available || !(pages >> size >> resident)) return std::nullopt;
  const long page = sysconf(_SC_PAGESIZE);
  return MemoryState{*total, *available, resident * static_cast<std::uint64_t>(page > 0 ? page : 4096)};
}

std::optional<MemoryState> read_memory_state() {
  const char* meminfo = std::getenv("COLLSIM_MEMINFO");
  return read_memory_state(meminfo != nullptr && *meminfo != '\0' ? meminfo : "/proc/meminfo", "/proc/self/statm");
}

std::uint64_t memory_reserve(std::uint64_t total) { return std::max<std::uint64_t>(total / 20, 256ull << 20); }

std::string memory_text(std::uint64_t bytes) {
  std::ostringstream s;
  if (bytes < 1'000'000'000)
    s << (bytes + 500'000) / 1'000'000 << " MB";
  else
    s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / 1e9 << " GB";
  return s.str();
}

std::optional<std::string> MemoryGuard::shortage() const {
  const std::optional<MemoryState> m = read_();
  if (!m || m->available >= memory_reserve(m->total)) return std::nullopt;
  return "this process holds " + memory_text(m->resident) + " and the machine has " + memory_text(m->available) +
         " of its " + memory_text(m->total) + " left (a run stops below " + memory_text(memory_reserve(m->total)) +
         ", before the kernel would kill it)";
}

}  // namespace collsim::common
