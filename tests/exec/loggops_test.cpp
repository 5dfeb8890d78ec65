// The LogGOPS mode against values derived by hand from LogGOPSim's rules (see
// loggops_simulator.hpp): with the defaults L=2500 o=1500 g=1000 G=6 O=0 S=65535,
//   sender at t:   cpu busy until t + o + (s-1)O, NIC until t + g + (s-1)G, arrival t + o + L
//   receiver at t: cpu busy until t + o + max((s-1)O, (s-1)G), NIC until t + g + (s-1)G
// and a rank finishes when the last of its cpus is free.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collsim/exec/loggops_params.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/goal/text_format.hpp"

namespace collsim::exec {
namespace {

using goal::OpKind;

goal::Schedule parse(const std::string& text) { return goal::parse_goal_text(text, "t.goal"); }

LogGOPSResult run(const std::string& text, const LogGOPSParams& params = {}) {
  LogGOPSOptions options;
  options.record_op_times = true;
  return simulate_loggops(parse(text), params, options);
}

std::string example(const std::string& name) { return std::string(COLLSIM_GOAL_EXAMPLES) + "/" + name; }

// --- parameters --------------------------------------------------------------------------

TEST(LogGOPSParams, DefaultsAreLogGOPSims) {
  const LogGOPSParams p;
  EXPECT_EQ(to_string(p), "L=2500 o=1500 g=1000 G=6 O=0 S=65535");
  for (const LogGOPSParamInfo& info : loggops_param_table()) EXPECT_EQ(p.*(info.member), info.default_value);
  EXPECT_EQ(loggops_param_table().size(), 6u);
}

TEST(LogGOPSParams, SetsByShortOrLongNameAndRejectsBadValues) {
  LogGOPSParams p;
  set_loggops_param(p, "G", "8");
  set_loggops_param(p, "LogGOPS_S", "0");
  set_loggops_param(p, "g", "900");
  EXPECT_EQ(p.G, 8u);
  EXPECT_EQ(p.S, 0u);
  EXPECT_EQ(p.g, 900u);
  EXPECT_THROW(set_loggops_param(p, "X", "1"), std::invalid_argument);
  EXPECT_THROW(set_loggops_param(p, "L", "-1"), std::invalid_argument);
  EXPECT_THROW(set_loggops_param(p, "o", "2147483648"), std::invalid_argument);
  p.L = kMaxLogGOPSParam + 1;
  EXPECT_THROW(validate(p), std::invalid_argument);
  EXPECT_THROW(simulate_loggops(parse("num_ranks 1\nrank 0 {\n}\n"), p), std::invalid_argument);
  EXPECT_NE(loggops_params_help().find("eager limit"), std::string::npos);
}

TEST(LogGOPSParams, FractionsAndUnitsAsAtlahsWritesThem) {
  LogGOPSParams p;
  // ATLAHS's 200 Gb/s: G=0.04 ns per byte, which LogGOPSim's integer G cannot hold; the whole
  // gap per byte goes to G (ns) and G_ps (the rest).
  // Each setting in turn on the same parameters, and what G and G_ps (or the one parameter
  // named) hold after it.
  struct Case {
    const char* name;
    const char* value;
    std::uint64_t LogGOPSParams::*member;
    std::uint64_t expected;
    std::uint64_t G_ps_after;
  };
  const Case cases[] = {
      {"G", "0.04", &LogGOPSParams::G, 0, 40},
      {"G", "1.5ns", &LogGOPSParams::G, 1, 500},
      {"G", "200Gbps", &LogGOPSParams::G, 0, 40},  // 8 bits / 200 Gb/s = 40 ps
      {"G", "25GB/s", &LogGOPSParams::G, 0, 40},   // 1 byte / 25 GB/s = 40 ps
      {"G", "12", &LogGOPSParams::G, 12, 40},      // a plain integer: LogGOPSim's G alone
      {"L", "3.7us", &LogGOPSParams::L, 3700, 40},
      {"o", "0.2 us", &LogGOPSParams::o, 200, 40},
      {"g", "2000ps", &LogGOPSParams::g, 2, 40},
      {"G_intra_ps", "1TB/s", &LogGOPSParams::G_intra_ps, 1, 40},
      {"S", "64KiB", &LogGOPSParams::S, 65536, 40},
      {"L_intra", "0.5us", &LogGOPSParams::L_intra, 500, 40},
  };
  for (const Case& c : cases) {
    set_loggops_param(p, c.name, c.value);
    EXPECT_EQ(p.*(c.member), c.expected) << c.name << "=" << c.value;
    EXPECT_EQ(p.G_ps, c.G_ps_after) << c.name << "=" << c.value;
  }
  EXPECT_THROW(set_loggops_param(p, "g", "1500ps"), std::invalid_argument);  // LogGOPSim's g is whole ns
  EXPECT_THROW(set_loggops_param(p, "G_intra_ps", "900GB/s"), std::invalid_argument);  // 1.11 ps a byte
  for (const char* bad : {"12parsecs", "-1ns", "1e3", "0.0004ns", "300Gbps", ".", "3.7.1us"})
    EXPECT_THROW(set_loggops_param(p, "G", bad), std::invalid_argument) << bad;
  EXPECT_THROW(set_loggops_param(p, "causal", "0.5"), std::invalid_argument);
  EXPECT_THROW(set_loggops_param(p, "ranks_per_node", "8ns"), std::invalid_argument);
  EXPECT_THROW(set_loggops_param(p, "L", "3s"), std::invalid_argument);  // beyond LogGOPSim's int
  try {
    set_loggops_param(p, "G", "300Gbps");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a whole number of picoseconds (26.66"), std::string::npos) << e.what();
  }
}

// --- single messages ---------------------------------------------------------------------

TEST(LogGOPS, EagerMessage) {
  // Sender: o = 1500 on the cpu. Receiver takes the message at o + L = 4000 and is busy
  // until 4000 + o + (s-1)G = 5500 + 1023 * 6 = 11638.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: send 1024b to 1 tag 3
}
rank 1 {
l1: recv 1024b from 0 tag 3
}
)");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{1500, 11638}));
  EXPECT_EQ(r.makespan, 11638u);
  EXPECT_EQ(r.makespan_rank, 1u);
  EXPECT_EQ(r.op_start[0], 0u);
  EXPECT_EQ(r.op_end[0], 0u);  // eager: done when handed over
  EXPECT_EQ(r.op_start[1], 0u);
  EXPECT_EQ(r.op_end[1], 4000u);
  EXPECT_EQ(r.messages, 1u);
  EXPECT_EQ(r.bytes, 1024u);
  EXPECT_EQ(r.ops_completed, 2u);
  // Queued: the send, the recv and the message; taken: those three.
  EXPECT_EQ(r.loggopsim_events, 3u);
  EXPECT_EQ(r.events, 3u);
}

TEST(LogGOPS, ANodeOfRanksHasItsOwnLatencyAndSubNanosecondGap) {
  // Beyond LogGOPSim: ranks 0 and 1 share a node (L_intra = 100, G_intra_ps = 250 ps per
  // byte), rank 2 is on the next (L = 2500, G = 0 plus G_ps = 40 ps per byte). A 1025-byte
  // message from 0 arrives at 1 at o + L_intra = 1600 and occupies it until
  // 1600 + o + ceil(1024 × 0.25) = 3356; the one from 0 to 2 arrives at o + L = 4000 and
  // ends at 4000 + o + ceil(1024 × 0.04) = 5541 (41 ns, rounded up; its own cpu and nic).
  LogGOPSParams p;
  p.G = 0;
  p.G_ps = 40;
  p.ranks_per_node = 2;
  p.L_intra = 100;
  p.G_intra_ps = 250;
  EXPECT_EQ(to_string(p), "L=2500 o=1500 g=1000 G=0 O=0 S=65535 G_ps=40 ranks_per_node=2 L_intra=100 G_intra_ps=250");
  const auto r = run(R"(num_ranks 3
rank 0 {
l1: send 1025b to 1 tag 3 cpu 0
l2: send 1025b to 2 tag 3 cpu 1 nic 1
}
rank 1 {
l1: recv 1025b from 0 tag 3
}
rank 2 {
l1: recv 1025b from 0 tag 3
}
)",
                     p);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.rank_finish[1], 3356u);
  EXPECT_EQ(r.rank_finish[2], 5541u);
  LogGOPSParams q;
  set_loggops_param(q, "G_intra_ps", "250");
  set_loggops_param(q, "ranks_per_node", "2");
  EXPECT_EQ(q.G_intra_ps, 250u);
  EXPECT_EQ(q.ranks_per_node, 2u);
}

TEST(LogGOPS, WithIntraNicAMessageInsideANodeDoesNotWaitBehindANetworkSend) {
  // Nodes {0, 1} and {2, 3}; o = g = 0, 1 ns per byte both ways. Rank 0 sends 1001 bytes to
  // rank 2 (its NIC busy until 1000 × 1 ns = 1000) and then 11 bytes to rank 1. Sharing the
  // NIC (LogGOPSim), the second starts at 1000, arrives at 1000 + L_intra = 1100 and is
  // taken by 1100 + 10 = 1110; with NVLink's own side (intra_nic) it starts at 0: 110. The
  // network message is taken at L = 1000 and ends at 2000 either way.
  LogGOPSParams p{.L = 1000, .o = 0, .g = 0, .G = 1, .ranks_per_node = 2, .L_intra = 100, .G_intra_ps = 1000};
  const char* schedule = R"(num_ranks 4
rank 0 {
l1: send 1001b to 2 tag 1
l2: send 11b to 1 tag 2
}
rank 1 {
l1: recv 11b from 0 tag 2
}
rank 2 {
l1: recv 1001b from 0 tag 1
}
rank 3 {
}
)";
  const auto shared = run(schedule, p);
  ASSERT_TRUE(shared.complete);
  EXPECT_EQ(shared.rank_finish[1], 1110u);
  EXPECT_EQ(shared.rank_finish[2], 2000u);
  set_loggops_param(p, "intra_nic", "1");
  EXPECT_EQ(p.intra_nic, 1u);
  const auto own = run(schedule, p);
  ASSERT_TRUE(own.complete);
  EXPECT_EQ(own.rank_finish[1], 110u);
  EXPECT_EQ(own.rank_finish[2], 2000u);
  EXPECT_THROW(set_loggops_param(p, "intra_nic", "2"), std::invalid_argument);
  // The receiving side: rank 1 takes 1001 bytes from rank 3 at 1000 (its NIC busy until
  // 2000), and 11 bytes that rank 0 sends after a 1500 ns calc arrive at 1600 on another
  // cpu (causal: the send waits for the calc on the other cpu): sharing the NIC they are
  // taken at 2000, with intra_nic at once.
  p.causal = 1;
  const char* receiving = R"(num_ranks 4
rank 0 {
l1: calc 1500
l2: send 11b to 1 tag 2 cpu 1
l2 requires l1
}
rank 1 {
l1: recv 1001b from 3 tag 1
l2: recv 11b from 0 tag 2 cpu 1
}
rank 2 {
}
rank 3 {
l1: send 1001b to 1 tag 1
}
)";
  const auto own_receive = run(receiving, p);
  p.intra_nic = 0;
  const auto shared_receive = run(receiving, p);
  ASSERT_TRUE(own_receive.complete && shared_receive.complete);
  EXPECT_EQ(shared_receive.op_end[3], 2000u);  // rank 1's second receive
  EXPECT_EQ(own_receive.op_end[3], 1600u);
}

TEST(LogGOPS, ZeroByteMessageChargesMinusGAsLogGOPSimsUnsignedArithmeticDoes) {
  // (0 - 1) * G wraps to -G: the receiver's cpu is busy until 4000 + o - G = 5494.
  const auto r = run("num_ranks 2\nrank 0 {\nl1: send 0b to 1\n}\nrank 1 {\nl1: recv 0b from 0\n}\n");
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{1500, 5494}));
}

TEST(LogGOPS, RendezvousSendFinishesWhenTheReceiveMatches) {
  // s = 100000 > S. The message reaches rank 1 at 4000 while the recv is posted: the send
  // finishes at 4000, so the calc that requires it runs 4000..5000 on rank 0 (eagerly it
  // would start at o = 1500). Rank 1: 4000 + o + 99999 * 6 = 605494.
  const std::string text = R"(num_ranks 2
rank 0 {
l1: send 100000b to 1
l2: calc 1000
l2 requires l1
}
rank 1 {
l1: recv 100000b from 0
}
)";
  const auto r = run(text);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_end[0], 4000u);
  EXPECT_EQ(r.op_start[1], 4000u);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{5000, 605494}));

  LogGOPSParams eager;
  eager.S = 100000;
  const auto e = simulate_loggops(parse(text), eager, {.record_op_times = true});
  EXPECT_EQ(e.op_end[0], 0u);
  EXPECT_EQ(e.rank_finish, (std::vector<std::uint64_t>{2500, 605494}));
}

TEST(LogGOPS, RendezvousWithALateReceiveWaitsForIt) {
  // Rank 1 computes until 10000 first. The message arrives at 4000 but its cpu is busy, so
  // it is taken in at 10000 (cpu busy until 10000 + 1500 + 599994 = 611494), before the recv
  // (queued later) is posted at 10000 and finds it unexpected: the send finishes at 10000 and
  // its dependent calc runs 10000..11000.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: send 100000b to 1
l2: calc 1000
l2 requires l1
}
rank 1 {
l1: calc 10000
l2: recv 100000b from 0
l2 requires l1
}
)");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_end[0], 10000u);
  EXPECT_EQ(r.op_end[3], 10000u);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{11000, 611494}));
  EXPECT_EQ(r.events, 6u);  // send, calc, message (retried once), recv, calc
}

// --- gaps --------------------------------------------------------------------------------

LogGOPSParams gap_params() {
  LogGOPSParams p;
  p.L = 1000;
  p.o = 100;
  p.g = 500;
  p.G = 10;
  return p;
}

TEST(LogGOPS, BackToBackSendsAreSpacedByTheNicsGapAndBandwidth) {
  // 101 bytes: (s-1)G = 1000. Send 1 at 0: NIC busy until g + 1000 = 1500, message at
  // o + L = 1100. Send 2 waits for the NIC: starts 1500, message at 2600, cpu free 1600.
  // Receiver: message 1 at 1100 -> cpu 2200, NIC 2600; message 2 at 2600 -> cpu 3700.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: send 101b to 1
l2: send 101b to 1
}
rank 1 {
l1: recv 101b from 0
l2: recv 101b from 0
}
)",
                     gap_params());
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_start[1], 1500u);
  EXPECT_EQ(r.op_end[2], 1100u);
  EXPECT_EQ(r.op_end[3], 2600u);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{1600, 3700}));
}

TEST(LogGOPS, TwoMessagesArrivingTogetherAreSpacedByTheReceiversNic) {
  // Both arrive at 1100; rank 0's (queued first) is taken at once (NIC busy until 2600), rank
  // 1's at 2600: rank 2's cpu is free at 2600 + o + 1000 = 3700.
  const auto r = run(R"(num_ranks 3
rank 0 {
l1: send 101b to 2
}
rank 1 {
l1: send 101b to 2
}
rank 2 {
l1: recv 101b from 0
l2: recv 101b from 1
}
)",
                     gap_params());
  EXPECT_EQ(r.op_end[2], 1100u);
  EXPECT_EQ(r.op_end[3], 2600u);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{100, 100, 3700}));
}

TEST(LogGOPS, OverheadPerByteChargesTheCpu) {
  // O = 2, G = 6, s = 11: sender cpu 1500 + 20; receiver cpu 4000 + 1500 + max(20, 60).
  LogGOPSParams p;
  p.O = 2;
  const auto r = run("num_ranks 2\nrank 0 {\nl1: send 11b to 1\n}\nrank 1 {\nl1: recv 11b from 0\n}\n", p);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{1520, 5560}));
  p.O = 10;
  const auto r10 = run("num_ranks 2\nrank 0 {\nl1: send 11b to 1\n}\nrank 1 {\nl1: recv 11b from 0\n}\n", p);
  EXPECT_EQ(r10.rank_finish, (std::vector<std::uint64_t>{1600, 5600}));
}

// --- cpus and dependencies ---------------------------------------------------------------

TEST(LogGOPS, CalcsOnTwoCpusRunInParallelAndOnOneCpuInSeries) {
  const auto two = run("num_ranks 1\nrank 0 {\nl1: calc 1000 cpu 0\nl2: calc 2000 cpu 1\n}\n");
  EXPECT_EQ(two.rank_finish, (std::vector<std::uint64_t>{2000}));
  EXPECT_EQ(two.op_start[1], 0u);
  const auto one = run("num_ranks 1\nrank 0 {\nl1: calc 1000 cpu 0\nl2: calc 2000 cpu 0\n}\n");
  EXPECT_EQ(one.rank_finish, (std::vector<std::uint64_t>{3000}));
  EXPECT_EQ(one.op_start[1], 1000u);
  EXPECT_EQ(one.op_end[1], 3000u);
}

TEST(LogGOPS, IrequiresStartsWithThePrerequisiteAndRequiresAfterIt) {
  // The calc irequires the recv: it runs as soon as the recv is posted (0..100); the
  // message is taken at 4000 and leaves the cpu at 5500. With requires it waits for the
  // match (4000), then for the cpu: 5500..5600.
  const std::string head = "num_ranks 2\nrank 0 {\nl1: send 1b to 1\n}\nrank 1 {\nl1: recv 1b from 0\nl2: calc 100\n";
  const auto i = run(head + "l2 irequires l1\n}\n");
  EXPECT_EQ(i.op_start[2], 0u);
  EXPECT_EQ(i.rank_finish[1], 5500u);
  const auto r = run(head + "l2 requires l1\n}\n");
  EXPECT_EQ(r.op_start[2], 5500u);
  EXPECT_EQ(r.rank_finish[1], 5600u);
}


TEST(LogGOPS, SizesOf2To32BytesOrNanosecondsAndUpAreExact) {
  // The send is ready first and holds the cpu for o = 1500; then 2^32 - 1 ns of calc, then
  // 7 ns. The rendezvous message of 2^32 + 1 bytes is taken at o + L = 4000 and holds the
  // receiver's cpu for o + 2^32 G = 1500 + 25769803776.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: calc 4294967295
l2: calc 7
l2 requires l1
l3: send 4294967297b to 1
}
rank 1 {
l1: recv 4294967297b from 0
}
)");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_start[0], 1500u);
  EXPECT_EQ(r.op_end[0], 1500 + 4294967295ull);
  EXPECT_EQ(r.op_end[1], 1500 + 4294967302ull);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{1500 + 4294967302ull, 4000 + 1500 + 25769803776ull}));
  EXPECT_EQ(r.bytes, 4294967297u);
}

TEST(LogGOPS, AnOpThatReleasesHundredsOfOpsAsItStartsReleasesEachOnce) {
  // l0 (10 ns) is irequired by 300 calcs of 1 ns and required by one of 2 ns, all on one
  // cpu: they run one after the other from 10 (in the order LogGOPSim's std::sort leaves
  // them), each once, and the rank ends at 10 + 300 + 2.
  std::string text = "num_ranks 1\nrank 0 {\nl0: calc 10\n";
  for (int k = 1; k <= 300; ++k) text += "l" + std::to_string(k) + ": calc 1\nl" + std::to_string(k) + " irequires l0\n";
  text += "l301: calc 2\nl301 requires l0\n}\n";
  const auto r = run(text);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.ops_completed, 302u);
  std::vector<std::uint64_t> starts(r.op_start.begin() + 1, r.op_start.end());
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts.front(), 10u);
  EXPECT_LE(starts.back(), 311u);
  EXPECT_EQ(std::adjacent_find(starts.begin(), starts.end()), starts.end());
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{312}));
}

TEST(LogGOPS, ADependentOnAnIdleCpuStartsWhenThatCpuIsFreeAsInLogGOPSim) {
  // LogGOPSim releases a calc's dependents when the calc starts and queues each at the time
  // its own cpu is next free: the calc on idle cpu 1 runs 0..500 although it requires the
  // calc 0..1000 on cpu 0. The rank finishes at 1000, not 1500.
  const auto r = run("num_ranks 1\nrank 0 {\nl1: calc 1000 cpu 0\nl2: calc 500 cpu 1\nl2 requires l1\n}\n");
  EXPECT_EQ(r.op_start[1], 0u);
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{1000}));
}

TEST(LogGOPS, ReadyOpsAreQueuedSendsFirstThenReceivesThenCalcs) {
  // All three become ready when l1 finishes at 1000 and compete for cpu 0: the send goes
  // first (1000..2500), then the recv is posted (at 1000, costs nothing), then the calc
  // (2500..2600), although the calc comes first in the rank.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: calc 1000
l2: calc 100
l3: recv 1b from 1
l4: send 1b to 1
l2 requires l1
l3 requires l1
l4 requires l1
}
rank 1 {
l1: recv 1b from 0
l2: send 1b to 0
}
)");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_start[3], 1000u);
  EXPECT_EQ(r.op_start[2], 1000u);
  EXPECT_EQ(r.op_start[1], 2500u);
}

// --- matching ----------------------------------------------------------------------------

TEST(LogGOPS, WildcardsMatchByPostingOrder) {
  // Both messages reach rank 2 at 4000; rank 0's (queued first) is taken first and matches
  // the second receive (any tag from 0), not the first (tag 7 only). Rank 1's waits for
  // the cpu until 4000 + 1500 + 7*6 = 5542, then matches the first receive.
  const auto r = run(R"(num_ranks 3
rank 0 {
l1: send 8b to 2 tag 5
}
rank 1 {
l1: send 8b to 2 tag 7
}
rank 2 {
l1: recv 8b from -1 tag 7
l2: recv 8b from 0 tag -1
}
)");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_end[2], 5542u);
  EXPECT_EQ(r.op_end[3], 4000u);
  EXPECT_EQ(r.rank_finish[2], 7084u);
}

TEST(LogGOPS, AMessageBeforeItsReceiveWaitsAsUnexpected) {
  // Rank 1's cpu computes until 10000; the message (arrived at 4000) is taken in then, finds
  // no receive and waits; the receive, posted at 10000, takes it at once.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: send 8b to 1
}
rank 1 {
l1: calc 10000
l2: recv 8b from -1 tag -1
l2 requires l1
}
)");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.op_start[2], 10000u);
  EXPECT_EQ(r.op_end[2], 10000u);
  EXPECT_EQ(r.rank_finish[1], 10000u + 1500u + 42u);
}

// --- what does not finish ----------------------------------------------------------------

TEST(LogGOPS, ADeadlockThroughMessagesIsReportedOpByOp) {
  // Each rank receives before it sends: both receives wait forever.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: recv 8b from 1 tag 1
l2: send 8b to 1 tag 1
l2 requires l1
}
rank 1 {
l1: recv 8b from 0 tag 1
l2: send 8b to 0 tag 1
l2 requires l1
}
)");
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.ops_completed, 0u);
  EXPECT_EQ(r.num_blocked, 4u);
  ASSERT_EQ(r.blocked.size(), 4u);
  for (goal::RankId rank = 0; rank < 2; ++rank) {
    const BlockedOp& recv = r.blocked[2 * rank];
    EXPECT_EQ(recv.rank, rank);
    EXPECT_EQ(recv.op, 0u);
    EXPECT_EQ(recv.kind, OpKind::Recv);
    EXPECT_EQ(recv.peer, 1 - rank);
    EXPECT_EQ(recv.tag, 1u);
    EXPECT_EQ(recv.reason, BlockReason::NoMatchingSend);
    const BlockedOp& send = r.blocked[2 * rank + 1];
    EXPECT_EQ(send.op, 1u);
    EXPECT_EQ(send.kind, OpKind::Send);
    EXPECT_EQ(send.reason, BlockReason::Prerequisites);
    EXPECT_EQ(send.unfinished_requires, std::vector<goal::LocalOp>{0});
  }
  EXPECT_TRUE(r.unmatched.empty());
  const std::string text = describe_unfinished(r);
  EXPECT_NE(text.find("rank 1 op 0 (recv 8b from 0 tag 1): no matching send"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 0 op 1 (send 8b to 1 tag 1): waits for prerequisites; requires unfinished ops 0"),
            std::string::npos)
      << text;
}

TEST(LogGOPS, AReceiveNobodySendsIsReportedAndTheMessageItMissedToo) {
  // Rank 0 sends with tag 8; rank 1 waits for tag 9: the receive never matches, the
  // message stays unexpected at rank 1 (arrived at 4000), the calc after the receive never
  // runs, and the calc that irequires it does.
  const auto r = run(R"(num_ranks 2
rank 0 {
l1: send 4b to 1 tag 8
}
rank 1 {
l1: recv 4b from 0 tag 9
l2: calc 10
l2 requires l1
l3: calc 20
l3 irequires l1
l4: calc 30
l4 irequires l2
}
)");
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.num_blocked, 3u);
  ASSERT_EQ(r.blocked.size(), 3u);
  EXPECT_EQ(r.blocked[0].op, 0u);
  EXPECT_EQ(r.blocked[0].reason, BlockReason::NoMatchingSend);
  EXPECT_EQ(r.blocked[1].op, 1u);
  EXPECT_EQ(r.blocked[1].unfinished_requires, std::vector<goal::LocalOp>{0});
  EXPECT_EQ(r.blocked[2].op, 3u);
  EXPECT_EQ(r.blocked[2].unstarted_irequires, std::vector<goal::LocalOp>{1});
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_EQ(r.unmatched[0].from, 0u);
  EXPECT_EQ(r.unmatched[0].to, 1u);
  EXPECT_EQ(r.unmatched[0].send, 0u);
  EXPECT_EQ(r.unmatched[0].tag, 8u);
  EXPECT_EQ(r.unmatched[0].size, 4u);
  EXPECT_EQ(r.unmatched[0].arrival, 4000u);
  EXPECT_NE(r.op_end[3], kNever);
  EXPECT_EQ(r.op_start[2], kNever);
}

TEST(LogGOPS, AnUnexpectedMessageLeftOverMakesTheRunIncomplete) {
  // Every op finishes (the eager send is done when handed over), but rank 1 never receives.
  const auto r = run("num_ranks 2\nrank 0 {\nl1: send 16b to 1 tag 4\n}\nrank 1 {\nl1: calc 5\n}\n");
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.num_blocked, 0u);
  EXPECT_EQ(r.ops_completed, 2u);
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_EQ(r.unmatched[0].tag, 4u);
  EXPECT_NE(describe_unfinished(r).find("rank 1 holds 16b from rank 0 tag 4"), std::string::npos);
}

TEST(LogGOPS, AnUnmatchedRendezvousSendIsBlocked) {
  const auto r = run("num_ranks 2\nrank 0 {\nl1: send 70000b to 1 tag 4\n}\nrank 1 {\n}\n");
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(r.blocked.size(), 1u);
  EXPECT_EQ(r.blocked[0].reason, BlockReason::NoMatchingRecv);
  EXPECT_EQ(r.unmatched.size(), 1u);
}

TEST(LogGOPS, TheReportCanBeCapped) {
  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  for (int i = 0; i < 100; ++i) b.add(goal::Op::recv(1, 0, 1));
  b.end_rank();
  LogGOPSOptions options;
  options.max_reported_blocked = 10;
  const auto r = simulate_loggops(b.finish(), {}, options);
  EXPECT_EQ(r.num_blocked, 100u);
  EXPECT_EQ(r.blocked.size(), 10u);
  EXPECT_NE(describe_unfinished(r, 3).find("... and 97 more"), std::string::npos);
}

TEST(LogGOPS, AnEmptyScheduleIsComplete) {
  const auto r = simulate_loggops(parse("num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\nrank 2 {\n}\n"), {});
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.makespan, 0u);
  EXPECT_EQ(r.rank_finish.size(), 3u);
  EXPECT_TRUE(describe_unfinished(r).empty());
}

// --- the real samples --------------------------------------------------------------------

// The makespans LogGOPSim prints for these files with its defaults, derived by hand:
//
// loggopsim_schedgen2_bcast_8 (8 B: (s-1)G = 42). Critical path 0 -> 1 -> 3 -> 7, each
//   hop's send the sender's first: a rank free at F sends at F, the message arrives at
//   F + 4000 and the receiver is free at F + 4000 + 1542 = F + 5542: 3 * 5542 = 16626.
//   Rank 0 sends three times, o = 1500 apart (o > g + 42): free at 4500. Ranks 4, 2, 1 get
//   rank 0's sends started at 3000, 1500, 0 and are free at 8542, 7042 (then sends: 8542),
//   5542 (then sends twice: 8542); 5 and 6 get first/second sends at 7042: 12584.
// loggopsim_binary_tree_16 (1 B). Same recursion with F + 5500; rank 15's path
//   0 -> 1 -> 3 -> 7 -> 15 uses only first sends: 4 * 5500 = 22000.
// loggopsim2_binomialtreebcast_128_1024 (1 KiB: (s-1)G = 6138). A hop costs
//   4000 + 1500 + 6138 = 11638 and a later send of a rank g + 6138 = 7138 more per send
//   before it (the NIC, not o, spaces them). Rank 127's path 0 -> 1 -> 3 -> ... -> 127
//   takes seven first sends: 7 * 11638 = 81466; every other rank's path trades hops for
//   later sends and ends earlier (126: 6 * 11638 + 7138 = 76966).
// loggopsim2_tests_scripts_schedule_4 (a dissemination round between calcs of
//   (r+1) us before and (7-r) us after): traced event by event in the test below.
struct Sample {
  const char* file;
  std::uint64_t makespan;
  goal::RankId rank;
};

class LogGOPSSample : public ::testing::TestWithParam<Sample> {};

TEST_P(LogGOPSSample, MakespanIsLogGOPSims) {
  const Sample s = GetParam();
  const auto r = simulate_loggops(goal::load_schedule(example(s.file)), {});
  EXPECT_TRUE(r.complete) << describe_unfinished(r);
  EXPECT_EQ(r.makespan, s.makespan);
  EXPECT_EQ(r.makespan_rank, s.rank);
  EXPECT_EQ(r.ops_completed, goal::load_schedule(example(s.file)).num_ops());
}

INSTANTIATE_TEST_SUITE_P(Examples, LogGOPSSample,
                         ::testing::Values(Sample{"loggopsim_schedgen2_bcast_8.goal", 16626, 7},
                                           Sample{"loggopsim_binary_tree_16.goal", 22000, 15},
                                           Sample{"loggopsim2_binomialtreebcast_128_1024.goal", 81466, 127},
                                           Sample{"loggopsim2_tests_scripts_schedule_4.goal", 20000, 0}));

TEST(LogGOPS, SchedgenBroadcastPerRankTimes) {
  const auto r = simulate_loggops(goal::load_schedule(example("loggopsim_schedgen2_bcast_8.goal")), {});
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{4500, 8542, 8542, 12584, 8542, 12584, 12584, 16626}));
}

TEST(LogGOPS, DisseminationRoundPerRankTimes) {
  // Rank r: calc (r+1)*1000, then sends to r+1 and posts receives from r-1 and r-2; on the
  // first message it sends to r+2; after everything, calc 0 and calc (7-r)*1000.
  //   r0: send at 1000 (msg at 5000 on r1); receives r3's at 8000 -> cpu 9500, sends to 2
  //       (msg at 13500); receives r2's at 11500 -> cpu 13000: calcs to 20000.
  //   r1: send at 2000; r0's msg at 5000 -> 6500, sends to 3 (msg 10500); r3's at 12500
  //       -> 14000: calcs to 20000.
  //   r2: send 3000; r1's at 6000 -> 7500, sends to 0 (11500); r0's at 13500 -> 15000 -> 20000.
  //   r3: send 4000; r2's at 7000 -> 8500, sends to 1 (12500); r1's at 10500 -> 12000 -> 16000.
  const auto r = simulate_loggops(goal::load_schedule(example("loggopsim2_tests_scripts_schedule_4.goal")), {});
  EXPECT_EQ(r.rank_finish, (std::vector<std::uint64_t>{20000, 20000, 20000, 16000}));
}

}  // namespace
}  // namespace collsim::exec
