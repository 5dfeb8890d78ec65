// Channels: deliveries in order at their times, one pending event per channel, and the
// offer of waiting deliveries to a receiver that can take them early.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "collsim/pdes/channel.hpp"
#include "collsim/pdes/engine.hpp"
#include "pdes_test_util.hpp"

// Named, not anonymous: Channel<&PlainSink::on_item> holds a PlainSink*, and a class
// template instantiated on an anonymous type draws -Wsubobject-linkage in a unity build.
namespace collsim::pdes::channel_test {

struct Item {
  std::uint32_t n;
};

struct Seen {
  std::uint32_t n;
  SimTime at;
  bool early;
  bool operator==(const Seen&) const = default;
};

// Receives items; the one that takes early takes the even ones.
class PlainSink final : public LogicalProcess {
 public:
  void on_item(const Item& item) { seen.push_back({item.n, now(), false}); }
  std::vector<Seen> seen;
  using Handlers = pdes::Handlers<&PlainSink::on_item>;
};

class EagerSink final : public LogicalProcess {
 public:
  void on_item(const Item& item) { seen.push_back({item.n, now(), false}); }
  bool take_early(const Item& item) {
    ++offers;
    if (item.n % 2 != 0) return false;
    seen.push_back({item.n, now(), true});
    return true;
  }
  std::vector<Seen> seen;
  int offers = 0;
  using Handlers = pdes::Handlers<&EagerSink::on_item>;
};

}  // namespace collsim::pdes::channel_test

namespace collsim::pdes {
namespace {

using channel_test::EagerSink;
using channel_test::Item;
using channel_test::PlainSink;
using channel_test::Seen;

// Sends items 0..n-1 at start, item i to arrive at (i + 1) ns.
template <typename Sink>
class Source final : public LogicalProcess {
 public:
  explicit Source(std::uint32_t n) : n_(n) {}
  void start() override {
    channel_.connect(1, true);
    for (std::uint32_t i = 0; i < n_; ++i) channel_.send(*this, SimTime::ns(i + 1), Item{i});
  }
  void idle() {}  // an LP class names at least one handler
  using Handlers = pdes::Handlers<&Source::idle>;

 private:
  std::uint32_t n_;
  Channel<&Sink::on_item> channel_;
};

static_assert(!TakesEarly<PlainSink, Item>);
static_assert(TakesEarly<EagerSink, Item>);

template <typename Sink>
struct ChannelRun {
  ChannelRun(std::uint32_t items, SimTime end) : transport(make_local_transport()) {
    LpGraph g;
    g.num_lps = 2;
    engine = std::make_unique<Engine>(g, Partition{1, {0, 0}}, *transport, EngineOptions{1, end});
    engine->emplace<Source<Sink>>(0, items);
    sink = &engine->emplace<Sink>(1);
    stats = engine->run();
  }
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Engine> engine;
  Sink* sink = nullptr;
  RunStats stats;
};

TEST(Channel, DeliversEachItemAtItsTimeInOrder) {
  const ChannelRun<PlainSink> run(4, SimTime::infinity());
  const std::vector<Seen> expected = {{0, SimTime::ns(1), false},
                                      {1, SimTime::ns(2), false},
                                      {2, SimTime::ns(3), false},
                                      {3, SimTime::ns(4), false}};
  EXPECT_EQ(run.sink->seen, expected);
  EXPECT_EQ(run.stats.events, 4u);
  EXPECT_EQ(run.stats.per_rank[0].max_queue, 1u);  // only the head is ever queued
  EXPECT_EQ(run.stats.per_rank[0].stored_events, 4u);  // but all four wait at once
}

TEST(Channel, OffersWaitingItemsAfterEachHandledOneUntilARefusal) {
  // Item 0 is handled at 1 ns; item 1 refused, handled at 2 ns; 2 taken then, 3 refused,
  // handled at 4 ns; 4 taken then and nothing is left. Every item counts as an event.
  const ChannelRun<EagerSink> run(5, SimTime::infinity());
  const std::vector<Seen> expected = {{0, SimTime::ns(1), false},
                                      {1, SimTime::ns(2), false},
                                      {2, SimTime::ns(2), true},
                                      {3, SimTime::ns(4), false},
                                      {4, SimTime::ns(4), true}};
  EXPECT_EQ(run.sink->seen, expected);
  EXPECT_EQ(run.sink->offers, 4);  // item 1 after 0; 2 and 3 after 1; 4 after 3
  EXPECT_EQ(run.stats.events, 5u);
}

TEST(Channel, OffersNothingPastTheEndOfTheRun) {
  // The run ends at 4 ns: item 4 (due at 5 ns) is never offered nor handled; item 2 is taken
  // at 2 ns as before.
  const ChannelRun<EagerSink> run(5, SimTime::ns(4));
  const std::vector<Seen> expected = {{0, SimTime::ns(1), false},
                                      {1, SimTime::ns(2), false},
                                      {2, SimTime::ns(2), true},
                                      {3, SimTime::ns(4), false}};
  EXPECT_EQ(run.sink->seen, expected);
  EXPECT_EQ(run.stats.events, 4u);
}

}  // namespace
}  // namespace collsim::pdes
