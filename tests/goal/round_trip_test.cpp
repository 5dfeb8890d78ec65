// Every form round-trips: text -> text, text -> LogGOPSim binary, text -> .goalb, and
// the writers' output is what a reader of that format expects.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "collsim/goal/binary_formats.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "goal_test_util.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::goal {
namespace {

// Every feature at once: wildcards, irequires, cpu and nic, a dependency on a later op,
// a duplicate edge, an empty rank, and an unlabelled op.
const char* const kEverything =
    "num_ranks 4\n"
    "rank 0 {\n"
    "a: calc 5000 cpu 2\n"
    "b: send 1048576b to 1 tag 7 cpu 1 nic 3\n"
    "c: calc 200\n"
    "b requires a\n"
    "b requires a\n"
    "c irequires b\n"
    "d: recv 8b from 3 tag 4294967294\n"
    "a requires d\n"
    "a requires d\n"
    "send 1b to 3\n"
    "}\n"
    "rank 1 {\n"
    "x: recv 1048576b from -1 tag -1 nic 1\n"
    "y: send 9223372036854775807b to 1\n"
    "y irequires x\n"
    "}\n"
    "rank 2 {\n"
    "}\n"
    "rank 3 {\n"
    "send 8b to 0 tag 4294967294\n"
    "recv 1b from 0\n"
    "}\n";

std::vector<Schedule> inputs() {
  std::vector<Schedule> v;
  for (const char* name : testing::kExamples) v.push_back(read_goal_text_file(testing::example(name)));
  v.push_back(testing::parse(kEverything));
  return v;
}

TEST(RoundTrip, TextWriterParsesBackIdentical) {
  for (const Schedule& s : inputs()) {
    std::ostringstream out;
    write_goal_text(s, out);
    EXPECT_EQ(parse_goal_text(out.str(), "rewritten.goal"), s) << out.str();
  }
}

TEST(RoundTrip, LogGOPSimBinary) {
  for (const Schedule& s : inputs()) {
    std::ostringstream out;
    write_loggopsim_binary(s, out);
    const std::string b = out.str();
    EXPECT_EQ(parse_loggopsim_binary(std::as_bytes(std::span(b.data(), b.size())), "x.bin"), s);
  }
}

TEST(RoundTrip, CollsimBinary) {
  for (const Schedule& s : inputs()) {
    std::ostringstream out;
    write_goalb(s, out);
    const std::string b = out.str();
    EXPECT_EQ(parse_goalb(std::as_bytes(std::span(b.data(), b.size())), "x.goalb"), s);
  }
}

TEST(RoundTrip, ThroughFilesInEveryFormat) {
  const Schedule s = testing::parse(kEverything);
  const test_support::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  for (const ScheduleFormat f : {ScheduleFormat::Text, ScheduleFormat::LogGOPSimBinary, ScheduleFormat::CollsimBinary}) {
    const std::string path = (dir / ("s." + std::string(to_string(f)))).string();
    save_schedule(s, path, f);
    ScheduleFormat detected{};
    EXPECT_EQ(load_schedule(path, &detected), s);
    EXPECT_EQ(detected, f);
  }
}

// Resident memory (kB) of the mapping that holds `p`, from /proc/self/smaps.
std::uint64_t resident_kb_of_mapping(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) return std::stoull(line.substr(4));
  }
  return 0;
}

// Loading a mapped .goalb reads it once, its checksums and its check in one pass, and leaves
// it mapped; a simulator that has copied its ops gives their pages back, and reading them
// again reads the file, so the schedule is unchanged.
TEST(Goalb, DroppedPagesOfAMappedFileComeBackFromTheFile) {
  std::ostringstream text;
  const int ranks = 64, steps = 400;
  text << "num_ranks " << ranks << "\n";
  for (int r = 0; r < ranks; ++r) {
    text << "rank " << r << " {\n";
    for (int i = 0; i < steps; ++i) {
      text << "s" << i << ": send " << 1000 + i << "b to " << (r + 1) % ranks << " tag " << i << "\n";
      text << "r" << i << ": recv " << 1000 + i << "b from " << (r + ranks - 1) % ranks << " tag " << i << "\n";
      if (i > 0) text << "s" << i << " requires r" << i - 1 << "\n";
    }
    text << "}\n";
  }
  const Schedule in_memory = testing::parse(text.str());
  const test_support::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  const std::string path = (dir / "ring.goalb").string();
  save_schedule(in_memory, path, ScheduleFormat::CollsimBinary);
  const Schedule mapped = load_schedule(path);
  // 51,200 ops: their size column alone is 400 kB, all of it read by the load.
  EXPECT_EQ(mapped, in_memory);
  const std::uint64_t before = resident_kb_of_mapping(mapped.columns().size.data());
  mapped.drop_resident(0, ranks);
  const std::uint64_t after = resident_kb_of_mapping(mapped.columns().size.data());
  EXPECT_GT(before, 400u);
  EXPECT_LT(after, before - 400);
  EXPECT_EQ(mapped, in_memory);
  in_memory.drop_resident(0, ranks);  // in memory: nothing to give back
  EXPECT_EQ(mapped, in_memory);
}

TEST(TextWriter, GoldenOutput) {
  // What the writer must produce for kEverything, written out by hand: ops in order,
  // labels l<index> only on ops that take part in a dependency, each dependency line
  // right after the later of its two ops, zero-valued optional fields left out.
  const char* const expected =
      "num_ranks 4\n"
      "\n"
      "rank 0 {\n"
      "l0: calc 5000 cpu 2\n"
      "l1: send 1048576b to 1 tag 7 cpu 1 nic 3\n"
      "l1 requires l0\n"
      "l1 requires l0\n"
      "l2: calc 200\n"
      "l2 irequires l1\n"
      "l3: recv 8b from 3 tag 4294967294\n"
      "l0 requires l3\n"
      "l0 requires l3\n"
      "send 1b to 3\n"
      "}\n"
      "\n"
      "rank 1 {\n"
      "l0: recv 1048576b from -1 tag -1 nic 1\n"
      "l1: send 9223372036854775807b to 1\n"
      "l1 irequires l0\n"
      "}\n"
      "\n"
      "rank 2 {\n"
      "}\n"
      "\n"
      "rank 3 {\n"
      "send 8b to 0 tag 4294967294\n"
      "recv 1b from 0\n"
      "}\n";
  std::ostringstream out;
  write_goal_text(testing::parse(kEverything), out);
  EXPECT_EQ(out.str(), expected);
}

TEST(FormatDetection, ByExtensionAndName) {
  EXPECT_EQ(format_from_extension("a/b.goal"), ScheduleFormat::Text);
  EXPECT_EQ(format_from_extension("x.bin"), ScheduleFormat::LogGOPSimBinary);
  EXPECT_EQ(format_from_extension("x.goalb"), ScheduleFormat::CollsimBinary);
  EXPECT_EQ(format_from_extension("x.goal.d/file"), std::nullopt);
  EXPECT_EQ(format_from_extension("noext"), std::nullopt);
  EXPECT_EQ(format_from_name("loggopsim"), ScheduleFormat::LogGOPSimBinary);
  EXPECT_EQ(format_from_name("goalb"), ScheduleFormat::CollsimBinary);
  EXPECT_EQ(format_from_name("text"), ScheduleFormat::Text);
  EXPECT_EQ(format_from_name("xml"), std::nullopt);
}

}  // namespace
}  // namespace collsim::goal
