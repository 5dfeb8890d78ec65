// The emulated CollNetChain (SHARP) allreduce: who sends what to whom.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "collsim/validation/collnet_chain_allreduce.hpp"

namespace collsim::validation {
namespace {

CollNetChainAllreduce small() {
  CollNetChainAllreduce a;
  a.gpus = 3;
  a.nodes = 2;
  a.rails = 2;
  a.bytes = 12;
  a.channels = 2;
  a.chunk_bytes = 3;
  return a;
}

// Bytes rank `from` sends to each peer.
std::map<std::uint32_t, std::uint64_t> sent(const goal::Schedule& s, std::uint32_t from) {
  std::map<std::uint32_t, std::uint64_t> out;
  const goal::RankOps r = s.rank(from);
  for (goal::LocalOp i = 0; i < r.num_ops(); ++i)
    if (r.kind(i) == goal::OpKind::Send) out[r.peer(i)] += r.size(i);
  return out;
}

TEST(CollNetChainAllreduce, ScheduleShape) {
  const goal::Schedule s = make_collnet_chain_allreduce(small());
  // 6 GPUs and one aggregation per rail (ranks 6 and 7). Each channel carries 6 bytes in 2
  // chunks. Per channel a GPU has a launch calc, and per chunk a send up and the total's
  // receive, plus, unless it is the chain's tail, a receive from below and a send down: 9 ops
  // in the middle or at the head, 5 at the tail. Channel 0's chain is 0 <- 1 <- 2 (head 0),
  // channel 1's is 1 <- 2 <- 0 (head 1): rank 0 is head then tail (14), rank 1 middle then
  // head (18), rank 2 tail then middle (14).
  ASSERT_EQ(s.num_ranks(), 8u);
  EXPECT_EQ(s.rank(0).num_ops(), 14u);
  EXPECT_EQ(s.rank(1).num_ops(), 18u);
  EXPECT_EQ(s.rank(2).num_ops(), 14u);
  // Rail 0 aggregates channel 0 only: per chunk 2 node sums in, 2 totals out.
  EXPECT_EQ(s.rank(6).num_ops(), 8u);
  EXPECT_EQ(s.rank(7).num_ops(), 8u);
}

TEST(CollNetChainAllreduce, EachNodeSendsItsSumOnceAndEachGpuMovesTheDataUpAndDown) {
  const goal::Schedule s = make_collnet_chain_allreduce(small());
  // Channel 0: rank 0 (node 0's head) sends its 6 bytes to rail 0 and 6 down to rank 1; as
  // channel 1's tail it sends 6 up to rank 2.
  EXPECT_EQ(sent(s, 0), (std::map<std::uint32_t, std::uint64_t>{{1, 6}, {2, 6}, {6, 6}}));
  // Node 1's GPUs mirror node 0's: rank 4 is in the middle of channel 0's chain 3 <- 4 <- 5
  // and the head of channel 1's 4 <- 5 <- 3, so it sends down to 5 on both.
  EXPECT_EQ(sent(s, 4), (std::map<std::uint32_t, std::uint64_t>{{3, 6}, {5, 12}, {7, 6}}));
  // Each aggregation returns every node's total to that node's head: S/C per node.
  EXPECT_EQ(sent(s, 6), (std::map<std::uint32_t, std::uint64_t>{{0, 6}, {3, 6}}));
  EXPECT_EQ(sent(s, 7), (std::map<std::uint32_t, std::uint64_t>{{1, 6}, {4, 6}}));
  // A GPU's sends: S up and S down over the channels, less the tail's share down: 12 of 12+6.
  std::uint64_t out = 0;
  for (const auto& [peer, bytes] : sent(s, 2)) out += bytes;
  EXPECT_EQ(out, 18u);
}

TEST(CollNetChainAllreduce, OneGpuPerNodeIsAHeadWithoutAChain) {
  CollNetChainAllreduce a = small();
  a.gpus = 1;
  a.rails = 1;
  const goal::Schedule s = make_collnet_chain_allreduce(a);
  ASSERT_EQ(s.num_ranks(), 3u);
  EXPECT_EQ(sent(s, 0), (std::map<std::uint32_t, std::uint64_t>{{2, 12}}));
}

TEST(CollNetChainAllreduce, RejectsWhatItCannotEmulate) {
  const std::vector<void (*)(CollNetChainAllreduce&)> breakages = {
      [](CollNetChainAllreduce& a) { a.nodes = 1; },       [](CollNetChainAllreduce& a) { a.rails = 0; },
      [](CollNetChainAllreduce& a) { a.channels = 0; },    [](CollNetChainAllreduce& a) { a.channels = 256; },
      [](CollNetChainAllreduce& a) { a.chunk_bytes = 0; }, [](CollNetChainAllreduce& a) { a.in_flight = 0; },
      [](CollNetChainAllreduce& a) { a.gpus = 0; }};
  for (auto breakage : breakages) {
    CollNetChainAllreduce a = small();
    breakage(a);
    EXPECT_THROW(make_collnet_chain_allreduce(a), std::invalid_argument);
  }
}

}  // namespace
}  // namespace collsim::validation
