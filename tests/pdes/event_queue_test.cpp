// The order of events and the queues that keep it. Determinism across rank counts rests on
// one total order, before(); the queues compare 16-byte entries with a 32-bit hint instead
// and must give exactly the same order, ties included. So every queue here is checked pop
// by pop against a reference ordered by before() itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "collsim/pdes/calendar_queue.hpp"
#include "collsim/pdes/event.hpp"
#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/quaternary_heap.hpp"
#include "collsim/pdes/radix_queue.hpp"
#include "collsim/pdes/timing_wheel.hpp"
#include "collsim/pdes/random_stream.hpp"
#include "pdes_test_util.hpp"

namespace collsim::pdes {
namespace {

EventKey key(std::int64_t ps, Priority priority, LpId source, std::uint64_t sequence) {
  return {SimTime::ps(ps), EventKey::make_origin(priority, source), sequence};
}

// Sources on both sides of the hint's cap: from 2^24 - 1 = 0xFFFFFF up, sources share one
// hint and only the full key tells them apart.
constexpr LpId kSources[] = {0, 1, 2, 0xFFFFFE, 0xFFFFFF, 0x1000000, 0x1000001, 0xFFFFFFFE};

TEST(EventOrder, BeforeIsTimeThenPriorityThenSourceThenSequence) {
  // Each field decides only when all earlier ones tie, whatever the later ones say.
  EXPECT_TRUE(before(key(1, 9, 9, 9), key(2, 0, 0, 0)));
  EXPECT_FALSE(before(key(2, 0, 0, 0), key(1, 9, 9, 9)));
  EXPECT_TRUE(before(key(5, 0, 9, 9), key(5, 1, 0, 0)));
  EXPECT_TRUE(before(key(5, 0, 0xFFFFFFFF, 9), key(5, 1, 0, 0)));  // priority sits above all 32 source bits
  EXPECT_TRUE(before(key(5, 1, 2, 9), key(5, 1, 3, 0)));
  EXPECT_FALSE(before(key(5, 1, 3, 0), key(5, 1, 2, 9)));
  EXPECT_TRUE(before(key(5, 1, 3, 0), key(5, 1, 3, 1)));
  EXPECT_FALSE(before(key(5, 1, 3, 1), key(5, 1, 3, 1)));  // strict
  const EventKey k = key(0, 200, 0xFFFFFFFE, 0);
  EXPECT_EQ(k.priority(), 200);
  EXPECT_EQ(k.source(), 0xFFFFFFFEu);
  EXPECT_EQ(k.origin, (std::uint64_t{200} << 32) | 0xFFFFFFFEu);
}

TEST(EventOrder, HintFollowsPriorityAndSourceUpToTheCap) {
  auto hint = [](Priority p, LpId s) { return QueueEntry::hint_of(key(0, p, s, 0)); };
  EXPECT_EQ(hint(0, 0), 0u);
  EXPECT_EQ(hint(2, 5), (2u << 24) | 5u);
  EXPECT_EQ(hint(0, 0xFFFFFE), 0xFFFFFEu);
  EXPECT_EQ(hint(0, 0xFFFFFF), 0xFFFFFFu);
  EXPECT_EQ(hint(0, 0x1000000), 0xFFFFFFu);  // capped: no carry into the priority byte
  EXPECT_EQ(hint(0, 0xFFFFFFFF), 0xFFFFFFu);
  EXPECT_EQ(hint(1, 0), 0x1000000u);
  EXPECT_EQ(hint(255, 0xFFFFFFFF), 0xFFFFFFFFu);
  // Over (priority, source) in increasing order the hint never decreases, and it only
  // stands still between two sources at or above the cap.
  std::vector<std::pair<Priority, LpId>> origins;
  for (const Priority p : {0, 1, 7, 255})
    for (const LpId s : kSources) origins.emplace_back(p, s);
  for (std::size_t i = 1; i < origins.size(); ++i) {
    const auto [p0, s0] = origins[i - 1];
    const auto [p1, s1] = origins[i];
    if (p0 == p1 && s0 >= 0xFFFFFF) {
      EXPECT_EQ(hint(p1, s1), hint(p0, s0)) << int{p1} << " " << s1;
    } else {
      EXPECT_LT(hint(p0, s0), hint(p1, s1)) << int{p1} << " " << s1;
    }
  }
}

// Random keys crowded into few times, priorities and sources (half of them above the cap),
// so that most comparisons fall to the tie-breaks. Sequences are distinct, as in the engine.
std::vector<EventKey> crowded_keys(std::uint64_t seed, std::size_t n) {
  RandomStream r(seed, 0);
  std::vector<EventKey> keys;
  for (std::size_t i = 0; i < n; ++i)
    keys.push_back(key(static_cast<std::int64_t>(r.below(4) * 1000), static_cast<Priority>(r.below(3)),
                       kSources[r.below(std::size(kSources))], r.below(1000) * 4096 + i));
  return keys;
}

QueueEntry entry_of(const std::vector<EventKey>& keys, std::uint32_t ref) {
  return {keys[ref].time, QueueEntry::hint_of(keys[ref]), ref};
}

TEST(EventOrder, EntryOrderIsBeforeOnTheKeys) {
  const std::vector<EventKey> keys = crowded_keys(3, 3000);
  const EntryOrder order(&keys);
  // Every pair of the first 400 (160000 comparisons), both ways round.
  for (std::uint32_t a = 0; a < 400; ++a)
    for (std::uint32_t b = 0; b < 400; ++b)
      ASSERT_EQ(order(entry_of(keys, a), entry_of(keys, b)), before(keys[a], keys[b])) << a << " vs " << b;
  // And sorting all of them gives the same sequence.
  std::vector<QueueEntry> entries;
  for (std::uint32_t i = 0; i < keys.size(); ++i) entries.push_back(entry_of(keys, i));
  std::sort(entries.begin(), entries.end(), order);
  std::vector<std::uint32_t> by_key(keys.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) by_key[i] = i;
  std::sort(by_key.begin(), by_key.end(), [&](std::uint32_t a, std::uint32_t b) { return before(keys[a], keys[b]); });
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(entries[i].ref, by_key[i]) << "position " << i;
}

// Drives a queue and a reference (a std::set ordered by before()) with the same pushes and
// checks every top() and pop() against it.
class QueueChecker {
 public:
  QueueChecker(QueueKind kind, std::uint64_t seed) : queue_(make_event_queue(kind, &keys_)), random_(seed, 1) {}
  QueueChecker(std::unique_ptr<EventQueue> (*make)(const std::vector<EventKey>*), std::uint64_t seed)
      : queue_(make(&keys_)), random_(seed, 1) {}

  void push(SimTime t) {
    const auto ref = static_cast<std::uint32_t>(keys_.size());
    const auto priority = static_cast<Priority>(random_.below(2));
    const LpId source = kSources[random_.below(std::size(kSources))];
    keys_.push_back({t, EventKey::make_origin(priority, source), sequence_++});
    queue_->push(entry_of(keys_, ref));
    reference_.insert(ref);
    last_pushed_ = t;
  }

  // Checks top() against the reference's first entry; false (after reporting it) if wrong.
  bool peek() {
    if (queue_->size() != reference_.size() || reference_.empty()) {
      ADD_FAILURE() << "size " << queue_->size() << ", expected " << reference_.size();
      return false;
    }
    const QueueEntry top = queue_->top();
    const std::uint32_t expected = *reference_.begin();
    if (top.ref != expected || top.time != keys_[expected].time) {
      ADD_FAILURE() << queue_->name() << " has ref " << top.ref << " at " << top.time.picoseconds()
                    << "ps first, expected ref " << expected << " at " << keys_[expected].time.picoseconds()
                    << "ps after " << pops_ << " pops, " << reference_.size() << " pending";
      return false;
    }
    return true;
  }

  // Pops one entry; false (after reporting it) when it is not the reference's first.
  bool pop() {
    if (!peek()) return false;
    const QueueEntry top = queue_->top();
    queue_->pop();
    reference_.erase(reference_.begin());
    now_ = top.time;
    ++pops_;
    return true;
  }

  // A push time relative to the last popped one, as the engine makes them, with many ties,
  // delays from 1 ps to 9 ms, and (if allowed) a few times before the last popped one.
  SimTime next_time(bool allow_past) {
    const std::uint64_t choice = random_.below(100);
    if (choice < 20) return now_;
    if (choice < 30) return std::max(now_, last_pushed_);
    if (allow_past && choice < 33) return SimTime::ps(static_cast<std::int64_t>(random_.below(static_cast<std::uint64_t>(now_.picoseconds()) + 1)));
    std::int64_t delay = static_cast<std::int64_t>(1 + random_.below(9));
    for (std::uint64_t m = random_.below(10); m > 0; --m) delay *= 10;
    return now_ + SimTime::ps(delay);
  }

  // Grows to `peak` entries with mostly pushes, then drains with mostly pops. Some pushes
  // follow a look at top(), as when the engine stops at the end of a window and receives
  // events: the calendar queue then knows its minimum and must update it.
  bool grow_and_drain(std::size_t peak, bool allow_past) {
    while (reference_.size() < peak) {
      if (!reference_.empty() && random_.below(4) == 0 && !peek()) return false;
      if (random_.below(10) < 7 || reference_.empty()) {
        push(next_time(allow_past));
      } else if (!pop()) {
        return false;
      }
    }
    while (!reference_.empty()) {
      if (random_.below(4) == 0 && !peek()) return false;
      if (random_.below(10) < 3) {
        push(next_time(allow_past));
      } else if (!pop()) {
        return false;
      }
    }
    return queue_->empty();
  }

  EventQueue& queue() { return *queue_; }
  std::uint64_t pops() const { return pops_; }

 private:
  struct ByKey {
    const std::vector<EventKey>* keys;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return before((*keys)[a], (*keys)[b]); }
  };
  std::vector<EventKey> keys_;
  std::unique_ptr<EventQueue> queue_;
  std::set<std::uint32_t, ByKey> reference_{ByKey{&keys_}};
  RandomStream random_;
  SimTime now_ = SimTime::zero(), last_pushed_ = SimTime::zero();
  std::uint64_t sequence_ = 0;
  std::uint64_t pops_ = 0;
};

std::unique_ptr<EventQueue> make_heap(const std::vector<EventKey>* keys) { return std::make_unique<QuaternaryHeap>(keys); }
std::unique_ptr<EventQueue> make_calendar(const std::vector<EventKey>* keys) { return std::make_unique<CalendarQueue>(keys); }
std::unique_ptr<EventQueue> make_radix(const std::vector<EventKey>* keys) { return std::make_unique<RadixQueue>(keys); }
std::unique_ptr<EventQueue> make_wheel(const std::vector<EventKey>* keys) { return std::make_unique<TimingWheel>(keys); }

TEST(EventQueue, FactoryAndNames) {
  const std::vector<EventKey> keys;
  EXPECT_EQ(make_event_queue(QueueKind::QuaternaryHeap, &keys)->name(), "4-ary heap");
  EXPECT_EQ(make_event_queue(QueueKind::Calendar, &keys)->name(), "calendar queue");
  EXPECT_EQ(to_string(QueueKind::QuaternaryHeap), "heap");
  EXPECT_EQ(to_string(QueueKind::Calendar), "calendar");
  EXPECT_EQ(make_event_queue(QueueKind::Radix, &keys)->name(), "radix heap");
  EXPECT_EQ(to_string(QueueKind::Radix), "radix");
  EXPECT_EQ(queue_kind_from_name("radix"), QueueKind::Radix);
  EXPECT_EQ(make_event_queue(QueueKind::Wheel, &keys)->name(), "timing wheel");
  EXPECT_EQ(to_string(QueueKind::Wheel), "wheel");
  EXPECT_EQ(queue_kind_from_name("wheel"), QueueKind::Wheel);
  EXPECT_EQ(queue_kind_from_name("wheels"), std::nullopt);
  EXPECT_TRUE(make_event_queue(QueueKind::Calendar, &keys)->empty());
}

class EveryQueue : public ::testing::TestWithParam<QueueKind> {};

// The calendar queue starts with 16 buckets, doubles when it holds more than twice as many
// entries and halves below half: peaks of 40 and 2500 entries take it through 32 and up to
// 2048 buckets and all the way back, re-estimating the day width each time.
TEST_P(EveryQueue, PopsInKeyOrderThroughGrowthAndShrinking) {
  QueueChecker check(GetParam(), 17);
  for (const std::size_t peak : {40, 2500, 5, 1200}) ASSERT_TRUE(check.grow_and_drain(peak, false)) << "peak " << peak;
  EXPECT_GT(check.pops(), 5000u);
}

// Nothing in either queue's contract asks for times no earlier than the last pop (the
// calendar queue moves its scan back for them), so a queue must order those too.
TEST_P(EveryQueue, OrdersPushesBeforeTheLastPoppedTime) {
  QueueChecker check(GetParam(), 23);
  for (const std::size_t peak : {300, 2000}) ASSERT_TRUE(check.grow_and_drain(peak, true)) << "peak " << peak;
}

// Many entries at one time (one crowded bucket), then times far apart: the width estimated
// from identical times is 1 ps, so later entries lie many "years" ahead and the calendar
// queue must fall back to searching every bucket.
TEST_P(EveryQueue, OneCrowdedTimeThenFarApartTimes) {
  QueueChecker check(GetParam(), 5);
  for (int i = 0; i < 1000; ++i) check.push(SimTime::ns(5));
  for (const std::int64_t t : std::initializer_list<std::int64_t>{1'000'000'000'000, 7'000'000, 3'000'000'000, 9'000}) check.push(SimTime::ps(t));
  for (int i = 0; i < 1004; ++i) ASSERT_TRUE(check.pop());
  EXPECT_TRUE(check.queue().empty());
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryQueue, ::testing::Values(QueueKind::QuaternaryHeap, QueueKind::Calendar, QueueKind::Radix,
                                                           QueueKind::Wheel),
                         [](const ::testing::TestParamInfo<QueueKind>& kind) { return std::string(to_string(kind.param)); });

// The timing wheel reaches 4096 slots of 1024 ps ahead: entries up to 20 us ahead, a few
// thousand pending, go round it hundreds of times, wait beyond it and enter their slot as the
// wheel comes near, some into the very slot it moves to (nothing nearer in the wheel).
TEST(EventQueue, TimingWheelAcrossManyTurnsAndBeyondItsReach) {
  {
    // Nothing within reach: the wheel moves straight to the first slot beyond it.
    QueueChecker far(&make_wheel, 40);
    for (const std::int64_t t : {50'000'000, 10'000'000, 30'000'000, 10'000'001}) far.push(SimTime::ps(t));
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(far.pop()) << "pop " << i;
    EXPECT_TRUE(far.queue().empty());
  }
  QueueChecker check(&make_wheel, 41);
  RandomStream draw(41, 2);
  SimTime now = SimTime::zero();
  for (int i = 0; i < 3000; ++i) check.push(SimTime::ps(static_cast<std::int64_t>(draw.below(20'000'000))));
  for (int i = 0; i < 200000; ++i) {
    ASSERT_TRUE(check.pop()) << "pop " << i;
    now = check.queue().top().time;
    // Mostly near (a link's delay), sometimes past the wheel, sometimes into the current slot.
    const std::uint64_t kind = draw.below(10);
    const std::int64_t delay = static_cast<std::int64_t>(
        kind < 6 ? draw.below(1'000'000) : kind < 9 ? 4'000'000 + draw.below(16'000'000) : draw.below(1024));
    check.push(now + SimTime::ps(delay));
  }
  while (!check.queue().empty()) ASSERT_TRUE(check.pop());
}

// The classes directly, not through the factory.
TEST(EventQueue, ConcreteClassesAgreeWithTheReference) {
  for (auto* make : {&make_heap, &make_calendar, &make_radix, &make_wheel}) {
    QueueChecker check(make, 99);
    ASSERT_TRUE(check.grow_and_drain(700, true)) << check.queue().name();
  }
}

TEST(EventQueue, TopIsStableUntilPopped) {
  for (const QueueKind kind : {QueueKind::QuaternaryHeap, QueueKind::Calendar, QueueKind::Radix, QueueKind::Wheel}) {
    std::vector<EventKey> keys;
    auto q = make_event_queue(kind, &keys);
    // Three entries, pushed latest first: (2ns, prio 0, LP 4), (1ns, prio 1, LP 0), (1ns, prio 0, LP 9).
    keys = {key(2000, 0, 4, 0), key(1000, 1, 0, 0), key(1000, 0, 9, 0)};
    for (std::uint32_t i = 0; i < 3; ++i) q->push(entry_of(keys, i));
    EXPECT_EQ(q->top().ref, 2u);
    EXPECT_EQ(q->top().ref, 2u);  // looking does not consume
    EXPECT_EQ(q->size(), 3u);
    q->pop();
    EXPECT_EQ(q->top().ref, 1u);
    q->pop();
    EXPECT_EQ(q->top().ref, 0u);
    q->pop();
    EXPECT_TRUE(q->empty());
  }
}

// The engine's loop looks with peek() and takes with pop_peeked(), which takes from the front
// peek() found: the current slot's sorted run, the heap of entries pushed into that slot after
// it was sorted, or the heap of entries pushed before it (events from other ranks).
TEST(EventQueue, TimingWheelPeekThenPopTakesFromEachFront) {
  std::vector<EventKey> keys;
  TimingWheel wheel(&keys);
  const auto push = [&](std::int64_t ps, LpId source) {
    keys.push_back(key(ps, 0, source, keys.size()));
    wheel.push(entry_of(keys, static_cast<std::uint32_t>(keys.size() - 1)));
  };
  const auto take = [&] {
    const QueueEntry e = wheel.peek();
    EXPECT_EQ(e.ref, wheel.top().ref);  // the same entry top() gives
    wheel.pop_peeked();
    return e.ref;
  };
  push(10'000, 5);  // 0: one slot
  push(10'500, 1);  // 1: the same slot (1024 ps wide), later
  push(50'000, 2);  // 2: a later slot
  EXPECT_EQ(take(), 0u);                  // sorted run of the slot holding 10 ns
  push(10'200, 3);                        // 3: into the current slot after it was sorted
  EXPECT_EQ(take(), 3u);                  // from the late heap, before 1
  push(9'000, 4);                         // 4: before the current slot
  EXPECT_EQ(take(), 4u);                  // from the past heap, first of all
  EXPECT_EQ(take(), 1u);
  EXPECT_EQ(take(), 2u);
  EXPECT_TRUE(wheel.empty());
}

// The day width is three times the mean gap of the earliest events. It used to be computed
// as 3 * span in signed 64 bits, which overflows (undefined behaviour, caught by the
// sanitizer build) once those events span more than 2^63 / 3 ps, about 35.6 days: well
// within SimTime's 106-day range.
TEST(EventQueue, CalendarQueueWithASpanOfMoreThanAThirdOfTheTimeRange) {
  QueueChecker check(QueueKind::Calendar, 8);
  // 33 entries (the 33rd triggers the first resize) from 0 to 4e18 ps.
  for (std::int64_t i = 0; i <= 32; ++i) check.push(SimTime::ps(i * 125'000'000'000'000'000));
  for (int i = 0; i <= 32; ++i) ASSERT_TRUE(check.pop());
}

}  // namespace
}  // namespace collsim::pdes
