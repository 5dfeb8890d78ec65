// All ranks' Chakra nodes as one replay program: collectives matched over process groups,
// dependencies, skipped host-side nodes, and the errors for what cannot be replayed.

#include <gtest/gtest.h>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/chakra_reader.hpp"
#include "collsim/traces/trace_format.hpp"
#include "traces/et_writer.hpp"
#include "traces/trace_test_util.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::traces {
namespace {

using namespace testing;
using Kind = ReplayTask::Kind;

pb::Node comp(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {}) {
  pb::Node n;
  n.set_id(id);
  n.set_name("comp" + std::to_string(id));
  n.set_type(pb::COMP_NODE);
  n.set_duration_micros(micros);
  for (auto d : deps) n.add_data_deps(d);
  return n;
}

// Writes one file per rank into `dir` and reads them back as a program.
ReplayProgram program(const test_support::ScratchDir& dir, const std::vector<std::vector<pb::Node>>& ranks, const TraceOptions& o = {}) {
  for (std::size_t r = 0; r < ranks.size(); ++r) write_file(dir / ("t." + std::to_string(r) + ".et"), trace_bytes(ranks[r]));
  return read_traces({dir.path().string()}, o);
}

TEST(ChakraProgram, EverySampleSetIsOneCollectiveOverEightRanks) {
  struct Case {
    const char* dir;
    collectives::Collective kind;
    std::uint64_t bytes;
  };
  // comm_size is 1 MiB per rank; an all-gather's size is its output, 8 x 1 MiB.
  const Case cases[] = {{"all_reduce_8npus_1MB", collectives::Collective::Allreduce, 1 << 20},
                        {"all_gather_8npus_1MB", collectives::Collective::Allgather, 8 << 20},
                        {"reduce_scatter_8npus_1MB", collectives::Collective::ReduceScatter, 1 << 20},
                        {"all_to_all_8npus_1MB", collectives::Collective::AllToAll, 1 << 20}};
  for (const Case& c : cases) {
    const ReplayProgram p = read_traces({kChakra + c.dir});
    EXPECT_EQ(p.num_ranks, 8u);
    ASSERT_EQ(p.collectives.size(), 1u) << c.dir;
    EXPECT_EQ(p.collectives[0].collective, c.kind) << c.dir;
    EXPECT_EQ(p.collectives[0].bytes, c.bytes) << c.dir;
    EXPECT_EQ(p.collectives[0].group, (std::vector<goal::RankId>{0, 1, 2, 3, 4, 5, 6, 7}));
    for (const auto& tasks : p.ranks) {
      ASSERT_EQ(tasks.size(), 1u);
      EXPECT_EQ(tasks[0].kind, Kind::Collective);
      EXPECT_EQ(tasks[0].collective, 0u);
    }
  }
}

TEST(ChakraProgram, UnrolledRingReceivesWaitForTheirSendToStartOnly) {
  const ReplayProgram p = read_traces({kChakra + "custom_ring_allreduce_8npus_1MB"});
  EXPECT_TRUE(p.collectives.empty());
  const std::vector<ReplayTask>& t = p.ranks[0];
  ASSERT_EQ(t.size(), 35u);
  // The file chains send0 -> recv1 -> comp2 -> send3 -> ... by data_deps.
  EXPECT_EQ(t[0].kind, Kind::Send);
  EXPECT_EQ(t[0].peer, 1u);
  EXPECT_EQ(t[0].bytes, 131072u);
  EXPECT_EQ(t[1].kind, Kind::Recv);
  EXPECT_EQ(t[1].peer, 7u);
  EXPECT_TRUE(t[1].after.empty());
  EXPECT_EQ(t[1].after_start, std::vector<std::uint32_t>{0});
  EXPECT_EQ(t[2].kind, Kind::Compute);
  EXPECT_EQ(t[2].ns, 7000u);
  EXPECT_EQ(t[2].after, std::vector<std::uint32_t>{1});
  EXPECT_EQ(t[3].kind, Kind::Send);
  EXPECT_EQ(t[3].after, std::vector<std::uint32_t>{2});
}

TEST(ChakraProgram, HostSideCollectiveIsSkippedAndBridged) {
  test_support::ScratchDir dir;
  pb::Node host = coll_node(1, 0, 0);
  host.clear_attr();
  *host.add_attr() = int_attr("is_cpu_op", 1);
  host.add_data_deps(0);
  pb::Node gpu = coll_node(2, 0, 4096);
  gpu.add_data_deps(1);
  const ReplayProgram p = program(dir, {{comp(0, 3), host, gpu}, {coll_node(0, 0, 4096)}});
  ASSERT_EQ(p.ranks[0].size(), 2u);  // comp, then the GPU collective after it
  EXPECT_EQ(p.ranks[0][1].kind, Kind::Collective);
  EXPECT_EQ(p.ranks[0][1].after, std::vector<std::uint32_t>{0});
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].bytes, 4096u);
}

TEST(ChakraProgram, NodesOutOfOrderFollowTheirDependencies) {
  test_support::ScratchDir dir;
  const ReplayProgram p = program(dir, {{comp(2, 5, {1}), comp(1, 4)}});
  ASSERT_EQ(p.ranks[0].size(), 2u);
  EXPECT_EQ(p.ranks[0][0].ns, 4000u);
  EXPECT_EQ(p.ranks[0][1].ns, 5000u);
  EXPECT_EQ(p.ranks[0][1].after, std::vector<std::uint32_t>{0});
}

TEST(ChakraProgram, CtrlDepsOnlyWhenAsked) {
  test_support::ScratchDir dir;
  pb::Node b = comp(2, 1);
  b.add_ctrl_deps(1);
  EXPECT_TRUE(program(dir, {{comp(1, 1), b}}).ranks[0][1].after.empty());
  TraceOptions o;
  o.chakra.ctrl_deps = true;
  EXPECT_EQ(program(dir, {{comp(1, 1), b}}, o).ranks[0][1].after, std::vector<std::uint32_t>{0});
}

TEST(ChakraProgram, RooflineTakesTheSlowerOfFlopsAndBytes) {
  test_support::ScratchDir dir;
  pb::Node n = comp(1, 5);
  *n.add_attr() = int_attr("num_ops", 2'000'000'000'000);
  *n.add_attr() = int_attr("tensor_size", 1'000'000'000);
  TraceOptions o;
  o.chakra.compute = {true, 1e6, 1000.0};  // 1 PFLOP/s, 1 TB/s
  // 2e12 FLOP / 1e6 FLOP/ns = 2e6 ns; 1e9 B / 1e3 B/ns = 1e6 ns: compute bound.
  EXPECT_EQ(program(dir, {{n}}, o).ranks[0][0].ns, 2'000'000u);
  EXPECT_EQ(program(dir, {{n}}).ranks[0][0].ns, 5000u);  // as traced
}

TEST(ChakraProgram, ProcessGroupsFromTheCommGroupFile) {
  test_support::ScratchDir dir;
  write_file(dir / "groups.json", R"({"7": [3, 1]})");
  TraceOptions o;
  o.comm_groups = dir / "groups.json";
  const ReplayProgram p = program(dir, {{}, {coll_node(0, 2, 1000, "7")}, {}, {coll_node(0, 2, 1000, "7")}}, o);
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].group, (std::vector<goal::RankId>{3, 1}));
  EXPECT_EQ(p.collectives[0].bytes, 2000u);  // all-gather: 1000 B per rank x 2
  EXPECT_TRUE(p.ranks[0].empty());
}

TEST(ChakraProgram, UnknownProcessGroupIsNamed) {
  test_support::ScratchDir dir;
  const std::string e = error_of([&] { program(dir, {{coll_node(4, 0, 64, "tp3")}, {coll_node(4, 0, 64, "tp3")}}); });
  EXPECT_NE(e.find("t.0.et: byte 8: node id 4 'coll4': process group 'tp3' is not defined"), std::string::npos) << e;
  EXPECT_NE(e.find("--comm-groups"), std::string::npos) << e;
}

TEST(ChakraProgram, UnmatchedOrDisagreeingCollectivesAreNamed) {
  test_support::ScratchDir dir;
  pb::Node second = coll_node(1, 0, 64);
  second.add_data_deps(0);
  const std::string e = error_of([&] { program(dir, {{coll_node(0, 0, 64), second}, {coll_node(0, 0, 64)}}); });
  EXPECT_NE(e.find("rank 1 has 1 collective(s) on process group '0'"), std::string::npos) << e;
  EXPECT_NE(e.find("node id 1 'coll1' is collective #2"), std::string::npos) << e;
  EXPECT_NE(e.find("unmatched collective"), std::string::npos) << e;

  test_support::ScratchDir dir2;
  const std::string d = error_of([&] { program(dir2, {{coll_node(0, 0, 64)}, {coll_node(0, 0, 128)}}); });
  EXPECT_NE(d.find("t.1.et: byte 8: node id 0 'coll0': collective #1 of process group '0' is allreduce of 128 B here but "
                   "allreduce of 64 B at"),
            std::string::npos)
      << d;
}

TEST(ChakraProgram, MissingDependencyAndCycleAreNamed) {
  test_support::ScratchDir dir;
  const std::string e = error_of([&] { program(dir, {{comp(1, 1, {9})}}); });
  EXPECT_NE(e.find("node id 1 'comp1': depends (data_deps) on node id 9, which is not in the file"), std::string::npos) << e;
  test_support::ScratchDir dir2;
  const std::string c = error_of([&] { program(dir2, {{comp(1, 1, {2}), comp(2, 1, {1})}}); });
  EXPECT_NE(c.find("is part of a dependency cycle"), std::string::npos) << c;
}

}  // namespace
}  // namespace collsim::traces
