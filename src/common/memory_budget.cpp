#include "collsim/common/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <vector>

namespace collsim::common {

namespace {

std::optional<std::uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t n = 0;
  if (!(in >> n)) return std::nullopt;
  return n;
}

// A key's value in a memory.stat file ("inactive_file 123").
std::uint64_t stat_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value)
    if (name == key) return value;
  return 0;
}

// The directory of this process's memory cgroup, from /proc/self/cgroup: the v2 line
// ("0::/path") or the v1 memory controller's ("4:memory:/path"), where /sys/fs/cgroup shows
// it; in a container that sees only its own cgroup, the mount's root.
std::string own_cgroup_directory() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::vector<std::string> candidates;
  while (std::getline(in, line)) {
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) {
      candidates.push_back("/sys/fs/cgroup" + path);
      candidates.emplace_back("/sys/fs/cgroup");
    } else if (controllers == "memory") {
      candidates.push_back("/sys/fs/cgroup/memory" + path);
      candidates.emplace_back("/sys/fs/cgroup/memory");
    }
  }
  for (const std::string& dir : candidates)
    if (read_number(dir + "/memory.current") || read_number(dir + "/memory.usage_in_bytes")) return dir;
  return "";
}

}  // namespace

std::optional<CgroupMemory> read_cgroup_memory(const std::string& directory) {
  // v1's "no limit" is the largest page-aligned signed 64-bit value; anything near it is none.
  constexpr std::uint64_t kUnlimited = std::uint64_t{1} << 62;
  if (const std::optional<std::uint64_t> current = read_number(directory + "/memory.current")) {
    const std::optional<std::uint64_t> limit = read_number(directory + "/memory.max");  // "max": none
    if (!limit || *limit >= kUnlimited) return std::nullopt;
    const std::uint64_t cache = stat_value(directory + "/memory.stat", "inactive_file");
    return CgroupMemory{*limit, *current - std::min(*current, cache)};
  }
  const std::optional<std::uint64_t> usage = read_number(directory + "/memory.usage_in_bytes");
  const std::optional<std::uint64_t> limit = read_number(directory + "/memory.limit_in_bytes");
  if (!usage || !limit || *limit >= kUnlimited) return std::nullopt;
  const std::uint64_t cache = stat_value(directory + "/memory.stat", "total_inactive_file");
  return CgroupMemory{*limit, *usage - std::min(*usage, cache)};
}

std::optional<MemoryState> read_memory_state(const std::string& meminfo, const std::string& statm,
                                             const std::string& cgroup_directory) {
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
  MemoryState m{*total, *available, resident * static_cast<std::uint64_t>(page > 0 ? page : 4096)};
  if (cgroup_directory.empty()) return m;
  if (const std::optional<CgroupMemory> group = read_cgroup_memory(cgroup_directory); group && group->limit < m.total) {
    m.total = group->limit;
    m.available = std::min(m.available, group->limit - std::min(group->limit, group->used));
  }
  return m;
}

std::optional<MemoryState> read_memory_state() {
  const char* meminfo = std::getenv("COLLSIM_MEMINFO");
  if (meminfo != nullptr && *meminfo != '\0') return read_memory_state(meminfo, "/proc/self/statm");
  static const std::string cgroup = own_cgroup_directory();  // it does not move during a run
  return read_memory_state("/proc/meminfo", "/proc/self/statm", cgroup);
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
