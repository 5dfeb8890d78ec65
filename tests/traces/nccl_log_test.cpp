// NCCL INFO logs of a 4-rank job written here: communicators from init lines, calls matched by
// opCount, Send/Recv pairs, timestamps as compute gaps, launcher prefixes, and bad input.

#include <gtest/gtest.h>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/nccl_log_reader.hpp"
#include "collsim/traces/trace_format.hpp"
#include "traces/et_writer.hpp"
#include "traces/trace_test_util.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::traces {
namespace {

using namespace testing;
using Kind = ReplayTask::Kind;

std::string init(const std::string& who, const std::string& comm, int rank, int nranks, const std::string& id) {
  return who + " NCCL INFO comm " + comm + " rank " + std::to_string(rank) + " nranks " + std::to_string(nranks) +
         " cudaDev 0 busId 1000 commId " + id + " - Init COMPLETE\n";
}

std::string call(const std::string& who, const std::string& op, int op_count, std::uint64_t count, int datatype, int root,
                 const std::string& comm, const std::string& stream = "0x5") {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%x", op_count);
  return who + " NCCL INFO " + op + ": opCount " + hex + " sendbuff 0x7f00 recvbuff 0x7f00 count " + std::to_string(count) +
         " datatype " + std::to_string(datatype) + " op 0 root " + std::to_string(root) + " comm " + comm +
         " [nranks=4] stream " + stream + "\n";
}

// Ranks 0 and 1: one process with two GPUs on node a, timestamped, in one file. Ranks 2 and 3:
// processes on node b behind Open MPI's and srun's prefixes, in a second file. Communicator
// 0xw spans all four; 0xs has global ranks 2 (its rank 0) and 0 (its rank 1).
struct Job {
  std::string a, b;
  Job() {
    const std::string r0 = "[2024-05-01 12:00:00.000100] a:100:7 [0]", r1 = "a:100:8 [1]";
    const std::string r2 = "[1,2]<stdout>:b:200:9 [0]", r3 = "3: b:300:9 [1]";
    a = "some other output\n" + init(r0, "0xa0", 0, 4, "0xw") + init(r1, "0xa1", 1, 4, "0xw") +
        init(r0, "0xc1", 1, 2, "0xs") + "a:100:7 [0] NCCL INFO Channel 00/02 :    0   1   2   3\n" +
        call(r0, "AllReduce", 0, 262144, 7, 0, "0xa0") + call(r1, "AllReduce", 0, 262144, 7, 0, "0xa1") +
        call("[2024-05-01 12:00:00.000350] a:100:7 [0]", "AllGather", 1, 1024, 9, 0, "0xa0") +
        call(r1, "AllGather", 1, 1024, 9, 0, "0xa1") + call(r1, "Send", 2, 10, 4, 3, "0xa1") +
        call(r0, "Broadcast", 0, 100, 0, 1, "0xc1", "0x6");
    b = init(r2, "0xb0", 2, 4, "0xw") + init(r3, "0xb1", 3, 4, "0xw") + init(r2, "0xc0", 0, 2, "0xs") +
        call(r2, "AllReduce", 0, 262144, 7, 0, "0xb0") + call(r3, "AllReduce", 0, 262144, 7, 0, "0xb1") +
        call(r2, "AllGather", 1, 1024, 9, 0, "0xb0") + call(r3, "AllGather", 1, 1024, 9, 0, "0xb1") +
        call(r3, "Recv", 2, 10, 4, 1, "0xb1") + call(r2, "Broadcast", 0, 100, 0, 1, "0xc0", "0x6");
  }
  ReplayProgram read(const test_support::ScratchDir& dir, const NcclLogOptions& o = {}) const {
    write_file(dir / "a.log", a);
    write_file(dir / "b.log", b);
    return read_nccl_logs({dir / "a.log", dir / "b.log"}, o);
  }
};

TEST(NcclLog, RebuildsCommunicatorsAndMatchesCalls) {
  test_support::ScratchDir dir;
  const ReplayProgram p = Job().read(dir, {false});
  EXPECT_EQ(p.num_ranks, 4u);
  ASSERT_EQ(p.collectives.size(), 3u);
  // AllReduce of 262144 fp32 = 1 MiB on all four.
  EXPECT_EQ(p.collectives[0].collective, collectives::Collective::Allreduce);
  EXPECT_EQ(p.collectives[0].bytes, 1u << 20);
  EXPECT_EQ(p.collectives[0].group, (std::vector<goal::RankId>{0, 1, 2, 3}));
  // AllGather of 1024 bf16 per rank: 1024 x 2 B x 4 ranks.
  EXPECT_EQ(p.collectives[1].collective, collectives::Collective::Allgather);
  EXPECT_EQ(p.collectives[1].bytes, 8192u);
  // Broadcast of 100 int8 on 0xs: its rank 0 is global rank 2, its root (rank 1) global 0.
  EXPECT_EQ(p.collectives[2].collective, collectives::Collective::Broadcast);
  EXPECT_EQ(p.collectives[2].bytes, 100u);
  EXPECT_EQ(p.collectives[2].group, (std::vector<goal::RankId>{2, 0}));
  EXPECT_EQ(p.collectives[2].root, 1u);
  // Send of 10 int64 from rank 1 to rank 3.
  ASSERT_EQ(p.transfers.size(), 1u);
  EXPECT_EQ(p.transfers[0].from, 1u);
  EXPECT_EQ(p.transfers[0].to, 3u);
  EXPECT_EQ(p.transfers[0].bytes, 80u);

  // Rank 1: AllReduce, AllGather after it (same stream), Send after that.
  const std::vector<ReplayTask>& r1 = p.ranks[1];
  ASSERT_EQ(r1.size(), 3u);
  EXPECT_EQ(r1[1].after, std::vector<std::uint32_t>{0});
  EXPECT_EQ(r1[2].kind, Kind::Send);
  EXPECT_EQ(r1[2].peer, 3u);
  EXPECT_EQ(r1[2].after, std::vector<std::uint32_t>{1});
  // Rank 0's broadcast is on another stream: it waits for nothing.
  ASSERT_EQ(p.ranks[0].size(), 3u);
  EXPECT_TRUE(p.ranks[0][2].after.empty());
}

TEST(NcclLog, TimestampsBecomeComputeGaps) {
  test_support::ScratchDir dir;
  const ReplayProgram p = Job().read(dir);
  // Rank 0 issued the AllReduce at the job's first timestamp (gap 0), the AllGather 250 us
  // later, and the Broadcast stamped back at the first time (a gap below 0 counts as 0):
  // compute 0, AllReduce, compute 250000 ns, AllGather (after both), compute 0, Broadcast.
  const std::vector<ReplayTask>& r0 = p.ranks[0];
  ASSERT_EQ(r0.size(), 6u);
  EXPECT_EQ(r0[0].kind, Kind::Compute);
  EXPECT_EQ(r0[0].ns, 0u);
  EXPECT_EQ(r0[1].after, std::vector<std::uint32_t>{0});
  EXPECT_EQ(r0[2].kind, Kind::Compute);
  EXPECT_EQ(r0[2].ns, 250'000u);
  EXPECT_EQ(r0[2].after, std::vector<std::uint32_t>{0});
  EXPECT_EQ(r0[3].kind, Kind::Collective);
  EXPECT_EQ(r0[3].after, (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(r0[4].ns, 0u);
  EXPECT_EQ(r0[5].after, std::vector<std::uint32_t>{4});  // its own stream: only the host's clock
  EXPECT_EQ(p.ranks[1].size(), 3u);  // no timestamps there
}

TEST(NcclLog, FormatIsDetectedByContent) {
  test_support::ScratchDir dir;
  write_file(dir / "a.log", Job().a);
  EXPECT_EQ(detect_trace_format(dir / "a.log"), TraceFormat::NcclLog);
}

TEST(NcclLog, UnmatchedOpCountIsNamed) {
  test_support::ScratchDir dir;
  Job job;
  // Rank 3 never logs its AllGather.
  const std::string gone = call("3: b:300:9 [1]", "AllGather", 1, 1024, 9, 0, "0xb1");
  job.b.erase(job.b.find(gone), gone.size());
  const std::string e = error_of([&] { job.read(dir); });
  EXPECT_NE(e.find("a.log:8:1: AllGather opCount 0x1: unmatched opCount: communicator commId 0xw has 4 ranks, but comm "
                   "rank(s) 3 never logged this call"),
            std::string::npos)
      << e;
}

TEST(NcclLog, BadCallLineNamesLineAndColumn) {
  test_support::ScratchDir dir;
  const std::string line = "a:100:7 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count 12x datatype 7\n";
  write_file(dir / "bad.log", "hello\n" + line);
  const std::string e = error_of([&] { read_nccl_logs({dir / "bad.log"}); });
  // "12x" starts at column 76: 11 + 11 + 11 + 10 + 13 + 13 + 6 = 75 characters come before it
  // ("a:100:7 [0]", " NCCL INFO ", "AllReduce: ", "opCount 0 ", "sendbuff 0x1 ", ...).
  EXPECT_NE(e.find("bad.log:2:76: expected a number after 'count', found '12x'"), std::string::npos) << e;
}

TEST(NcclLog, OtherBadInputIsNamed) {
  test_support::ScratchDir dir;
  Job job;
  write_file(dir / "a.log", job.a);
  write_file(dir / "b.log", job.b);
  // Only half the job: communicator 0xw misses ranks 2 and 3.
  const std::string half = error_of([&] { read_nccl_logs({dir / "a.log"}); });
  EXPECT_NE(half.find("commId 0xw has 4 ranks but rank 2 has no init line"), std::string::npos) << half;
  // A call on a communicator nobody initialised.
  write_file(dir / "c.log", call("z:1:1 [0]", "AllReduce", 0, 1, 7, 0, "0xdd"));
  const std::string no_init = error_of([&] { read_nccl_logs({dir / "c.log"}); });
  EXPECT_NE(no_init.find("c.log:1:1: AllReduce opCount 0x0: communicator 0xdd of process z:1 has no 'Init COMPLETE' line"),
            std::string::npos)
      << no_init;
  // A Send whose Recv was never logged.
  Job lost;
  const std::string recv = call("3: b:300:9 [1]", "Recv", 2, 10, 4, 1, "0xb1");
  lost.b.erase(lost.b.find(recv), recv.size());
  const std::string unmatched = error_of([&] { lost.read(dir); });
  EXPECT_NE(unmatched.find("Send opCount 0x2: has no matching Recv on comm rank 3"), std::string::npos) << unmatched;
  // An unknown datatype.
  write_file(dir / "d.log", init("z:1:1 [0]", "0x1", 0, 1, "0x9") + call("z:1:1 [0]", "AllReduce", 0, 1, 12, 0, "0x1"));
  const std::string dt = error_of([&] { read_nccl_logs({dir / "d.log"}); });
  EXPECT_NE(dt.find("unknown datatype 12"), std::string::npos) << dt;
  // A call replay does not simulate is refused where it stands, not left out of the program.
  write_file(dir / "e.log", init("z:1:1 [0]", "0x1", 0, 1, "0x9") + call("z:1:1 [0]", "AllToAllv", 0, 1, 7, 0, "0x1"));
  const std::string unknown = error_of([&] { read_nccl_logs({dir / "e.log"}); });
  // "z:1:1 [0] NCCL INFO " is 20 characters: the call's name starts at column 21.
  EXPECT_NE(unknown.find("e.log:2:21: NCCL call 'AllToAllv' is not one replay simulates"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace collsim::traces

namespace collsim::traces {
namespace {

TEST(NcclLog, RealInitLinesOfTwoNodes) {
  // Init lines of a 2 x 4 H100 job (NCCL 2.22.3, "ncclCommInitRank comm ... - Init COMPLETE",
  // logged out of rank order) with our call lines (tests/data/traces/nccl/SOURCES.md).
  const ReplayProgram p = read_nccl_logs({std::string(COLLSIM_TEST_DATA) + "/traces/nccl/snellius_2x4.log"});
  EXPECT_EQ(p.num_ranks, 8u);
  ASSERT_EQ(p.collectives.size(), 2u);
  // The only communicator spans all 8 devices: its ranks are the global ranks.
  EXPECT_EQ(p.collectives[0].group, (std::vector<goal::RankId>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(p.collectives[0].bytes, 4096u);  // 1024 fp32
  EXPECT_EQ(p.collectives[1].collective, collectives::Collective::Broadcast);
  EXPECT_EQ(p.collectives[1].root, 5u);
  // gcn154:1793999 is comm rank 5: it has the AllReduce, then the Broadcast after it.
  ASSERT_EQ(p.ranks[5].size(), 2u);
  EXPECT_EQ(p.ranks[5][1].after, std::vector<std::uint32_t>{0});
}

}  // namespace
}  // namespace collsim::traces

namespace collsim::traces {
namespace {

TEST(NcclLog, WithoutInitLinesOneWorldCommunicatorIsInferred) {
  // NCCL_DEBUG_SUBSYS=COLL alone: no init lines. Every device has one communicator of
  // nranks=4, the job's size: the world, ranks in (host, pid, cudaDev) order: a:1 [0], a:1 [1],
  // b:2 [0], b:10 [0] (pid 2 before pid 10).
  test_support::ScratchDir dir;
  std::string log;
  const std::pair<const char*, const char*> devices[] = {
      {"b:10:1 [0]", "0xb10"}, {"a:1:1 [1]", "0xa11"}, {"b:2:1 [0]", "0xb2"}, {"a:1:1 [0]", "0xa10"}};
  for (const auto& [who, comm] : devices) log += call(who, "AllReduce", 0, 256, 7, 0, comm);
  log += call("b:10:1 [0]", "Send", 1, 4, 7, 1, "0xb10");  // to comm rank 1 = a:1 [1]
  log += call("a:1:1 [1]", "Recv", 1, 4, 7, 3, "0xa11");
  write_file(dir / "coll.log", log);
  const ReplayProgram p = read_nccl_logs({dir / "coll.log"});
  EXPECT_EQ(p.num_ranks, 4u);
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].bytes, 1024u);
  ASSERT_EQ(p.transfers.size(), 1u);
  EXPECT_EQ(p.transfers[0].from, 3u);
  EXPECT_EQ(p.transfers[0].to, 1u);

  // Two communicators on one device cannot be told apart without init lines.
  write_file(dir / "two.log", log + call("a:1:1 [0]", "AllReduce", 0, 256, 7, 0, "0xzz"));
  const std::string e = error_of([&] { read_nccl_logs({dir / "two.log"}); });
  EXPECT_NE(e.find("has no 'Init COMPLETE' line"), std::string::npos) << e;
}

}  // namespace
}  // namespace collsim::traces
