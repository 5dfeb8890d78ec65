// The machinery every algorithm shares: data layout, protocols, plans, the emitter's
// connection rules, and the verifier catching broken schedules.

#include <gtest/gtest.h>

#include "collective_test_util.hpp"
#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/tuning.hpp"
#include "collsim/collectives/unit_layout.hpp"

namespace collsim::collectives {
namespace {

using testing::generate_and_verify;
using testing::spec_of;

TEST(UnitLayout, SplitsEveryBlockIntoNearEqualSlices) {
  const UnitLayout layout(3, 4, 10);  // 3 blocks per slice, 4 slices of 10 bytes: 3,3,2,2
  EXPECT_EQ(layout.num_units(), 12u);
  EXPECT_EQ(layout.unit_bytes(0), 3u);
  EXPECT_EQ(layout.unit_bytes(5), 3u);   // slice 1
  EXPECT_EQ(layout.unit_bytes(6), 2u);   // slice 2
  EXPECT_EQ(layout.bytes({0, 12}), 30u);  // every block once per slice: 3 * 10
  EXPECT_EQ(layout.bytes({4, 8}), 3u + 3u + 2u + 2u);
  EXPECT_EQ(layout.bytes({7, 7}), 0u);
}

TEST(Protocol, WireBytesCarryTheFlags) {
  EXPECT_EQ(wire_bytes(Protocol::Simple, 1000), 1000u);
  EXPECT_EQ(wire_bytes(Protocol::LL, 1000), 2000u);      // 4 data bytes per 8
  EXPECT_EQ(wire_bytes(Protocol::LL, 1), 8u);
  EXPECT_EQ(wire_bytes(Protocol::LL128, 120), 128u);     // 120 data bytes per 128-byte line
  EXPECT_EQ(wire_bytes(Protocol::LL128, 121), 256u);
  EXPECT_EQ(protocol_from_name("ll128"), Protocol::LL128);
  EXPECT_EQ(collective_from_name("all_reduce"), Collective::Allreduce);
  EXPECT_EQ(collective_from_name("ReduceScatter"), Collective::ReduceScatter);
  EXPECT_FALSE(collective_from_name("allscatter"));
}

TEST(Plan, RejectsWhatCannotRunWithTheFieldNamed) {
  auto message = [](CollectiveSpec spec) {
    try {
      make_plan(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message(spec_of(Collective::Allreduce, "nonesuch", 4, 64)).find("no algorithm 'nonesuch' for allreduce (there are: ring"),
            std::string::npos);
  EXPECT_NE(message(spec_of(Collective::Allreduce, "ring", 0, 64)).find("at least one rank"), std::string::npos);
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 4, 64);
  spec.channels = 0;
  EXPECT_NE(message(spec).find("channels must be 1..64"), std::string::npos);
  spec = spec_of(Collective::Broadcast, "auto", 4, 64);
  spec.root = 4;
  EXPECT_NE(message(spec).find("root 4 is not a member"), std::string::npos);
  spec = spec_of(Collective::Allreduce, "ring", 0, 64);
  spec.group = {3, 1, 3};
  EXPECT_NE(message(spec).find("rank 3 appears twice"), std::string::npos);
  spec.group = {3, 9};
  spec.num_ranks = 8;
  EXPECT_NE(message(spec).find("group member 9 is not a rank of a 8-rank schedule"), std::string::npos);
}

TEST(Plan, LatenciesDefaultToTheProtocolsAndTheNetworkStepToTheStep) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 4, 64);
  spec.protocol = Protocol::LL;
  Plan plan = make_plan(spec);
  EXPECT_EQ(plan.launch, protocol_costs(Protocol::LL).launch);
  EXPECT_EQ(plan.step, protocol_costs(Protocol::LL).step);
  EXPECT_EQ(plan.network_step, plan.step);
  spec.step = SimTime::ns(100);
  EXPECT_EQ(make_plan(spec).network_step, SimTime::ns(100));
  spec.network_step = SimTime::zero();
  plan = make_plan(spec);
  EXPECT_EQ(plan.step, SimTime::ns(100));
  EXPECT_EQ(plan.network_step, SimTime::zero());
  spec.launch = SimTime::ns(-1);
  EXPECT_THROW(make_plan(spec), std::invalid_argument);
}

TEST(RankEmitter, ALaunchWithAFractionOfANanosecondCostsTheWholeNanosecond) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 2, 64);
  spec.launch = SimTime::ps(1500);
  const goal::Schedule s = generate(make_plan(spec));
  ASSERT_EQ(s.rank(0).kind(0), goal::OpKind::Calc);
  EXPECT_EQ(s.rank(0).size(0), 2u);
}

TEST(RingAllreduce, VerifiesForEveryRankCountAndSize) {
  for (std::uint32_t n : testing::kRankCounts)
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 20}) {
      const VerifyReport report = generate_and_verify(spec_of(Collective::Allreduce, "ring", n, bytes));
      EXPECT_TRUE(report.ok) << "n=" << n << " bytes=" << bytes << ": " << report.error;
    }
}

TEST(RingAllreduce, SendsTwoNMinusOneMessagesOfSOverNPerRank) {
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 33u}) {
    const std::uint64_t bytes = std::uint64_t{n} * 4096;
    CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", n, bytes);
    spec.protocol = Protocol::Simple;
    const goal::Schedule s = generate(spec);
    const testing::RankTraffic t = testing::traffic_of(s);
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], 2u * (n - 1)) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], 2u * (n - 1) * (bytes / n)) << "n=" << n << " rank " << r;
    }
  }
}

TEST(RingAllreduce, EveryBlockCrossesTwoNMinusOneLinksWhateverTheRounding) {
  const std::uint32_t n = 7;
  const std::uint64_t bytes = 1000003;
  const goal::Schedule s = generate(spec_of(Collective::Allreduce, "ring", n, bytes));
  std::uint64_t total = 0;
  for (std::uint64_t b : testing::traffic_of(s).bytes) total += b;
  EXPECT_EQ(total, 2u * (n - 1) * bytes);
}

TEST(RingAllreduce, ChannelsAndChunksMultiplyTheMessages) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 4, 4 * 3 * 2 * 1024);
  spec.channels = 3;
  spec.chunk_bytes = 1024;  // 2 pipeline steps per channel
  const AnnotatedSchedule a = generate_annotated(spec);
  EXPECT_EQ(a.plan.slices, 3u * 2 * 4);
  const testing::RankTraffic t = testing::traffic_of(a.schedule);
  EXPECT_EQ(t.messages[0], 2u * 3 * 3 * 2);
  const VerifyReport report = verify(a);
  EXPECT_TRUE(report.ok) << report.error;
  // Channel c runs on cpu c with tag c.
  const goal::RankOps ops = a.schedule.rank(1);
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
    if (ops.kind(i) != goal::OpKind::Calc) {
      EXPECT_EQ(ops.tag(i), ops.cpu(i));
    }
}

TEST(RingAllreduce, ProtocolScalesWireBytes) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 4, 4 * 1200);
  spec.protocol = Protocol::LL128;
  const goal::Schedule s = generate(spec);
  EXPECT_EQ(testing::traffic_of(s).bytes[0], 6u * 1280);  // 1200 data bytes = 10 lines of 128
  spec.protocol = Protocol::LL;
  EXPECT_EQ(testing::traffic_of(generate(spec)).bytes[0], 6u * 2400);
}

TEST(RingAllreduce, RunsOnAnySubsetOfTheSchedulesRanks) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 10, 3000);
  spec.group = {5, 2, 7};
  const AnnotatedSchedule a = generate_annotated(spec);
  EXPECT_EQ(a.schedule.num_ranks(), 10u);
  EXPECT_EQ(a.schedule.rank(0).num_ops(), 0u);
  const goal::RankOps r5 = a.schedule.rank(5);
  for (goal::LocalOp i = 0; i < r5.num_ops(); ++i) {
    if (r5.kind(i) == goal::OpKind::Send) {
      EXPECT_EQ(r5.peer(i), 2u);  // member 0 sends to member 1
    }
    if (r5.kind(i) == goal::OpKind::Recv) {
      EXPECT_EQ(r5.peer(i), 7u);
    }
  }
  const VerifyReport report = verify(a);
  EXPECT_TRUE(report.ok) << report.error;
}

TEST(RankEmitter, BoundsMessagesInFlightPerConnection) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 3, 3 * 8 * 100);
  spec.chunk_bytes = 100;  // 8 pipeline steps
  spec.max_in_flight = 2;
  spec.step = SimTime::zero();
  spec.launch = SimTime::zero();
  spec.reduce_bytes_per_ns = 0;
  const goal::Schedule s = generate(spec);
  const goal::RankOps ops = s.rank(0);
  std::vector<goal::LocalOp> sends;
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
    if (ops.kind(i) == goal::OpKind::Send) sends.push_back(i);
  ASSERT_GT(sends.size(), 4u);
  for (std::size_t k = 2; k < sends.size(); ++k) {
    const auto req = ops.requires_of(sends[k]);
    EXPECT_NE(std::find(req.begin(), req.end(), sends[k - 2]), req.end()) << "send " << k;
    const auto ireq = ops.irequires_of(sends[k]);
    EXPECT_NE(std::find(ireq.begin(), ireq.end(), sends[k - 1]), ireq.end()) << "send " << k;
  }
}

TEST(RankEmitter, ChainsCollectivesThroughEntryAndExitOps) {
  const Plan plan = make_plan(spec_of(Collective::Allreduce, "ring", 4, 4096));
  goal::ScheduleBuilder builder(4);
  builder.begin_rank(0);
  BuilderSink sink(builder);
  const goal::LocalOp compute = builder.add(goal::Op::calc(1000));
  const std::vector<goal::LocalOp> first = emit_member(plan, 0, sink, std::vector<goal::LocalOp>{compute});
  ASSERT_FALSE(first.empty());
  const std::vector<goal::LocalOp> second = emit_member(plan, 0, sink, first);
  ASSERT_FALSE(second.empty());
  builder.end_rank();
  for (goal::RankId r = 1; r < 4; ++r) {
    builder.begin_rank(r);
    builder.end_rank();
  }
  const goal::Schedule s = builder.finish();
  // The launch calc of the second collective waits for every exit of the first.
  const goal::LocalOp launch = first.back() + 1;
  EXPECT_EQ(s.rank(0).kind(launch), goal::OpKind::Calc);
  const auto req = s.rank(0).requires_of(launch);
  EXPECT_EQ(std::vector<std::uint32_t>(req.begin(), req.end()), first);
  for (goal::LocalOp e : second) EXPECT_GT(e, launch);
}

// --- deliberately broken schedules ------------------------------------------------------

class BrokenRing : public ::testing::Test {
 protected:
  Plan plan = make_plan(spec_of(Collective::Allreduce, "ring", 4, 4 * 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenRing, ADroppedStepShiftsTheMessagesThatFollow) {
  const goal::LocalOp victim = testing::nth_op(good, 2, goal::OpKind::Send, 3);
  const VerifyReport r = verify(testing::tampered(plan, 2, victim, [](goal::Op& op, Payload& p, auto& units) {
    op = goal::Op::calc(0);
    p = Payload{};
    units.clear();
  }));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("rank 3 op"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("expects chunk 3"), std::string::npos) << r.error;
}

TEST_F(BrokenRing, ADroppedLastStepLeavesAReceiveUnmatched) {
  const goal::LocalOp victim = testing::nth_op(good, 2, goal::OpKind::Send, 5);
  const VerifyReport r = verify(testing::tampered(plan, 2, victim, [](goal::Op& op, Payload& p, auto& units) {
    op = goal::Op::calc(0);
    p = Payload{};
    units.clear();
  }));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("rank 3"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("never matched"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("it expected chunk"), std::string::npos) << r.error;
}

TEST_F(BrokenRing, AWrongPeerIsNamed) {
  const goal::LocalOp victim = testing::nth_op(good, 1, goal::OpKind::Send, 0);
  const VerifyReport r = verify(testing::tampered(plan, 1, victim, [](goal::Op& op, Payload&, auto&) { op.peer = 3; }));
  ASSERT_FALSE(r.ok);
  // Rank 2 then receives rank 1's next message in place of the one that went astray.
  EXPECT_NE(r.error.find("rank 2 op"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("expects chunk 1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("carries chunk 0"), std::string::npos) << r.error;
}

TEST_F(BrokenRing, ADoubleCountIsCaughtWithTheChunkAndContributor) {
  // The first allgather-phase receive of rank 0 reduces instead of copying.
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Recv, 3);
  const VerifyReport r = verify(testing::tampered(plan, 0, victim, [](goal::Op&, Payload& p, auto&) {
    p.action = DataAction::Reduce;
  }));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("rank 0 op"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("chunk 0"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("twice"), std::string::npos) << r.error;
}

TEST_F(BrokenRing, ACopyThatShouldReduceLosesContributions) {
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Recv, 1);
  const VerifyReport r = verify(testing::tampered(plan, 0, victim, [](goal::Op&, Payload& p, auto&) {
    p.action = DataAction::Copy;
  }));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("is missing"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("contribution of rank 0"), std::string::npos) << r.error;
}

TEST_F(BrokenRing, ASizeMismatchIsCaught) {
  const goal::LocalOp victim = testing::nth_op(good, 2, goal::OpKind::Recv, 0);
  const VerifyReport r = verify(testing::tampered(plan, 2, victim, [](goal::Op& op, Payload&, auto&) { op.size += 1; }));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("sizes differ"), std::string::npos) << r.error;
}

TEST_F(BrokenRing, SendingDataNotYetHeldIsCaught) {
  // Rank 1's first send claims the chunk it will only receive later.
  const goal::LocalOp victim = testing::nth_op(good, 1, goal::OpKind::Send, 0);
  const VerifyReport r = verify(testing::tampered(plan, 1, victim, [](goal::Op&, Payload&, auto& units) {
    units = {UnitRange{0, 2}};
  }));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("rank 1"), std::string::npos) << r.error;
}

TEST(Verifier, RefusesStatesAboveTheLimit) {
  VerifyLimits limits;
  limits.max_state_bytes = 1024;
  const VerifyReport r = verify(generate_annotated(spec_of(Collective::Allreduce, "ring", 64, 1 << 20)), limits);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("above the limit"), std::string::npos);
}

TEST(Tuning, PicksLowLatencyProtocolsForSmallAndSimpleForLargeMessages) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "auto", 8, 8);
  spec.ranks_per_node = 8;
  spec.channels = 8;
  EXPECT_EQ(make_plan(spec).protocol, Protocol::LL);
  spec.bytes = std::uint64_t{1} << 30;
  EXPECT_EQ(make_plan(spec).protocol, Protocol::Simple);
  spec.protocol = Protocol::LL128;  // a fixed protocol is kept
  EXPECT_EQ(make_plan(spec).protocol, Protocol::LL128);
}

// The bandwidth of one (algorithm, protocol) candidate of the tuning, for the spec's channels
// (asked of a ring plan: every plan lists the same candidates).
double candidate_bw(CollectiveSpec spec, const std::string& algorithm, Protocol proto) {
  spec.algorithm = "ring";
  for (const TuningCandidate& c : tuning_candidates(make_plan(spec)))
    if (c.algorithm == algorithm && c.protocol == proto) return c.bandwidth_gbytes_per_s;
  return -1;
}

// Ampere, 8 channels of 20 GB/s NVLink and 12 GB/s network, 2 nodes of 8 (n = 16).
CollectiveSpec two_ampere_nodes_allreduce(std::uint64_t bytes) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "auto", 16, bytes);
  spec.ranks_per_node = 8;
  spec.channels = 8;
  spec.system.intra_gbytes_per_s = 20;
  spec.system.inter_gbytes_per_s = 12;
  return spec;
}

TEST(Tuning, TwoNodeTreeOutrunsTheRingAtLargeSizes) {
  CollectiveSpec spec = two_ampere_nodes_allreduce(std::uint64_t{1} << 30);
  Plan plan = make_plan(spec);
  // Ring across nodes: min(20, 12) per channel, bus 8 * 12 = 96, alg 96 * 16/30 = 51.2.
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::Simple), 51.2, 1e-9);
  // 2-node tree: intra may reach twice the network, min(20, 24) = 20; bus min(0.92 * 160,
  // 8 * 23.6) = 147.2, alg 147.2 / 2 = 73.6 (the ring at 8 * 20 would have been 85.3).
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 73.6, 1e-9);
  EXPECT_EQ(plan.algorithm, "double_binary_tree");
  EXPECT_EQ(plan.protocol, Protocol::Simple);
  // 4 nodes (n = 32): the tree has only the network, min(0.92 * 96, 8 * 17.8) / 2 = 44.16;
  // the ring 96 * 32/62 = 49.55; 1 GiB takes ~2.6 ms longer by tree, far above any latency.
  spec.num_ranks = 32;
  plan = make_plan(spec);
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 0.92 * 96 / 2, 1e-9);
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::Simple), 96.0 * 32 / 62, 1e-9);
  EXPECT_EQ(plan.algorithm, "ring");
  // One node: both see NVLink only, ring bus 8 * 20 = 160, alg 160 * 8/14 = 91.4.
  spec.num_ranks = 8;
  plan = make_plan(spec);
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::Simple), 160.0 * 8 / 14, 1e-9);
}

TEST(Tuning, TreeBandwidthIsDeratedAtMediumSizesAsNcclsTableSays) {
  // The 2-node tree above (Simple 147.2 / 2 = 73.6 GB/s undivided). NCCL's table by
  // log2(bytes / 64): 4 MiB is index 16, Simple 0.7; 1 MiB index 14, 0.5; 64 B index 0, 0.9;
  // LL128 at 1 MiB 0.6 (of 147.2 * 120/128 / 2); 256 MiB index 22, 0.9; 512 MiB and up, none.
  CollectiveSpec spec = two_ampere_nodes_allreduce(std::uint64_t{4} << 20);
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 0.7 * 73.6, 1e-9);
  spec.bytes = std::uint64_t{1} << 20;
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 0.5 * 73.6, 1e-9);
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::LL128), 0.6 * 73.6 * 120 / 128, 1e-9);
  spec.bytes = 64;
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 0.9 * 73.6, 1e-9);
  spec.bytes = std::uint64_t{256} << 20;
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 0.9 * 73.6, 1e-9);
  spec.bytes = std::uint64_t{512} << 20;
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::Simple), 73.6, 1e-9);
  // The ring is not derated.
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::Simple), 51.2, 1e-9);
  // The table itself, as validate also applies it to a simulated tree's links.
  EXPECT_EQ(tree_correction(Protocol::Simple, std::uint64_t{4} << 20), 0.7);
  EXPECT_EQ(tree_correction(Protocol::LL128, std::uint64_t{1} << 20), 0.6);
  EXPECT_EQ(tree_correction(Protocol::LL, 16 * 1024), 0.7);    // index 8
  EXPECT_EQ(tree_correction(Protocol::LL, 256 * 1024), 0.4);   // index 12, the deepest
  EXPECT_EQ(tree_correction(Protocol::LL, 0), 1.0);
  EXPECT_EQ(tree_correction(Protocol::Simple, std::uint64_t{1} << 30), 1.0);
}

TEST(Tuning, LowLatencyProtocolIsCappedHarderAcrossNodes) {
  // NCCL's llMaxBws: one Ampere node caps LL at 87.7 GB/s of bus bandwidth; 2 nodes at 39.0
  // and more at 20.4 (its Intel rows), as LL's stores then cross PCIe to the NIC.
  CollectiveSpec spec = two_ampere_nodes_allreduce(std::uint64_t{1} << 30);
  spec.system.inter_gbytes_per_s = 20;
  // 2 nodes: ring bus 8 * 20 * 0.5 = 80 -> 39, alg 39 * 16/30; tree 147.2 / 3.8 = 38.7 (below).
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::LL), 39.0 * 16 / 30, 1e-9);
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::LL), 0.92 * 160 / 3.8 / 2, 1e-9);
  spec.num_ranks = 32;  // 4 nodes: 20.4 for both
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::LL), 20.4 * 32 / 62, 1e-9);
  EXPECT_NEAR(candidate_bw(spec, "double_binary_tree", Protocol::LL), 20.4 / 2, 1e-9);
  spec.num_ranks = 8;  // one node: 80 is below 87.7
  EXPECT_NEAR(candidate_bw(spec, "ring", Protocol::LL), 80.0 * 8 / 14, 1e-9);
}

TEST(Tuning, FixedAlgorithmStillTunesItsProtocolBySize) {
  // NCCL_ALGO=RING on one Hopper node of 8 (log 28's setting): 24 channels of 450/24 = 18.75
  // GB/s. Ring allreduce, 14 steps on NVLink:
  //   LL     latency 6.6 + 14 * 0.6 = 15.0 us,  bw min(0.5 * 450, 141) = 141 * 8/14 = 80.57 GB/s
  //   LL128  latency 14  + 14 * 1.9 = 40.6 us,  bw min(0.92 * 450, 24 * 36.7) = 414 * 8/14 = 236.57
  //   Simple latency 8.4 + 14 * 3.4 = 56.0 us,  bw 450 * 8/14 = 257.14
  // 8 B: LL (15.0 against 40.6 and 56.0). 8 MiB: LL 15 + 104.1 = 119.1, LL128 40.6 + 35.5 =
  // 76.1, Simple 56 + 32.6 = 88.6: LL128. 1 GiB: LL128 40.6 + 4538.8, Simple 56 + 4175.6: Simple.
  CollectiveSpec spec = spec_of(Collective::Allreduce, "auto", 8, 8);
  spec.ranks_per_node = 8;
  spec.channels = 24;
  spec.system.arch = GpuArch::Hopper;
  spec.system.intra_gbytes_per_s = 450.0 / 24;
  spec.system.inter_gbytes_per_s = 450.0 / 24;
  EXPECT_EQ(tuned_protocol(make_plan(spec), "ring"), Protocol::LL);
  spec.bytes = std::uint64_t{8} << 20;
  EXPECT_EQ(tuned_protocol(make_plan(spec), "ring"), Protocol::LL128);
  spec.bytes = std::uint64_t{1} << 30;
  EXPECT_EQ(tuned_protocol(make_plan(spec), "ring"), Protocol::Simple);
  // The tree has its own: Simple 8.4 + 2 * 7 * 4.0 = 64.4 us at min(0.92 * 450, 24 * 38.7) / 2
  // = 207 GB/s, LL128 14 + 2 * 7 * 1.25 = 31.5 us at 7/9 of it (161 GB/s); 1 GiB takes
  // 64.4 + 5187.2 = 5251.6 us by Simple against 31.5 + 6669.2 = 6700.7 by LL128.
  EXPECT_EQ(tuned_protocol(make_plan(spec), "double_binary_tree"), Protocol::Simple);
  // An algorithm NCCL's model does not know has no tuned protocol.
  EXPECT_EQ(tuned_protocol(make_plan(spec), "recursive_doubling"), std::nullopt);
}

}  // namespace
}  // namespace collsim::collectives
