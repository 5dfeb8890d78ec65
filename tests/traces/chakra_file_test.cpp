// Reading one rank's Chakra file: the samples ASTRA-sim wrote, gzip, and the broken files
// the reader must refuse with the file, the byte offset and the node.

#include <gtest/gtest.h>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/chakra_reader.hpp"
#include "traces/et_writer.hpp"
#include "traces/trace_test_util.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::traces {
namespace {

using namespace testing;

// Offsets of the length prefixes of every message in a plain stream (walked here, not by the
// reader under test).
std::vector<std::size_t> message_offsets(const std::string& bytes) {
  std::vector<std::size_t> out;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    out.push_back(pos);
    std::uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<unsigned char>(bytes[pos++]);
      len |= std::uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) break;
    }
    pos += len;
  }
  return out;
}

TEST(ChakraFile, ReadsAstraSimsAllReduceMicrobenchmark) {
  const ChakraRankTrace t = read_chakra_file(kChakra + "all_reduce_8npus_1MB/all_reduce.0.et");
  EXPECT_FALSE(t.gzip);
  EXPECT_EQ(t.version, "0.0.4");
  ASSERT_EQ(t.nodes.size(), 1u);
  const ChakraNode& n = t.nodes[0];
  // SOURCES.md: node id 0 (absent on the wire), a COMM_COLL of 1 MiB, comm_type 0, int64 attrs.
  EXPECT_EQ(n.id, 0u);
  EXPECT_EQ(n.name, "all_reduce_8npus_1MB");
  EXPECT_EQ(n.type, ChakraNodeType::CommColl);
  EXPECT_TRUE(n.has_comm_type);
  EXPECT_EQ(n.comm_type, 0u);
  EXPECT_EQ(n.comm_size, 1048576u);
  EXPECT_FALSE(n.is_cpu_op);
  // The 7-byte GlobalMetadata and its 1-byte prefix come first.
  EXPECT_EQ(n.offset, 8u);
}

TEST(ChakraFile, ReadsTheUnrolledRingWithSchemaAttributeForVersion) {
  const ChakraRankTrace t = read_chakra_file(kChakra + "custom_ring_allreduce_8npus_1MB/custom_allreduce.3.et");
  EXPECT_EQ(t.version, "1.0.2-chakra.0.0.4");
  ASSERT_EQ(t.nodes.size(), 35u);
  int sends = 0, recvs = 0, comps = 0;
  for (const ChakraNode& n : t.nodes) {
    if (n.type == ChakraNodeType::CommSend) {
      ++sends;
      EXPECT_EQ(n.comm_dst, 4u);  // rank 3 sends to 3+1
      EXPECT_EQ(n.comm_size, 131072u);
    } else if (n.type == ChakraNodeType::CommRecv) {
      ++recvs;
      EXPECT_EQ(n.comm_src, 2u);  // and receives from 3-1
    } else if (n.type == ChakraNodeType::Comp) {
      ++comps;
      EXPECT_EQ(n.duration_micros, 7u);
    }
  }
  EXPECT_EQ(sends, 14);
  EXPECT_EQ(recvs, 14);
  EXPECT_EQ(comps, 7);
}

TEST(ChakraFile, GzipGivesTheSameNodesAsPlain) {
  test_support::ScratchDir dir;
  const std::string plain = kChakra + "custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et";
  write_file(dir / "ring.0.et", gzip(read_file(plain)));
  const ChakraRankTrace a = read_chakra_file(plain);
  const ChakraRankTrace b = read_chakra_file(dir / "ring.0.et");
  EXPECT_TRUE(b.gzip);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].id, b.nodes[i].id);
    EXPECT_EQ(a.nodes[i].data_deps, b.nodes[i].data_deps);
    EXPECT_EQ(a.nodes[i].offset, b.nodes[i].offset);
  }
}

TEST(ChakraFile, TruncatedFileNamesFileOffsetAndNode) {
  test_support::ScratchDir dir;
  const std::string bytes = read_file(kChakra + "custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et");
  const std::vector<std::size_t> at = message_offsets(bytes);
  ASSERT_EQ(at.size(), 36u);  // metadata + 35 nodes
  // Cut inside the last node (node #34, whose prefix is the 36th message).
  write_file(dir / "cut.0.et", bytes.substr(0, bytes.size() - 10));
  const std::string e = error_of([&] { read_chakra_file(dir / "cut.0.et"); });
  EXPECT_NE(e.find(dir / "cut.0.et"), std::string::npos) << e;
  EXPECT_NE(e.find("byte " + std::to_string(at[35])), std::string::npos) << e;
  EXPECT_NE(e.find("node #34 (after node id 33)"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;

  // Cut inside the metadata's 3-byte length prefix.
  write_file(dir / "cut.1.et", bytes.substr(0, 2));
  const std::string p = error_of([&] { read_chakra_file(dir / "cut.1.et"); });
  EXPECT_NE(p.find("byte 0: the file ends inside the length prefix of the GlobalMetadata"), std::string::npos) << p;
}

TEST(ChakraFile, CorruptNodeIsNamed) {
  test_support::ScratchDir dir;
  // A node of 3 bytes 0x0a 0xff 0xff: field 2 (name) claiming 0x7fff... bytes, impossible.
  std::string bytes = trace_bytes({});
  bytes += std::string("\x03\x12\xff\xff", 4);
  write_file(dir / "bad.0.et", bytes);
  const std::string e = error_of([&] { read_chakra_file(dir / "bad.0.et"); });
  EXPECT_NE(e.find("byte 8: node #0 (after node id none) is not a valid Chakra node"), std::string::npos) << e;
}

TEST(ChakraFile, BadAndTruncatedGzipAreRefused) {
  test_support::ScratchDir dir;
  const std::string z = gzip(read_file(kChakra + "custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et"));
  std::string flipped = z;
  for (std::size_t i = 20; i < 40; ++i) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  write_file(dir / "flip.0.et", flipped);
  const std::string e = error_of([&] { read_chakra_file(dir / "flip.0.et"); });
  EXPECT_NE(e.find(dir / "flip.0.et"), std::string::npos) << e;
  EXPECT_NE(e.find("corrupt gzip data"), std::string::npos) << e;
  EXPECT_NE(e.find(": byte "), std::string::npos) << e;

  write_file(dir / "half.0.et", z.substr(0, z.size() / 2));
  const std::string h = error_of([&] { read_chakra_file(dir / "half.0.et"); });
  EXPECT_NE(h.find("the gzip stream ends early"), std::string::npos) << h;
}

TEST(ChakraFile, OldSchemaIsRefusedClearly) {
  test_support::ScratchDir dir;
  // A metadata, then a node with field 12 as a varint (bytes 08 05 60 03): the schema before
  // Oct 2023 kept comm_type and friends as plain node fields with numbers above 10.
  std::string with_meta = trace_bytes({});
  with_meta += std::string("\x04\x08\x05\x60\x03", 5);
  write_file(dir / "old.0.et", with_meta);
  const std::string e = error_of([&] { read_chakra_file(dir / "old.0.et"); });
  EXPECT_NE(e.find("byte 8: node #0 (id 5) has fields the Oct 2023 schema does not define (field 12 (varint))"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("before Oct 2023"), std::string::npos) << e;

  // No GlobalMetadata at all: the first message is a node (id 5, name "abc").
  write_file(dir / "old.1.et", std::string("\x07\x08\x05\x12\x03" "abc", 8));
  const std::string f = error_of([&] { read_chakra_file(dir / "old.1.et"); });
  EXPECT_NE(f.find("byte 0: the first message is not a GlobalMetadata but a node"), std::string::npos) << f;
  EXPECT_NE(f.find("before Oct 2023"), std::string::npos) << f;
}

TEST(ChakraFile, RankFilesFromDirectoryPrefixOrList) {
  const std::vector<std::string> dir = chakra_rank_files({kChakra + "all_gather_8npus_1MB"});
  ASSERT_EQ(dir.size(), 8u);
  EXPECT_NE(dir[5].find("all_gather.5.et"), std::string::npos);
  EXPECT_EQ(chakra_rank_files({kChakra + "all_gather_8npus_1MB/all_gather"}), dir);

  test_support::ScratchDir tmp;
  write_file(tmp / "x.0.et", trace_bytes({}));
  write_file(tmp / "x.2.et", trace_bytes({}));
  const std::string e = error_of([&] { chakra_rank_files({tmp / "x.0.et", tmp / "x.2.et"}); });
  EXPECT_NE(e.find("rank 1 has no trace file"), std::string::npos) << e;
}

}  // namespace
}  // namespace collsim::traces
