// The engine: event order as models see it, the end of a run, the errors a model can make,
// and (through a test-double transport playing rank 0 of two) what crosses to another rank.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collsim/pdes/engine.hpp"
#include "collsim/pdes/simulation_error.hpp"
#include "pdes_test_util.hpp"

namespace collsim::pdes {
namespace {

using testing::expect_error;

LpGraph unlinked(std::uint32_t n) {
  LpGraph g;
  g.num_lps = n;
  return g;
}
Partition one_rank(std::uint32_t n) { return {1, std::vector<std::uint32_t>(n, 0)}; }

// ---------------------------------------------------------------------------------------
// Ping-pong: two players hit a ball back and forth, each return `delay` after the hit.

struct Ball {
  std::uint32_t n;
};

class Player final : public LogicalProcess {
 public:
  Player(LpId peer, SimTime delay, bool serves) : peer_(peer), delay_(delay), serves_(serves) {}
  void start() override {
    if (serves_) schedule<&Player::hit>(peer_, delay_, Ball{0});
  }
  void hit(const Ball& b) {
    times.push_back(now());
    balls.push_back(b.n);
    schedule<&Player::hit>(peer_, delay_, Ball{b.n + 1});
  }
  std::vector<SimTime> times;
  std::vector<std::uint32_t> balls;
  using Handlers = pdes::Handlers<&Player::hit>;

 private:
  LpId peer_;
  SimTime delay_;
  bool serves_;
};

// A ping-pong run on its own transport and engine: LP 0 serves to LP 1.
struct Rally {
  Rally(SimTime delay, SimTime end, QueueKind queue = QueueKind::QuaternaryHeap)
      : transport(make_local_transport()),
        engine(unlinked(2), one_rank(2), *transport, {1, end, queue}),
        server(engine.emplace<Player>(0, 1, delay, true)),
        receiver(engine.emplace<Player>(1, 0, delay, false)) {}
  std::unique_ptr<Transport> transport;
  Engine engine;
  Player& server;
  Player& receiver;
  RunStats stats;
  void run() { stats = engine.run(); }
};

std::vector<SimTime> ns_times(std::initializer_list<std::int64_t> ns) {
  std::vector<SimTime> out;
  for (const std::int64_t t : ns) out.push_back(SimTime::ns(t));
  return out;
}

class EveryQueueKind : public ::testing::TestWithParam<QueueKind> {};

TEST_P(EveryQueueKind, PingPongUpToAndIncludingTheEndTime) {
  // d = 7 ns, end = 10 d: hits at 7, 14, ..., 70 ns; the one due at 77 ns is not played.
  // LP 1 takes the odd multiples with balls 0, 2, ..., 8; LP 0 the even ones with 1, ..., 9.
  Rally r(SimTime::ns(7), SimTime::ns(70), GetParam());
  r.run();
  EXPECT_EQ(r.receiver.times, ns_times({7, 21, 35, 49, 63}));
  EXPECT_EQ(r.server.times, ns_times({14, 28, 42, 56, 70}));
  EXPECT_EQ(r.receiver.balls, (std::vector<std::uint32_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(r.server.balls, (std::vector<std::uint32_t>{1, 3, 5, 7, 9}));
  EXPECT_EQ(r.stats.events, 10u);
  EXPECT_EQ(r.stats.end_time, SimTime::ns(70));
  // One rank: nothing is cut, the lookahead is infinite and there is a single window.
  EXPECT_EQ(r.stats.windows, 1u);
  EXPECT_EQ(r.stats.critical_events, r.stats.events);
  EXPECT_EQ(r.stats.lookahead, SimTime::infinity());
  EXPECT_EQ(r.stats.ranks, 1u);
  EXPECT_EQ(r.stats.remote_events, 0u);
  ASSERT_EQ(r.stats.per_rank.size(), 1u);
  EXPECT_EQ(r.stats.per_rank[0].events, 10u);
  EXPECT_EQ(r.stats.per_rank[0].lps, 2u);
  EXPECT_EQ(r.stats.per_rank[0].remote_sent, 0u);
  EXPECT_EQ(r.stats.per_rank[0].max_queue, 1u);  // one ball in play at any time

  // One picosecond earlier the hit at 70 ns is past the end: 9 events, the last at 63 ns.
  Rally early(SimTime::ns(7), SimTime::ns(70) - SimTime::ps(1), GetParam());
  early.run();
  EXPECT_EQ(early.stats.events, 9u);
  EXPECT_EQ(early.stats.end_time, SimTime::ns(63));
  EXPECT_EQ(early.server.times, ns_times({14, 28, 42, 56}));
}

// ---------------------------------------------------------------------------------------
// Same-time order: senders wake up in an order unrelated to their ids and then schedule
// several events each for one recorder, all for t = 10 ns, with mixed priorities.

struct Mark {
  std::uint32_t source;
  std::uint32_t tag;
  std::uint32_t priority;
};

class Recorder final : public LogicalProcess {
 public:
  void note(const Mark& m) {
    seen.push_back(m);
    times.push_back(now());
  }
  std::vector<Mark> seen;
  std::vector<SimTime> times;
  using Handlers = pdes::Handlers<&Recorder::note>;
};

// The priorities of a sender's events, in the order it schedules them (tags 0..4).
constexpr Priority kTagPriority[] = {1, 0, 1, 2, 0};

class Sender final : public LogicalProcess {
 public:
  explicit Sender(SimTime wake) : wake_(wake) {}
  void start() override { schedule<&Sender::wake>(id(), wake_); }
  void wake() {
    for (std::uint32_t tag = 0; tag < 5; ++tag)
      schedule<&Recorder::note>(0, SimTime::ns(10) - now(), Mark{id(), tag, kTagPriority[tag]}, kTagPriority[tag]);
  }
  using Handlers = pdes::Handlers<&Sender::wake>;

 private:
  SimTime wake_;
};

TEST_P(EveryQueueKind, SameTimeEventsComeByPriorityThenSourceThenSequence) {
  // LP 0 records; LPs 1..4 wake at 3, 2, 4 and 1 ns: they run in the order 4, 2, 1, 3.
  const auto transport = make_local_transport();
  Engine e(unlinked(5), one_rank(5), *transport, {1, SimTime::infinity(), GetParam()});
  auto& recorder = e.emplace<Recorder>(0);
  const std::int64_t wake_ns[] = {0, 3, 2, 4, 1};
  for (LpId lp = 1; lp <= 4; ++lp) e.emplace<Sender>(lp, SimTime::ns(wake_ns[lp]));
  e.run();
  // Priority 0 first: tags 1 and 4 of LP 1, then of LP 2, 3, 4; then priority 1 (tags 0
  // and 2) of LPs 1..4; then priority 2 (tag 3). Within a sender, tags are in scheduling
  // (sequence) order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> expected;  // (source, tag)
  for (const std::uint32_t priority : {0u, 1u, 2u})
    for (std::uint32_t source = 1; source <= 4; ++source)
      for (std::uint32_t tag = 0; tag < 5; ++tag)
        if (std::uint32_t{kTagPriority[tag]} == priority) expected.emplace_back(source, tag);
  ASSERT_EQ(expected.size(), 20u);
  ASSERT_EQ(expected[0], std::make_pair(1u, 1u));
  ASSERT_EQ(expected[2], std::make_pair(2u, 1u));
  ASSERT_EQ(recorder.seen.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(recorder.seen[i].source, expected[i].first) << "event " << i;
    EXPECT_EQ(recorder.seen[i].tag, expected[i].second) << "event " << i;
    EXPECT_EQ(recorder.times[i], SimTime::ns(10));
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryQueueKind, ::testing::Values(QueueKind::QuaternaryHeap, QueueKind::Calendar, QueueKind::Radix),
                         [](const ::testing::TestParamInfo<QueueKind>& kind) { return std::string(to_string(kind.param)); });

// ---------------------------------------------------------------------------------------
// An LP whose behaviour each test writes as lambdas, and which logs what it handles.

struct Blob {
  std::uint8_t bytes[20];
};

class Scripted final : public LogicalProcess {
 public:
  Scripted() = default;
  // An LP whose state promises nothing before `state_bound` (see state_output_bound).
  explicit Scripted(SimTime state) : state_bound(state) {}
  void start() override {
    if (on_start) on_start(*this);
  }
  void poke() {
    log.push_back("poke@" + format_duration(now()));
    if (on_poke) on_poke(*this);
  }
  void mark(const Mark& m) { log.push_back("mark " + std::to_string(m.tag) + "@" + format_duration(now())); }
  void take(const Blob&) { log.push_back("blob@" + format_duration(now())); }

  // Promises: by default the engine's (time plus distance to the other rank).
  SimTime output_bound(const EventBody& event, SimTime at) const override {
    return bound ? bound(event, at) : LogicalProcess::output_bound(event, at);
  }
  SimTime state_output_bound(SimTime floor, SimTime cap) const override {
    floors.push_back(floor);
    return std::min(cap, state_bound);
  }
  bool has_state_output() const override { return state_bound != SimTime::infinity(); }
  SimTime distance() const { return distance_to_other_ranks(); }

  // schedule() and random() are for the LP itself; the scripts call them through these.
  template <auto Method>
  void send(LpId target, SimTime delay) {
    schedule<Method>(target, delay);
  }
  template <auto Method, typename P>
  void send(LpId target, SimTime delay, const P& payload, Priority priority = 0) {
    schedule<Method>(target, delay, payload, priority);
  }
  RandomStream& stream() { return random(); }

  std::function<void(Scripted&)> on_start, on_poke;
  std::function<SimTime(const EventBody&, SimTime)> bound;
  SimTime state_bound = SimTime::infinity();  // set before installing
  mutable std::vector<SimTime> floors;       // what state_output_bound() was asked
  std::vector<std::string> log;
  using Handlers = pdes::Handlers<&Scripted::poke, &Scripted::mark, &Scripted::take>;
};

// Another LP class whose only handler has index 0, like Scripted::poke.
class Other final : public LogicalProcess {
 public:
  void ping() {}
  using Handlers = pdes::Handlers<&Other::ping>;
};

std::vector<Scripted*> install_scripted(Engine& engine) {
  std::vector<Scripted*> out;
  for (const LpId id : engine.local_lps()) out.push_back(&engine.emplace<Scripted>(id));
  return out;
}

TEST(Engine, NegativeDelayNamesTheLpAndBothTimes) {
  const auto transport = make_local_transport();
  Engine engine(unlinked(4), one_rank(4), *transport);
  auto lps = install_scripted(engine);
  lps[3]->on_start = [](Scripted& self) { self.send<&Scripted::poke>(3, SimTime::ns(5)); };
  lps[3]->on_poke = [](Scripted& self) { self.send<&Scripted::poke>(1, SimTime::ns(-2)); };
  // At t = 5 ns LP 3 asks for 5 - 2 = 3 ns.
  expect_error<SimulationError>([&] { engine.run(); }, {"LP 3", "t=3ns", "t=5ns", "negative delay"});
}

TEST(Engine, EventForAnLpOfAnotherClassFailsOnDelivery) {
  const auto transport = make_local_transport();
  Engine engine(unlinked(2), one_rank(2), *transport);
  auto& scripted = engine.emplace<Scripted>(0);
  engine.emplace<Other>(1);
  // Scripted::poke has the same index (0) as Other::ping: only the class tag can tell.
  scripted.on_start = [](Scripted& self) { self.send<&Scripted::poke>(1, SimTime::ns(1)); };
  expect_error<SimulationError>([&] { engine.run(); }, {"from LP 0", "of LP 1", "another class"});

  const auto transport2 = make_local_transport();
  Engine engine2(unlinked(2), one_rank(2), *transport2);
  auto& other_side = engine2.emplace<Scripted>(1);
  engine2.emplace<Other>(0);
  other_side.on_start = [](Scripted& self) { self.send<&Other::ping>(1, SimTime::zero()); };
  expect_error<SimulationError>([&] { engine2.run(); }, {"of LP 1", "another class"});
}

TEST(Engine, EventForANonexistentLpFails) {
  const auto transport = make_local_transport();
  Engine engine(unlinked(2), one_rank(2), *transport);
  auto lps = install_scripted(engine);
  lps[0]->on_start = [](Scripted& self) { self.send<&Scripted::poke>(7, SimTime::ns(1)); };
  expect_error<SimulationError>([&] { engine.run(); }, {"LP 0", "LP 7", "does not exist"});
}

TEST(Engine, EveryOwnedLpMustBeInstalledOnceAndOnlyThose) {
  const auto transport = make_local_transport();
  Engine engine(unlinked(2), one_rank(2), *transport);
  auto& zero = engine.emplace<Scripted>(0);
  expect_error<std::invalid_argument>([&] { engine.run(); }, {"LP 1", "never installed"});
  expect_error<std::invalid_argument>([&] { engine.lp(1); }, {"LP 1", "not installed"});
  expect_error<std::invalid_argument>([&] { engine.emplace<Scripted>(0); }, {"LP 0", "installed twice"});
  expect_error<std::invalid_argument>([&] { engine.emplace<Scripted>(2); }, {"LP 2", "no such LP"});
  EXPECT_EQ(&engine.lp(0), &zero);
  EXPECT_EQ(engine.lp(0).id(), 0u);
}

TEST(Engine, EachLpDrawsFromItsOwnSeededStream) {
  // An LP's stream is RandomStream(run seed, LP id), wherever the LP runs.
  const auto transport = make_local_transport();
  Engine engine(unlinked(4), one_rank(4), *transport, {42, SimTime::infinity(), QueueKind::QuaternaryHeap});
  auto lps = install_scripted(engine);
  std::vector<std::uint64_t> first(4);
  for (LpId id = 0; id < 4; ++id) lps[id]->on_start = [&first, id](Scripted& self) { first[id] = self.stream().next_u64(); };
  const RunStats stats = engine.run();
  for (LpId id = 0; id < 4; ++id) EXPECT_EQ(first[id], RandomStream(42, id).next_u64()) << "LP " << id;
  // Nothing was scheduled: no events, no window, and the clock never moved.
  EXPECT_EQ(stats.events, 0u);
  EXPECT_EQ(stats.windows, 0u);
  EXPECT_EQ(stats.end_time, SimTime::zero());
}

TEST(Engine, TwoEnginesInOneProcessAreIndependent) {
  // Alone: d = 7 ns to 70 ns gives 10 hits (see PingPongUpToAndIncludingTheEndTime); d = 3 ns to 100 ns gives hits
  // at 3, 6, ..., 99 ns: 33.
  Rally alone_a(SimTime::ns(7), SimTime::ns(70));
  alone_a.run();
  Rally alone_b(SimTime::ns(3), SimTime::ns(100));
  alone_b.run();
  EXPECT_EQ(alone_b.stats.events, 33u);
  EXPECT_EQ(alone_b.stats.end_time, SimTime::ns(99));
  // Both alive at once, run one after the other and then (fresh ones) on two threads.
  for (const bool threads : {false, true}) {
    Rally a(SimTime::ns(7), SimTime::ns(70)), b(SimTime::ns(3), SimTime::ns(100));
    if (threads) {
      std::thread ta([&] { a.run(); }), tb([&] { b.run(); });
      ta.join();
      tb.join();
    } else {
      b.run();
      a.run();
    }
    EXPECT_EQ(a.stats.events, 10u);
    EXPECT_EQ(b.stats.events, 33u);
    EXPECT_EQ(a.server.times, alone_a.server.times);
    EXPECT_EQ(a.receiver.balls, alone_a.receiver.balls);
    EXPECT_EQ(b.server.times, alone_b.server.times);
    EXPECT_EQ(b.receiver.times, alone_b.receiver.times);
  }
}

// ---------------------------------------------------------------------------------------
// Two ranks in one process: this transport plays rank 0 of 2. It keeps what the engine
// sends to rank 1 and delivers what a test scripts for "rank 1" to send, one batch per
// exchange; the earliest pending time is the engine's own or that of a delivered event.

class RankZeroOfTwo final : public Transport {
 public:
  std::uint32_t rank() const override { return 0; }
  std::uint32_t size() const override { return 2; }
  WindowSummary exchange(std::vector<std::vector<RemoteEvent>>& outbox, WindowSummary mine,
                         std::vector<RemoteEvent>& inbox, std::span<std::uint64_t>,
                         std::span<SimTime> outputs) override {
    const SimTime local_next = mine.next;
    outputs_offered.push_back(mine.output);
    window_events.push_back(mine.events);
    EXPECT_EQ(outbox.size(), 2u);
    EXPECT_TRUE(outbox[0].empty()) << "an event for this rank went through the outbox";
    sent.insert(sent.end(), outbox[1].begin(), outbox[1].end());
    outbox[1].clear();
    local_nexts.push_back(local_next);
    SimTime next = local_next;
    if (exchanges_ < script.size()) {
      for (const RemoteEvent& ev : script[exchanges_]) {
        inbox.push_back(ev);
        next = std::min(next, ev.key.time);
      }
    }
    // "Rank 1" promises what the script says, or else the earliest it sends next.
    SimTime theirs_output = SimTime::infinity();
    if (exchanges_ < rank_one_outputs.size()) {
      theirs_output = rank_one_outputs[exchanges_];
    } else if (exchanges_ + 1 < script.size()) {
      for (const RemoteEvent& ev : script[exchanges_ + 1]) theirs_output = std::min(theirs_output, ev.key.time);
    }
    SimTime sent_any = mine.sent;
    if (exchanges_ < script.size())
      for (const RemoteEvent& ev : script[exchanges_]) sent_any = std::min(sent_any, ev.key.time);
    outputs[0] = mine.output;
    outputs[1] = theirs_output;
    ++exchanges_;
    const std::uint64_t theirs = exchanges_ <= rank_one_events.size() ? rank_one_events[exchanges_ - 1] : 0;
    WindowSummary agreed;
    agreed.next = next;
    agreed.events = std::max(mine.events, theirs);
    agreed.sent = sent_any;
    return agreed;
  }
  std::vector<std::byte> gather(std::span<const std::byte> mine) override { return {mine.begin(), mine.end()}; }
  void max_all(std::span<double>) override {}
  void sum_all(std::span<double>) override {}
  void max_integers(std::span<std::int64_t>) override {}
  void sum_integers(std::span<std::uint64_t>) override {}

  std::vector<RemoteEvent> sent;
  std::vector<SimTime> local_nexts;                   // what the engine offered, per exchange
  std::vector<std::vector<RemoteEvent>> script;       // what "rank 1" sends, per exchange
  std::vector<std::uint64_t> window_events;           // what the engine reported, per exchange
  std::vector<std::uint64_t> rank_one_events;         // what "rank 1" processed, per exchange
  std::vector<SimTime> rank_one_outputs;              // what "rank 1" promised, per exchange
  std::vector<SimTime> outputs_offered;               // what the engine promised, per exchange

 private:
  std::size_t exchanges_ = 0;
};

// LP 0 on rank 0, LP 1 on rank 1, joined by a 100 ns link: the lookahead is 100 ns.
LpGraph linked_pair(SimTime latency) {
  LpGraph g;
  g.num_lps = 2;
  g.edges = {{0, 1, latency}};
  return g;
}
const Partition kSplit{2, {0, 1}};

// An event as "rank 1" would send it: from LP 1 to a Scripted LP's mark handler.
RemoteEvent remote_mark(SimTime t, LpId target, std::uint64_t sequence, std::uint32_t tag) {
  RemoteEvent ev{};
  ev.key = {t, EventKey::make_origin(0, 1), sequence};
  ev.body.target = target;
  ev.body.lp_class = detail::class_tag<Scripted>;
  ev.body.handler = 1;
  const Mark m{1, tag, 0};
  std::memcpy(ev.body.payload, &m, sizeof m);
  return ev;
}

TEST(TwoRanks, EngineOwnsItsShareAndKnowsTheLookahead) {
  RankZeroOfTwo transport;
  Engine engine(linked_pair(SimTime::ns(100)), kSplit, transport);
  EXPECT_EQ(engine.num_ranks(), 2u);
  EXPECT_TRUE(engine.owns(0));
  EXPECT_FALSE(engine.owns(1));
  EXPECT_FALSE(engine.owns(2));
  ASSERT_EQ(engine.local_lps().size(), 1u);
  EXPECT_EQ(engine.local_lps()[0], 0u);
  EXPECT_EQ(engine.lookahead(), SimTime::ns(100));
  expect_error<std::invalid_argument>([&] { engine.emplace<Scripted>(1); }, {"LP 1 is not owned by rank 0"});
}

TEST(TwoRanks, ConstructionChecksThePartition) {
  RankZeroOfTwo transport;
  // A zero-latency link cut between the ranks leaves no lookahead.
  expect_error<std::invalid_argument>([&] { Engine e(linked_pair(SimTime::zero()), kSplit, transport); },
                                      {"LP 0 (rank 0)", "LP 1 (rank 1)"});
  // A partition for another number of ranks than the transport has.
  expect_error<std::invalid_argument>([&] { Engine e(linked_pair(SimTime::ns(1)), {1, {0, 0}}, transport); },
                                      {"for 1 ranks", "has 2"});
  const auto local = make_local_transport();
  expect_error<std::invalid_argument>([&] { Engine e(linked_pair(SimTime::ns(1)), kSplit, *local); },
                                      {"for 2 ranks", "has 1"});
}

TEST(TwoRanks, EventInsideTheLookaheadIsRefused) {
  // At t = 50 ns the window is [50, 150) ns: an event for rank 1 at 50 + 99.999 ns could
  // arrive after rank 1 has passed it.
  RankZeroOfTwo transport;
  Engine engine(linked_pair(SimTime::ns(100)), kSplit, transport);
  auto& lp = engine.emplace<Scripted>(0);
  lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(0, SimTime::ns(50)); };
  lp.on_poke = [](Scripted& self) { self.send<&Scripted::mark>(1, SimTime::ns(100) - SimTime::ps(1), Mark{0, 0, 0}); };
  expect_error<SimulationError>([&] { engine.run(); },
                                {"LP 0 (rank 0)", "LP 1 (rank 1)", "t=149.999ns", "before t=150ns",
                                 "earliest this rank promised", "now t=50ns", "lookahead 100ns"});
  EXPECT_TRUE(transport.sent.empty());
}

TEST(TwoRanks, EventAtTheLookaheadGoesToTheOtherRanksOutbox) {
  RankZeroOfTwo transport;
  transport.rank_one_events = {0, 0, 5};
  Engine engine(linked_pair(SimTime::ns(100)), kSplit, transport);
  auto& lp = engine.emplace<Scripted>(0);
  Blob blob;
  for (std::uint8_t i = 0; i < 20; ++i) blob.bytes[i] = static_cast<std::uint8_t>(7 * i + 1);
  lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(0, SimTime::ns(50)); };  // LP 0's sequence 0
  lp.on_poke = [&blob](Scripted& self) { self.send<&Scripted::take>(1, SimTime::ns(100), blob, 3); };  // sequence 1
  const RunStats stats = engine.run();

  ASSERT_EQ(transport.sent.size(), 1u);
  const RemoteEvent& ev = transport.sent[0];
  EXPECT_EQ(ev.key.time, SimTime::ns(150));  // 50 ns + 100 ns
  EXPECT_EQ(ev.key.origin, (std::uint64_t{3} << 32) | 0u);
  EXPECT_EQ(ev.key.sequence, 1u);
  EXPECT_EQ(ev.body.target, 1u);
  EXPECT_EQ(std::uint32_t{ev.body.handler}, 2u);  // take is third in Scripted's Handlers
  EXPECT_EQ(std::uint32_t{ev.body.lp_class}, detail::class_tag<Scripted>);
  EXPECT_EQ(std::memcmp(ev.body.payload, blob.bytes, 20), 0);

  // Exchanges: first the pending poke (50 ns); then only the event just sent (150 ns),
  // which opens a second window for rank 1; then nothing.
  EXPECT_EQ(transport.local_nexts, (std::vector<SimTime>{SimTime::ns(50), SimTime::ns(150), SimTime::infinity()}));
  EXPECT_EQ(stats.windows, 2u);
  EXPECT_EQ(stats.events, 1u);
  // The poke in the first window; "rank 1" busier in the second, with its 5 events.
  EXPECT_EQ(transport.window_events, (std::vector<std::uint64_t>{0, 1, 0}));
  EXPECT_EQ(stats.critical_events, 6u);
  EXPECT_EQ(stats.remote_events, 1u);
  EXPECT_EQ(stats.lookahead, SimTime::ns(100));
  EXPECT_EQ(stats.end_time, SimTime::ns(50));
  EXPECT_EQ(lp.log, (std::vector<std::string>{"poke@50ns"}));
}

TEST(TwoRanks, ReceivedEventsJoinTheLocalOrder) {
  // Rank 1 sends (40 ns, LP 1, seq 4) and (50 ns, LP 1, seq 5); LP 0 pokes itself at
  // 50 ns (origin LP 0). At 50 ns LP 0's own event comes first: source 0 < source 1.
  RankZeroOfTwo transport;
  transport.script = {{remote_mark(SimTime::ns(50), 0, 5, 5), remote_mark(SimTime::ns(40), 0, 4, 4)}};
  Engine engine(linked_pair(SimTime::ns(100)), kSplit, transport);
  auto& lp = engine.emplace<Scripted>(0);
  lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(0, SimTime::ns(50)); };
  const RunStats stats = engine.run();
  EXPECT_EQ(lp.log, (std::vector<std::string>{"mark 4@40ns", "poke@50ns", "mark 5@50ns"}));
  EXPECT_EQ(stats.events, 3u);
  EXPECT_EQ(stats.end_time, SimTime::ns(50));
}

TEST(TwoRanks, ReceivedEventsAreChecked) {
  {
    // For an LP this rank does not own.
    RankZeroOfTwo transport;
    transport.script = {{remote_mark(SimTime::ns(500), 1, 0, 0)}};
    Engine engine(linked_pair(SimTime::ns(100)), kSplit, transport);
    engine.emplace<Scripted>(0);
    expect_error<SimulationError>([&] { engine.run(); }, {"rank 0 received an event for LP 1", "does not own"});
  }
  {
    // "Rank 1" promised 500 ns, so rank 0's window was [50, 250) ns (its own poke at 50 ns
    // may reach rank 1 at 150 ns, and rank 1 answer at 250 ns); then rank 1 broke its promise.
    RankZeroOfTwo transport;
    transport.script = {{}, {remote_mark(SimTime::ns(120), 0, 0, 0)}};
    transport.rank_one_outputs = {SimTime::ns(500)};
    Engine engine(linked_pair(SimTime::ns(100)), kSplit, transport);
    auto& lp = engine.emplace<Scripted>(0);
    lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(0, SimTime::ns(50)); };
    expect_error<SimulationError>([&] { engine.run(); }, {"at t=120ns", "window just processed (t=250ns)"});
  }
}

// ---------------------------------------------------------------------------------------
// Promises: how far a rank's window reaches when the LPs can tell that their pending work
// stays on their rank for a while.

// Three LPs in a line, 0 -- 1 -- 2, with 100 ns and 300 ns links; LPs 0 and 1 on rank 0.
LpGraph line_of_three() {
  LpGraph g;
  g.num_lps = 3;
  g.edges = {{0, 1, SimTime::ns(300)}, {1, 2, SimTime::ns(100)}};
  return g;
}
const Partition kTwoThenOne{2, {0, 0, 1}};

TEST(Promises, AnLpFartherFromTheCutPromisesLater) {
  // LP 0's poke at 50 ns could reach rank 1 no sooner than 50 + 300 + 100 ns; rank 1 has
  // nothing pending and promises nothing, so it could answer at 450 + 100 ns at the earliest:
  // rank 0's window runs to 550 ns, not to 50 + 100 ns.
  RankZeroOfTwo transport;
  Engine engine(line_of_three(), kTwoThenOne, transport);
  auto& far = engine.emplace<Scripted>(0);
  auto& near = engine.emplace<Scripted>(1);
  EXPECT_EQ(far.distance(), SimTime::ns(400));
  EXPECT_EQ(near.distance(), SimTime::ns(100));
  far.on_start = [](Scripted& self) {
    self.send<&Scripted::poke>(0, SimTime::ns(50));
    self.send<&Scripted::poke>(0, SimTime::ns(520));
    self.send<&Scripted::poke>(0, SimTime::ns(560));
  };
  const RunStats stats = engine.run();
  ASSERT_GE(transport.outputs_offered.size(), 2u);
  EXPECT_EQ(transport.outputs_offered[0], SimTime::ns(450));
  // The first window took the pokes at 50 and 520 ns, the second the one at 560 ns.
  EXPECT_EQ(stats.windows, 2u);
  EXPECT_EQ(far.log, (std::vector<std::string>{"poke@50ns", "poke@520ns", "poke@560ns"}));
}

TEST(Promises, AnEventTheLpCoversAnswersInfinityAndItsStateIsAsked) {
  // LP 1's pending poke is covered by its state, which says nothing leaves before 2 us:
  // rank 0 promises 2 us and may run to 2.1 us.
  RankZeroOfTwo transport;
  Engine engine(line_of_three(), kTwoThenOne, transport);
  engine.emplace<Scripted>(0);
  auto& lp = engine.emplace<Scripted>(1, SimTime::us(2));
  lp.bound = [](const EventBody& event, SimTime) {
    EXPECT_TRUE(calls<&Scripted::poke>(event));
    return SimTime::infinity();
  };
  lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(1, SimTime::ns(50)); };
  const RunStats stats = engine.run();
  ASSERT_GE(transport.outputs_offered.size(), 1u);
  EXPECT_EQ(transport.outputs_offered[0], SimTime::us(2));
  // Asked before the first window only: after it nothing is pending, and a state changes only
  // through events.
  EXPECT_EQ(lp.floors, (std::vector<SimTime>{SimTime::zero()}));
  EXPECT_EQ(stats.windows, 1u);
}

TEST(Promises, ABrokenPromiseIsAnError) {
  // The same, but the poke sends to rank 1 at once (100 ns later): the state's 2 us was wrong.
  RankZeroOfTwo transport;
  Engine engine(line_of_three(), kTwoThenOne, transport);
  engine.emplace<Scripted>(0);
  auto& lp = engine.emplace<Scripted>(1, SimTime::us(2));
  lp.bound = [](const EventBody&, SimTime) { return SimTime::infinity(); };
  lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(1, SimTime::ns(50)); };
  lp.on_poke = [](Scripted& self) { self.send<&Scripted::mark>(2, SimTime::ns(100), Mark{0, 0, 0}); };
  expect_error<SimulationError>([&] { engine.run(); },
                                {"LP 1 (rank 0) sent an event to LP 2 (rank 1) for t=150ns", "before t=2us",
                                 "output_bound() answered too late"});
}

TEST(Promises, WithoutAGainTheEventsAreReadLessOften) {
  // A pending event whose bound is no better than the cheap one: the engine backs off and
  // offers the cheap bound without asking, one window in two, then three in four...
  RankZeroOfTwo transport;
  Engine engine(line_of_three(), kTwoThenOne, transport);
  engine.emplace<Scripted>(0);
  auto& lp = engine.emplace<Scripted>(1);
  int asked = 0;
  lp.bound = [&asked](const EventBody&, SimTime at) {
    ++asked;
    return at + SimTime::ns(100);
  };
  lp.on_start = [](Scripted& self) {
    for (int k = 0; k < 20; ++k) self.send<&Scripted::poke>(1, SimTime::ns(50 + 200 * k));
  };
  engine.run();
  EXPECT_EQ(transport.outputs_offered.size(), 21u);
  // Asked before windows 1, 3, 7 and 15 (skipping 1, 3, then 7 windows); each time it reads
  // one event and stops, as that one already equals the cheap bound.
  EXPECT_EQ(asked, 4);
}

// ---------------------------------------------------------------------------------------
// Statistics that once did not say what run_stats.hpp says they do.

// RankStats::max_queue is the "largest number of pending events". It used to be sampled
// only after each window, when the window's events were gone: on one rank, the number left
// at the end, 0 for a run that drains. Here 100 events are pending at once after start().
TEST(EngineStats, MaxQueueCountsPendingEvents) {
  const auto transport = make_local_transport();
  Engine engine(unlinked(1), one_rank(1), *transport);
  auto& lp = engine.emplace<Scripted>(0);
  lp.on_start = [](Scripted& self) {
    for (int i = 1; i <= 100; ++i) self.send<&Scripted::poke>(0, SimTime::ns(i));
  };
  const RunStats stats = engine.run();
  EXPECT_EQ(stats.events, 100u);
  ASSERT_EQ(stats.per_rank.size(), 1u);
  EXPECT_EQ(stats.per_rank[0].max_queue, 100u);
}

// RunStats::end_time used to go through a double (max_all), which rounds above 2^53 ps
// (about 2.5 hours of simulated time): 2^53 + 1 ps came back as 2^53 ps.
TEST(EngineStats, EndTimeIsExactForLongRuns) {
  const SimTime late = SimTime::ps((std::int64_t{1} << 53) + 1);
  const auto transport = make_local_transport();
  Engine engine(unlinked(1), one_rank(1), *transport);
  auto& lp = engine.emplace<Scripted>(0);
  lp.on_start = [late](Scripted& self) { self.send<&Scripted::poke>(0, late); };
  const RunStats stats = engine.run();
  EXPECT_EQ(stats.events, 1u);
  EXPECT_EQ(stats.end_time, late);
}

// A delay that reaches past the end of SimTime (say infinity(), "never", or a rate of zero
// turned into a delay) once overflowed now() + delay: undefined behaviour, and in practice the
// clock ran backwards from 5 ns to about -106 days. It is now refused with a SimulationError;
// never running the event would be as good, which the test accepts too.
TEST(Engine, DelayBeyondTheEndOfTimeDoesNotRunTheClockBackwards) {
  const auto transport = make_local_transport();
  Engine engine(unlinked(1), one_rank(1), *transport);
  auto& lp = engine.emplace<Scripted>(0);
  lp.on_start = [](Scripted& self) { self.send<&Scripted::poke>(0, SimTime::ns(5)); };
  lp.on_poke = [](Scripted& self) {
    if (self.log.size() < 3) self.send<&Scripted::poke>(0, SimTime::infinity());
  };
  try {
    const RunStats stats = engine.run();
    EXPECT_EQ(stats.events, 1u);
    EXPECT_EQ(stats.end_time, SimTime::ns(5));
  } catch (const SimulationError& e) {
    SUCCEED() << "reported: " << e.what();  // refusing the delay is as good as never running it
  }
  EXPECT_EQ(lp.log, (std::vector<std::string>{"poke@5ns"}));
}

}  // namespace
}  // namespace collsim::pdes
