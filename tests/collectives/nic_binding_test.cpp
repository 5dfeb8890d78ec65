// Which NIC each message names: a channel's (the two trees of a channel pair on one), or for
// point-to-point the sending GPU's own, as NCCL binds its connections.

#include <gtest/gtest.h>

#include <set>

#include "collective_test_util.hpp"

namespace collsim::collectives {
namespace {

using testing::spec_of;

// (tag - first tag) is the channel a message runs on.
std::set<std::pair<std::uint32_t, std::uint32_t>> channel_and_nic(const goal::Schedule& s) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> out;
  for (goal::RankId r = 0; r < s.num_ranks(); ++r) {
    const goal::RankOps ops = s.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (ops.kind(i) != goal::OpKind::Calc) out.insert({ops.tag(i), ops.nic(i)});
  }
  return out;
}

TEST(NicBinding, RingChannelCGoesThroughNicCModuloTheNics) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 16, 16 << 20);
  spec.channels = 12;
  spec.nics = 8;
  spec.ranks_per_node = 8;
  for (const auto& [channel, nic] : channel_and_nic(generate(spec))) EXPECT_EQ(nic, channel % 8) << channel;
}

TEST(NicBinding, BothTreesOfAChannelShareItsNic) {
  // Channel 2p + t runs tree t of pair p: a node interior in one tree is a leaf in the
  // other, so one NIC carries both and every NIC the same load (tree 0 on the even NICs and
  // tree 1 on the odd would load them 3:1 on a node interior in tree 0).
  CollectiveSpec spec = spec_of(Collective::Allreduce, "double_binary_tree", 32, 16 << 20);
  spec.channels = 16;
  spec.nics = 8;
  spec.ranks_per_node = 8;
  const auto pairs = channel_and_nic(generate(spec));
  std::set<std::uint32_t> nics;
  for (const auto& [channel, nic] : pairs) {
    EXPECT_EQ(nic, channel / 2 % 8) << channel;
    nics.insert(nic);
  }
  EXPECT_EQ(nics.size(), 8u);
}

TEST(NicBinding, PointToPointUsesTheSendingGpusOwnNics) {
  // 2 nodes of 8 GPUs. With 8 NICs a node, local rank r sends through NIC r whatever the
  // channel; with 4, through NIC r / 2; with 16 (two per GPU), through 2r and 2r + 1.
  for (std::uint32_t nics : {8u, 4u, 16u}) {
    CollectiveSpec spec = spec_of(Collective::AllToAll, "direct", 16, 16 << 10);
    spec.channels = 4;
    spec.nics = nics;
    spec.nic_of_rank = true;
    spec.ranks_per_node = 8;
    const goal::Schedule s = generate(spec);
    for (goal::RankId r = 0; r < s.num_ranks(); ++r) {
      const goal::RankOps ops = s.rank(r);
      const std::uint32_t local = r % 8;
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        if (ops.kind(i) == goal::OpKind::Calc) continue;
        const std::uint32_t own = nics == 16 ? ops.nic(i) / 2u : ops.nic(i);
        EXPECT_EQ(own, nics == 4 ? local / 2 : local) << "rank " << r << ", " << nics << " NICs";
      }
    }
  }
}

TEST(NicBinding, PointToPointFollowsAGivenAffinity) {
  // 2 nodes of 4 GPUs whose node has 2 NICs, the first serving GPUs 0-2 and the second GPU 3
  // (rank_nics), and GPU 1 given both: channel c of local rank 1 takes its (c % 2)-th.
  CollectiveSpec spec = spec_of(Collective::AllToAll, "direct", 8, 16 << 10);
  spec.channels = 4;
  spec.nics = 2;
  spec.nic_of_rank = true;
  spec.ranks_per_node = 4;
  spec.rank_nics = {{0}, {0, 1}, {0}, {1}};
  const goal::Schedule s = generate(spec);
  for (goal::RankId r = 0; r < s.num_ranks(); ++r) {
    const goal::RankOps ops = s.rank(r);
    std::set<std::uint32_t> used;
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) == goal::OpKind::Calc) continue;
      used.insert(ops.nic(i));
      if (r % 4 == 1) {
        EXPECT_EQ(ops.nic(i), (ops.tag(i) - spec.tag) % 2) << "rank " << r;
      }
    }
    const std::set<std::uint32_t> expected = r % 4 == 1 ? std::set<std::uint32_t>{0, 1}
                                             : r % 4 == 3 ? std::set<std::uint32_t>{1}
                                                          : std::set<std::uint32_t>{0};
    EXPECT_EQ(used, expected) << "rank " << r;
  }
  spec.rank_nics = {{0}, {2}, {0}, {1}};
  EXPECT_THROW(generate(spec), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::collectives
