#include "collsim/common/memory_budget.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <utility>
#include <vector>

#include "support/scratch_dir.hpp"

namespace collsim::common {
namespace {

class MemoryFiles : public ::testing::Test {
 protected:
  // A cgroup directory `name` holding the given files; its path.
  std::string cgroup(const std::string& name, std::initializer_list<std::pair<const char*, const char*>> files) {
    std::filesystem::create_directories(dir_ / name);
    for (const auto& [file, text] : files) write(name + "/" + file, text);
    return (dir_ / name).string();
  }
  // The machine of the cgroup tests: 24 GB, 20 GB available.
  std::optional<MemoryState> read_within(const std::string& group) {
    return read_memory_state(write("meminfo", "MemTotal: 24000000 kB\nMemAvailable: 20000000 kB\n"),
                             write("statm", "1000 500\n"), group);
  }
  std::string write(const std::string& name, const std::string& text) { return scratch_.write(name, text).string(); }
  test_support::ScratchDir scratch_;
  const std::filesystem::path& dir_ = scratch_.path();
};

TEST_F(MemoryFiles, ReadsTotalAvailableAndResidentPages) {
  const std::string info = write("meminfo",
                                 "MemTotal:       24000000 kB\n"
                                 "MemFree:         1000000 kB\n"
                                 "MemAvailable:    3000000 kB\n"
                                 "HugePages_Total:       0\n");
  const std::string statm = write("statm", "500000 250000 1000 10 0 240000 0\n");
  const std::optional<MemoryState> m = read_memory_state(info, statm);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->total, 24000000ull * 1024);
  EXPECT_EQ(m->available, 3000000ull * 1024);
  EXPECT_EQ(m->resident, 250000ull * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)));
}

TEST_F(MemoryFiles, SaysNothingWhereTheFilesDoNotSay) {
  const std::string statm = write("statm", "500000 250000\n");
  EXPECT_FALSE(read_memory_state(write("no_available", "MemTotal: 1000 kB\n"), statm).has_value());
  EXPECT_FALSE(read_memory_state(write("garbled", "MemTotal: lots\nMemAvailable: 10 kB\n"), statm).has_value());
  EXPECT_FALSE(read_memory_state((dir_ / "missing").string(), statm).has_value());
  const std::string info = write("meminfo", "MemTotal: 1000 kB\nMemAvailable: 10 kB\n");
  EXPECT_FALSE(read_memory_state(info, write("empty_statm", "")).has_value());
}

TEST_F(MemoryFiles, ACgroupLimitBelowTheMachinesIsItsMemory) {
  struct Case {
    std::string group;
    std::uint64_t total, available;
  };
  const Case cases[] = {
      // cgroup v2: 4 GB limit, 3.5 GB charged of which 0.5 GB inactive file cache.
      {cgroup("v2", {{"memory.max", "4000000000\n"},
                     {"memory.current", "3500000000\n"},
                     {"memory.stat", "anon 3000000000\nfile 500000000\ninactive_file 500000000\n"}}),
       4'000'000'000u, 1'000'000'000u},
      // cgroup v1: the memory controller's files; total_inactive_file counts the hierarchy.
      {cgroup("v1", {{"memory.limit_in_bytes", "8000000000\n"},
                     {"memory.usage_in_bytes", "7000000000\n"},
                     {"memory.stat", "cache 10\ninactive_file 1\ntotal_inactive_file 2000000000\n"}}),
       8'000'000'000u, 3'000'000'000u}};
  for (const Case& c : cases) {
    const std::optional<MemoryState> m = read_within(c.group);
    ASSERT_TRUE(m.has_value()) << c.group;
    EXPECT_EQ(m->total, c.total) << c.group;
    EXPECT_EQ(m->available, c.available) << c.group;
  }
}

TEST_F(MemoryFiles, ACgroupWithoutALimitChangesNothing) {
  const std::vector<std::string> groups{
      cgroup("v2", {{"memory.max", "max\n"}, {"memory.current", "3500000000\n"}}),
      cgroup("v1", {{"memory.limit_in_bytes", "9223372036854771712\n"}, {"memory.usage_in_bytes", "7000000000\n"}}),
      cgroup("large", {{"memory.max", "64000000000\n"}, {"memory.current", "1000000000\n"}}),  // above the machine's
      (dir_ / "absent").string()};
  for (const std::string& group : groups) {
    const std::optional<MemoryState> m = read_within(group);
    ASSERT_TRUE(m.has_value()) << group;
    EXPECT_EQ(m->total, 24000000ull * 1024) << group;
    EXPECT_EQ(m->available, 20000000ull * 1024) << group;
  }
  EXPECT_FALSE(read_cgroup_memory(groups[0]).has_value());
  EXPECT_FALSE(read_cgroup_memory(groups[1]).has_value());
}

TEST(MemoryBudget, SaysGigabytesOrBelowOneMegabytes) {
  EXPECT_EQ(memory_text(12'345'678'901ull), "12.3 GB");
  EXPECT_EQ(memory_text(640'400'000ull), "640 MB");
  EXPECT_EQ(memory_text(0), "0 MB");
}

TEST(MemoryBudget, ReservesATwentiethButAtLeast256MiB) {
  EXPECT_EQ(memory_reserve(24ull << 30), (24ull << 30) / 20);
  EXPECT_EQ(memory_reserve(2ull << 30), 256ull << 20);
}

TEST(MemoryBudget, TheGuardSpeaksOnlyBelowTheReserve) {
  MemoryState m{20'000'000'000ull, 1'000'000'001ull, 17'500'000'000ull};  // reserve: 1.0 GB
  const MemoryGuard guard([&m] { return std::optional<MemoryState>(m); });
  EXPECT_FALSE(guard.shortage().has_value());
  m.available = 900'000'000;
  const std::optional<std::string> said = guard.shortage();
  ASSERT_TRUE(said.has_value());
  EXPECT_EQ(*said,
            "this process holds 17.5 GB and the machine has 900 MB of its 20.0 GB left (a run stops below 1.0 GB, "
            "before the kernel would kill it)");
  const MemoryGuard blind([] { return std::optional<MemoryState>(); });
  EXPECT_FALSE(blind.shortage().has_value());
}

TEST(MemoryBudget, ThisMachineIsReadable) {
  const std::optional<MemoryState> m = read_memory_state();
  if (!std::filesystem::exists("/proc/meminfo")) GTEST_SKIP() << "no /proc here";
  ASSERT_TRUE(m.has_value());
  EXPECT_GT(m->total, m->resident);
  EXPECT_GT(m->resident, 0u);
  EXPECT_LE(m->available, m->total);
}

}  // namespace
}  // namespace collsim::common
