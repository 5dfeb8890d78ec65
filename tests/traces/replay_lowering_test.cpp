// A replay program as GOAL: compute on cpu 0, messages and collectives on cpus 1..; each
// collective after the work it depends on, with tags of its own; its ops recorded.

#include <gtest/gtest.h>

#include <algorithm>

#include "collsim/traces/replay_lowering.hpp"

namespace collsim::traces {
namespace {

using Kind = ReplayTask::Kind;

// 4 ranks: rank 0 computes 5 us and sends 64 B (tag 5) to rank 1, which receives it once its
// own send of 32 B (tag 5) to rank 0 started; then two allreduces of 4 KiB on all ranks, the
// second after the first (and, on rank 0 and 1, the first after the messages).
ReplayProgram program() {
  ReplayProgram p;
  p.num_ranks = 4;
  p.ranks.resize(4);
  p.max_tag = 5;
  for (int i = 0; i < 2; ++i) p.collectives.push_back({collectives::Collective::Allreduce, 4096, 0, {0, 1, 2, 3}, {}});
  ReplayTask compute{Kind::Compute, 5000, 0, 0, 0, kNoIndex, kNoIndex, {}, {}};
  ReplayTask send0{Kind::Send, 0, 1, 64, 5, kNoIndex, kNoIndex, {0}, {}};
  ReplayTask recv0{Kind::Recv, 0, 1, 32, 5, kNoIndex, kNoIndex, {}, {}};
  p.ranks[0] = {compute, send0, recv0};
  ReplayTask send1{Kind::Send, 0, 0, 32, 5, kNoIndex, kNoIndex, {}, {}};
  ReplayTask recv1{Kind::Recv, 0, 0, 64, 5, kNoIndex, kNoIndex, {}, {0}};
  p.ranks[1] = {send1, recv1};
  for (goal::RankId r = 0; r < 4; ++r) {
    auto& t = p.ranks[r];
    ReplayTask first{Kind::Collective, 0, 0, 0, 0, 0, kNoIndex, {}, {}};
    if (!t.empty()) first.after.push_back(static_cast<std::uint32_t>(t.size() - 1));
    t.push_back(first);
    t.push_back({Kind::Collective, 0, 0, 0, 0, 1, kNoIndex, {static_cast<std::uint32_t>(t.size() - 1)}, {}});
  }
  return p;
}

collectives::CollectiveSpec ring_two_channels() {
  collectives::CollectiveSpec shape;
  shape.algorithm = "ring";
  shape.protocol = collectives::Protocol::Simple;
  shape.channels = 2;
  return shape;
}

TEST(ReplayLowering, ComputeAndMessagesKeepTheirCpusTagsAndDependencies) {
  const LoweredReplay l = lower_replay(program(), ring_two_channels());
  const goal::RankOps r0 = l.schedule.rank(0);
  EXPECT_EQ(r0.op(0), goal::Op::calc(5000, kComputeCpu));
  EXPECT_EQ(r0.op(1), goal::Op::send(64, 1, 5, kCommunicationCpu));
  EXPECT_EQ(std::vector<std::uint32_t>(r0.requires_of(1).begin(), r0.requires_of(1).end()), std::vector<std::uint32_t>{0});
  const goal::RankOps r1 = l.schedule.rank(1);
  EXPECT_EQ(r1.op(1), goal::Op::recv(64, 0, 5, kCommunicationCpu));
  EXPECT_TRUE(r1.requires_of(1).empty());
  EXPECT_EQ(std::vector<std::uint32_t>(r1.irequires_of(1).begin(), r1.irequires_of(1).end()), std::vector<std::uint32_t>{0});
}

TEST(ReplayLowering, EachCollectiveHasItsOwnTagsAndStartsAfterItsPredecessor) {
  const LoweredReplay l = lower_replay(program(), ring_two_channels());
  ASSERT_EQ(l.collectives.size(), 2u);
  // Trace tags go up to 5: the first collective takes tags 6 and 7 (two channels), the next 8, 9.
  const std::uint32_t first_tag[] = {6, 8};
  for (std::size_t c = 0; c < 2; ++c) {
    ASSERT_EQ(l.collectives[c].ops.size(), 4u);
    EXPECT_EQ(l.collectives[c].kind, "allreduce");
    EXPECT_EQ(l.collectives[c].algorithm, "ring");
    for (const OpSpan& s : l.collectives[c].ops) {
      const goal::RankOps ops = l.schedule.rank(s.rank);
      ASSERT_LT(s.begin, s.end);
      for (goal::LocalOp i = s.begin; i < s.end; ++i) {
        if (ops.kind(i) == goal::OpKind::Calc) {
          EXPECT_GE(ops.cpu(i), kCommunicationCpu);
          continue;
        }
        EXPECT_GE(ops.tag(i), first_tag[c]) << "collective " << c << " rank " << s.rank << " op " << i;
        EXPECT_LT(ops.tag(i), first_tag[c] + 2) << "collective " << c << " rank " << s.rank << " op " << i;
      }
    }
  }
  // On every rank the second collective's ops come after the first's, and its first op waits
  // only for ops of the first collective.
  for (goal::RankId r = 0; r < 4; ++r) {
    const OpSpan a = l.collectives[0].ops[r], b = l.collectives[1].ops[r];
    EXPECT_EQ(a.rank, r);
    EXPECT_EQ(a.end, b.begin);
    EXPECT_EQ(b.end, l.schedule.rank(r).num_ops());
    const auto deps = l.schedule.rank(r).requires_of(b.begin);
    ASSERT_FALSE(deps.empty());
    for (std::uint32_t d : deps) {
      EXPECT_GE(d, a.begin);
      EXPECT_LT(d, a.end);
    }
  }
  // On rank 0 the first collective's first op waits for the receive (task 2, op 2).
  const auto deps = l.schedule.rank(0).requires_of(l.collectives[0].ops[0].begin);
  EXPECT_EQ(std::vector<std::uint32_t>(deps.begin(), deps.end()), std::vector<std::uint32_t>{2});
}

TEST(ReplayLowering, RefusedCollectiveNamesItsOrigin) {
  ReplayProgram p;
  p.num_ranks = 2;
  p.ranks.resize(2);
  p.collectives.push_back({collectives::Collective::Allreduce, 64, 0, {0, 1}, {"x.log", 3, 0, "AllReduce opCount 0x0"}});
  for (auto& t : p.ranks) t.push_back({Kind::Collective, 0, 0, 0, 0, 0, kNoIndex, {}, {}});
  collectives::CollectiveSpec shape;
  shape.algorithm = "no_such_algorithm";
  try {
    lower_replay(p, shape);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.log:3:1: AllReduce opCount 0x0: cannot lower allreduce:"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace collsim::traces
