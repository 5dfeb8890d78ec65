// The binary readers: the LogGOPSim layout byte by byte (derived by hand from txt2bin's
// serialiser), and a clear error, never a crash, for every kind of damaged file.

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <utility>

#include "collsim/goal/binary_formats.hpp"
#include "goal_test_util.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::goal {
namespace {

class Bytes {
 public:
  template <typename T>
  Bytes& put(T v) {
    const std::size_t at = b_.size();
    b_.resize(at + sizeof v);
    std::memcpy(b_.data() + at, &v, sizeof v);
    return *this;
  }
  const std::string& str() const { return b_; }

 private:
  std::string b_;
};

std::span<const std::byte> span_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

const char* const kTiny =
    "num_ranks 2\n"
    "rank 0 {\n"
    "a: calc 100 cpu 1\n"
    "b: send 16b to 1 tag 5\n"
    "b requires a\n"
    "}\n"
    "rank 1 {\n"
    "c: recv 16b from -1 tag -1 nic 2\n"
    "}\n";

// txt2bin's file for kTiny. Offsets in the jump table count from the byte after the magic:
// header 4+1+1 and jump table 2*16 put rank 0 at 38; rank 0 holds 8 + 1 root*4 + 2 nodes*39
// + 1 dependent*4 = 94 bytes (to 132); rank 1 holds 8 + 4 + 39 = 51 bytes (to 183).
std::string tiny_loggopsim_bytes() {
  Bytes b;
  b.put<std::uint64_t>(4223).put<std::uint32_t>(2).put<std::uint8_t>(1).put<std::uint8_t>(2);
  b.put<std::uint64_t>(38).put<std::uint64_t>(132).put<std::uint64_t>(132).put<std::uint64_t>(183);
  // rank 0: 2 nodes, 1 root (node 0)
  b.put<std::uint32_t>(2).put<std::uint32_t>(1).put<std::uint32_t>(0);
  // node a: 0 prerequisites, calc, peer 0, 100 ns, tag 0, cpu 1, nic 0, 1 finish-dependent at 0, 0 start at 1
  b.put<std::uint32_t>(0).put<std::uint8_t>(3).put<std::uint32_t>(0).put<std::uint64_t>(100).put<std::uint32_t>(0);
  b.put<std::uint8_t>(1).put<std::uint8_t>(0).put<std::uint32_t>(1).put<std::uint32_t>(0).put<std::uint32_t>(0).put<std::uint32_t>(1);
  // node b: 1 prerequisite, send to 1, 16 B, tag 5, cpu 0, nic 0, no dependents (index stays 1)
  b.put<std::uint32_t>(1).put<std::uint8_t>(1).put<std::uint32_t>(1).put<std::uint64_t>(16).put<std::uint32_t>(5);
  b.put<std::uint8_t>(0).put<std::uint8_t>(0).put<std::uint32_t>(0).put<std::uint32_t>(1).put<std::uint32_t>(0).put<std::uint32_t>(1);
  // dependents of rank 0: node a -> node b
  b.put<std::uint32_t>(1);
  // rank 1: 1 node, 1 root
  b.put<std::uint32_t>(1).put<std::uint32_t>(1).put<std::uint32_t>(0);
  b.put<std::uint32_t>(0).put<std::uint8_t>(2).put<std::uint32_t>(0xFFFFFFFFu).put<std::uint64_t>(16).put<std::uint32_t>(0xFFFFFFFFu);
  b.put<std::uint8_t>(0).put<std::uint8_t>(2).put<std::uint32_t>(0).put<std::uint32_t>(0).put<std::uint32_t>(0).put<std::uint32_t>(0);
  return b.str();
}

TEST(LogGOPSimBinary, WriterMatchesTxt2binLayout) {
  std::ostringstream out;
  write_loggopsim_binary(testing::parse(kTiny), out);
  const std::string expected = tiny_loggopsim_bytes();
  ASSERT_EQ(expected.size(), 8u + 183u);
  EXPECT_EQ(out.str(), expected);
}

TEST(LogGOPSimBinary, ReaderUnderstandsTxt2binLayout) {
  const std::string b = tiny_loggopsim_bytes();
  EXPECT_EQ(parse_loggopsim_binary(span_of(b), "tiny.bin"), testing::parse(kTiny));
}

void expect_binary_error(const std::string& bytes, const std::string& needle) {
  try {
    parse_loggopsim_binary(span_of(bytes), "bad.bin");
    ADD_FAILURE() << "accepted a damaged file; expected: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("bad.bin: byte ", 0), 0u) << e.what();
  }
}

std::string patched(std::string b, std::size_t at, std::uint32_t v) {
  std::memcpy(b.data() + at, &v, sizeof v);
  return b;
}

// Absolute offsets in tiny_loggopsim_bytes().
constexpr std::size_t kRank0 = 46, kNodeA = kRank0 + 12, kNodeB = kNodeA + 39, kAppendix0 = kNodeB + 39;

TEST(LogGOPSimBinary, TruncatedAnywhere) {
  const std::string b = tiny_loggopsim_bytes();
  for (std::size_t cut = 0; cut < b.size(); ++cut) {
    try {
      parse_loggopsim_binary(span_of(b.substr(0, cut)), "cut.bin");
      ADD_FAILURE() << "accepted a file cut at " << cut;
    } catch (const InputError& e) {
      SUCCEED();
    }
  }
}

TEST(LogGOPSimBinary, DamagedFields) {
  const std::string b = tiny_loggopsim_bytes();
  expect_binary_error(patched(b, 0, 4224), "not a LogGOPSim binary schedule: magic number 4224, expected 4223");
  expect_binary_error(patched(b, 8, 0), "num_ranks is 0");
  expect_binary_error(patched(b, 8, 1000000), "jump table of 1000000 ranks");
  expect_binary_error(patched(b, 14 + 8, 500), "lies outside the file");
  expect_binary_error(patched(b, kNodeB, 2), "node 1 declares 2 prerequisites, but 1 ops list it");
  expect_binary_error(patched(b, kAppendix0, 7), "lists dependent 7, but the rank has 2 nodes");
  expect_binary_error(patched(b, kNodeA + 23, 5), "dependents [0, 5) run past");
  std::string bad_type = b;
  bad_type[kNodeA + 4] = 9;
  expect_binary_error(bad_type, "unknown op type 9");
  expect_binary_error(patched(b, kNodeB + 5, 2), "send to rank 2, but num_ranks is 2");
  std::string bad_cpu = b;
  bad_cpu[kNodeA + 21] = 2;
  expect_binary_error(bad_cpu, "cpu 2 above the header's max_cpu 1");
  expect_binary_error(patched(b, kRank0 + 8, 1), "the root list does not match");
  expect_binary_error(patched(b, kRank0, 1000000000), "do not fit in the rank's section");
}

TEST(LogGOPSimBinary, CycleIsReported) {
  // One rank, two calcs that each wait for the other: section at 22 (6 header + 16 jump),
  // 8 + 0 roots + 2*39 + 2 dependents*4 = 94 bytes long.
  Bytes b;
  b.put<std::uint64_t>(4223).put<std::uint32_t>(1).put<std::uint8_t>(0).put<std::uint8_t>(0);
  b.put<std::uint64_t>(22).put<std::uint64_t>(116);
  b.put<std::uint32_t>(2).put<std::uint32_t>(0);
  for (std::uint32_t node = 0; node < 2; ++node) {
    b.put<std::uint32_t>(1).put<std::uint8_t>(3).put<std::uint32_t>(0).put<std::uint64_t>(node + 1).put<std::uint32_t>(0);
    b.put<std::uint8_t>(0).put<std::uint8_t>(0).put<std::uint32_t>(1).put<std::uint32_t>(node).put<std::uint32_t>(0).put<std::uint32_t>(node + 1);
  }
  b.put<std::uint32_t>(1).put<std::uint32_t>(0);
  expect_binary_error(b.str(), "rank 0: dependency cycle: node 0 requires node 1 requires node 0");
}

// ---- .goalb ----

std::string goalb_of(const char* text) {
  std::ostringstream out;
  write_goalb(testing::parse(text), out);
  return out.str();
}

// The bytes as a file of their own, read the way `collsim run` reads one: mapped, its
// sections summed as the schedule's check goes.
class GoalbFile {
 public:
  explicit GoalbFile(const std::string& bytes) : file_("schedule.goalb", bytes) {}
  Schedule read() const { return read_goalb_file(file_.path()); }

 private:
  test_support::ScratchFile file_;
};

void expect_goalb_error(const std::string& bytes, const std::string& needle) {
  try {
    parse_goalb(span_of(bytes), "bad.goalb");
    ADD_FAILURE() << "accepted a damaged file; expected: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  try {
    GoalbFile(bytes).read();
    ADD_FAILURE() << "accepted a damaged mapped file; expected: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Goalb, HeaderLayout) {
  const std::string b = goalb_of(kTiny);
  EXPECT_EQ(std::memcmp(b.data(), kGoalbMagic, 8), 0);
  std::uint32_t version, sections, ranks;
  std::uint64_t ops, req, ireq, size;
  std::memcpy(&version, b.data() + 8, 4);
  std::memcpy(&sections, b.data() + 12, 4);
  std::memcpy(&ranks, b.data() + 16, 4);
  std::memcpy(&ops, b.data() + 24, 8);
  std::memcpy(&req, b.data() + 32, 8);
  std::memcpy(&ireq, b.data() + 40, 8);
  std::memcpy(&size, b.data() + 48, 8);
  EXPECT_EQ(version, 1u);
  EXPECT_EQ(sections, 13u);
  EXPECT_EQ(ranks, 2u);
  EXPECT_EQ(ops, 3u);
  EXPECT_EQ(req, 1u);
  EXPECT_EQ(ireq, 0u);
  EXPECT_EQ(size, b.size());
  // Every section starts on a 64-byte boundary.
  for (int id = 0; id < 13; ++id) {
    std::uint64_t offset;
    std::memcpy(&offset, b.data() + 64 + 32 * id + 8, 8);
    EXPECT_EQ(offset % 64, 0u) << "section " << id;
  }
}

TEST(Goalb, TruncatedAnywhere) {
  const std::string b = goalb_of(kTiny);
  for (std::size_t cut = 0; cut < b.size(); ++cut) EXPECT_THROW(parse_goalb(span_of(b.substr(0, cut)), "cut.goalb"), InputError) << cut;
}

TEST(Goalb, EveryFlippedByteIsCaught) {
  const std::string b = goalb_of(kTiny);
  for (std::size_t at = 0; at < b.size(); ++at) {
    std::string damaged = b;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    EXPECT_THROW(parse_goalb(span_of(damaged), "flip.goalb"), InputError) << "byte " << at;
    EXPECT_THROW(GoalbFile(damaged).read(), InputError) << "mapped, byte " << at;
  }
}

TEST(Goalb, ClearMessages) {
  const std::string b = goalb_of(kTiny);
  expect_goalb_error("not a schedule at all, just some text that is long enough to hold a header......", "wrong magic bytes");
  expect_goalb_error(patched(b, 8, 2), "format version 2; this collsim reads version 1");
  expect_goalb_error(b + "x", "truncated or appended to");
  std::string flipped = b;
  std::uint64_t kind_offset;
  std::memcpy(&kind_offset, b.data() + 64 + 32 * 3 + 8, 8);
  flipped[kind_offset] = 7;
  expect_goalb_error(flipped, "section 3: checksum mismatch");
  std::string header = b;
  header[20] = 1;
  expect_goalb_error(header, "header checksum mismatch");
}

// A mapped file is summed in parts of a few thousand ops, as its check reads them: damage
// in any part of any section is found, and reported as damage even where the check of an
// earlier part fails first.
TEST(Goalb, MappedFileIsSummedWholeInParts) {
  std::ostringstream text;
  const int ranks = 8, steps = 5000;  // 80,000 ops: parts of some 16,000
  text << "num_ranks " << ranks << "\n";
  for (int r = 0; r < ranks; ++r) {
    text << "rank " << r << " {\n";
    for (int i = 0; i < steps; ++i) {
      text << "s" << i << ": send " << 100 + i << "b to " << (r + 1) % ranks << " tag " << i << "\n";
      text << "r" << i << ": recv " << 100 + i << "b from " << (r + ranks - 1) % ranks << " tag " << i << "\n";
      if (i > 0) text << "s" << i << " requires r" << i - 1 << "\n";
      if (i > 0) text << "r" << i << " irequires s" << i - 1 << "\n";
    }
    text << "}\n";
  }
  const Schedule s = testing::parse(text.str());
  std::ostringstream out;
  write_goalb(s, out);
  const std::string b = out.str();
  EXPECT_EQ(GoalbFile(b).read(), s);
  auto section = [&](std::uint32_t id) {
    std::uint64_t offset, count;
    std::uint32_t element;
    std::memcpy(&element, b.data() + 64 + 32 * id + 4, 4);
    std::memcpy(&offset, b.data() + 64 + 32 * id + 8, 8);
    std::memcpy(&count, b.data() + 64 + 32 * id + 16, 8);
    return std::pair{offset, count * element};
  };
  for (std::uint32_t id = 3; id < 13; ++id) {
    const auto [offset, bytes] = section(id);
    // The last byte of the section (in the last rank's part), and one in its middle.
    for (const std::uint64_t at : {offset + bytes - 1, offset + bytes / 2}) {
      std::string damaged = b;
      damaged[at] = static_cast<char>(damaged[at] ^ 0x01);
      try {
        GoalbFile(damaged).read();
        ADD_FAILURE() << "section " << id << ": accepted a flip at byte " << at;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("section " + std::to_string(id) + ": checksum mismatch"), std::string::npos)
            << e.what();
      }
    }
  }
  // An op kind no schedule has, in rank 0's first op, and a size in the last rank's part.
  std::string damaged = b;
  damaged[section(3).first] = 7;
  damaged[section(8).first + section(8).second - 2] ^= 0x40;
  try {
    GoalbFile(damaged).read();
    ADD_FAILURE() << "accepted two damaged sections";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("section 3: checksum mismatch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::goal
