#pragma once
// What this process holds and what the machine still has, from Linux's /proc: so that a run
// whose memory outgrows the machine stops with a clear message rather than being killed by
// the kernel half-way, and a run that clearly cannot fit is refused before it starts.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace collsim::common {

struct MemoryState {
  std::uint64_t total = 0;      // bytes of memory the machine has (MemTotal)
  std::uint64_t available = 0;  // what it could still give without swapping (MemAvailable)
  std::uint64_t resident = 0;   // this process's resident set
};

// A control group's memory limit and what its processes use of it, less the file cache the
// kernel would reclaim before it killed anything.
struct CgroupMemory {
  std::uint64_t limit = 0;
  std::uint64_t used = 0;
};
// From a cgroup v2 directory (memory.max, memory.current, memory.stat's inactive_file) or a
// v1 memory controller's (memory.limit_in_bytes, memory.usage_in_bytes, memory.stat's
// total_inactive_file). Nothing without a limit ("max", or the v1 "unlimited" value).
std::optional<CgroupMemory> read_cgroup_memory(const std::string& directory);

// Nothing where the files do not say (not Linux, or a format this does not know). Within a
// cgroup whose limit is below what the machine has (a Slurm job, a container), the limit is
// the memory and what is left under it the available.
std::optional<MemoryState> read_memory_state(const std::string& meminfo, const std::string& statm,
                                             const std::string& cgroup_directory = "");
// This process's: /proc/meminfo, /proc/self/statm and its memory cgroup (from
// /proc/self/cgroup). COLLSIM_MEMINFO names a file to read instead of /proc/meminfo, and then
// no cgroup is read (so that tests can play a machine short of memory).
std::optional<MemoryState> read_memory_state();

// What a run leaves the machine: a twentieth of its memory, at least 256 MiB (the kernel's
// own margin, and room for the results to be written).
std::uint64_t memory_reserve(std::uint64_t total);

// "12.3 GB", or "640 MB" below a gigabyte.
std::string memory_text(std::uint64_t bytes);

class MemoryGuard {
 public:
  using Reader = std::function<std::optional<MemoryState>()>;
  explicit MemoryGuard(Reader read = [] { return read_memory_state(); }) : read_(std::move(read)) {}
  // When the machine has less than the reserve left: what this process holds and what is
  // left, said for an error message. Nothing otherwise, or where memory cannot be read.
  std::optional<std::string> shortage() const;

 private:
  Reader read_;
};

}  // namespace collsim::common
