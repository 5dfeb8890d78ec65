// Reused collectives in the lowering: a blocking TP collective inside one node becomes a
// dissemination barrier over its group and one calc of the member's time after it, with the
// bytes it would have sent still counted; collectives across nodes, beside other traffic in
// their node, and a reuse that declines are lowered as themselves.

#include <gtest/gtest.h>

#include <map>

#include "collsim/workload/collective_reuse.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "workload/workload_test_util.hpp"

namespace collsim::workload {
namespace {

using testing::kTinyActivation;
using testing::tiny_transformer;

// Member i of any group takes 1000 + i ns after the barrier; `decline` makes it refuse.
class FixedReuse final : public CollectiveReuse {
 public:
  bool decline = false;
  std::uint32_t asked = 0;
  std::span<const std::uint64_t> after_barrier_ns(const collectives::Plan& whole, const collectives::Plan& barrier) override {
    ++asked;
    EXPECT_EQ(barrier.collective, collectives::Collective::Barrier);
    EXPECT_EQ(barrier.group, whole.group);
    EXPECT_EQ(barrier.launch, whole.launch);  // it holds the cpu at first as the collective does
    EXPECT_EQ(barrier.step + barrier.network_step, SimTime::zero());
    if (decline) return {};
    std::vector<std::uint64_t>& ns = answers_[whole.bytes];
    ns.clear();
    for (std::uint32_t i = 0; i < whole.n; ++i) ns.push_back(1000 + i);
    return ns;
  }

 private:
  std::map<std::uint64_t, std::vector<std::uint64_t>> answers_;
};

std::uint64_t count_ops(const goal::Schedule& s, goal::RankId r, goal::OpKind kind, std::uint8_t cpu) {
  const goal::RankOps ops = s.rank(r);
  std::uint64_t n = 0;
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) n += ops.kind(i) == kind && ops.cpu(i) == cpu ? 1 : 0;
  return n;
}

// The step lowered as itself and with `reuse`, on nodes of `gpus_per_node`.
struct Both {
  LoweredStep exact, reused;
};
Both lower_both(const WorkloadSpec& w, std::uint32_t gpus_per_node, FixedReuse& reuse) {
  LoweringOptions options;
  options.gpus_per_node = gpus_per_node;
  Both out{lower_step(w, options), {}};
  options.reuse = &reuse;
  out.reused = lower_step(w, options);
  return out;
}

TEST(CollectiveReuse, TensorParallelAllReducesInOneNodeBecomeABarrierAndTheMembersTime) {
  const std::uint32_t t = 4, L = 4, m = 2;
  FixedReuse reuse;
  const auto [exact, reused] = lower_both(tiny_transformer(t, 1, 1, m), 4, reuse);
  // (4L + 2) all-reduces per micro-batch (see communication_volume_test), each reused; the
  // lowering asks once per rank for its one kind of collective.
  const std::uint64_t collectives = m * (4 * L + 2);
  EXPECT_EQ(reuse.asked, t);
  for (goal::RankId r = 0; r < t; ++r) {
    EXPECT_EQ(reused.collectives_reused[r], collectives);
    EXPECT_EQ(exact.collectives_reused[r], 0u);
    // Dissemination over 4: two rounds of one send and one receive, all of 0 bytes.
    EXPECT_EQ(count_ops(reused.schedule, r, goal::OpKind::Send, 0), 2 * collectives);
    EXPECT_EQ(count_ops(reused.schedule, r, goal::OpKind::Recv, 0), 2 * collectives);
    EXPECT_EQ(count_ops(reused.schedule, r, goal::OpKind::Calc, 48), collectives);
    const goal::RankOps ops = reused.schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) == goal::OpKind::Send) {
        EXPECT_EQ(ops.size(i), 0u);
      }
      if (ops.kind(i) == goal::OpKind::Calc && ops.cpu(i) == 48) {
        EXPECT_EQ(ops.size(i), 1000 + r);
      }
    }
    // The bytes the all-reduces would have sent: 2(t-1)/t A each.
    EXPECT_EQ(reused.bytes_sent[r], exact.bytes_sent[r]);
    EXPECT_DOUBLE_EQ(static_cast<double>(reused.bytes_sent[r][0]), collectives * 2.0 * (t - 1) / t * kTinyActivation);
    EXPECT_LT(reused.schedule.rank(r).num_ops(), exact.schedule.rank(r).num_ops());
  }
}

TEST(CollectiveReuse, CollectivesAcrossNodesAndDeclinedOnesAreLoweredAsThemselves) {
  const WorkloadSpec w = tiny_transformer(4, 1, 1, 2);
  FixedReuse reuse;
  const Both across = lower_both(w, 2, reuse);  // the TP group spans two nodes
  EXPECT_EQ(reuse.asked, 0u);
  EXPECT_EQ(across.reused.schedule.num_ops(), across.exact.schedule.num_ops());

  reuse.decline = true;
  const Both declined = lower_both(w, 4, reuse);
  EXPECT_EQ(declined.reused.schedule.num_ops(), declined.exact.schedule.num_ops());
  EXPECT_EQ(declined.reused.collectives_reused[0], 0u);
}

TEST(CollectiveReuse, TensorParallelCollectivesBesideOtherTrafficInTheirNodeAreNotReused) {
  // TP 2 and DP 2 on nodes of 4: the gradient buckets of {0, 2} cross the node's NVLink beside
  // the TP collectives of {0, 1}; PP 2 on nodes of 4 (TP 2): the pipeline's messages do.
  FixedReuse reuse;
  const Both dp = lower_both(tiny_transformer(2, 1, 2, 2), 4, reuse);
  const Both pp = lower_both(tiny_transformer(2, 2, 1, 2), 4, reuse);
  EXPECT_EQ(reuse.asked, 0u);
  EXPECT_EQ(dp.reused.schedule.num_ops(), dp.exact.schedule.num_ops());
  EXPECT_EQ(pp.reused.schedule.num_ops(), pp.exact.schedule.num_ops());
  // Nodes of 2: each node is one TP group and nothing else.
  const Both alone = lower_both(tiny_transformer(2, 2, 2, 2), 2, reuse);
  EXPECT_GT(alone.reused.collectives_reused[0], 0u);
}

TEST(CollectiveReuse, DataParallelBucketsAreNeverReused) {
  // TP 1, DP 4 in one node: the only collectives are the DP stream's, which overlap compute.
  FixedReuse reuse;
  const Both both = lower_both(tiny_transformer(1, 1, 4, 2), 4, reuse);
  EXPECT_EQ(reuse.asked, 0u);
  EXPECT_EQ(both.reused.schedule.num_ops(), both.exact.schedule.num_ops());
}

}  // namespace
}  // namespace collsim::workload
