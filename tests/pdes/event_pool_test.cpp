#include "collsim/pdes/event_pool.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace collsim::pdes {
namespace {

EventKey key_at(std::int64_t ps) { return EventKey{SimTime::ps(ps), 0, static_cast<std::uint64_t>(ps)}; }

TEST(EventPool, ReusesTheLastFreedSlotFirstAndGrowsOnlyWhenNoneIsFree) {
  EventPool pool;
  const std::uint32_t a = pool.allocate(key_at(1));
  const std::uint32_t b = pool.allocate(key_at(2));
  const std::uint32_t c = pool.allocate(key_at(3));
  EXPECT_EQ(pool.capacity(), 3u);
  pool.release(a);
  pool.release(c);
  EXPECT_EQ(pool.allocate(key_at(4)), c);
  EXPECT_EQ(pool.allocate(key_at(5)), a);
  EXPECT_EQ(pool.capacity(), 3u);
  EXPECT_EQ(pool.allocate(key_at(6)), 3u);
  EXPECT_EQ(pool.key(c).time, SimTime::ps(4));
  EXPECT_EQ(pool.key(b).time, SimTime::ps(2));
  EXPECT_EQ((*pool.keys())[a].time, SimTime::ps(5));
}

TEST(EventPool, BodiesStayWhereTheyAreAsThePoolGrows) {
  EventPool pool;
  EventBody body{};
  body.target = 41;
  const std::uint32_t first = pool.store(key_at(0), body);
  const EventBody* const at = &pool[first];
  std::vector<std::uint32_t> refs;
  for (std::uint32_t i = 0; i < 3 * 4096; ++i) {  // past several growth steps
    body.target = i;
    refs.push_back(pool.store(key_at(i + 1), body));
  }
  EXPECT_EQ(&pool[first], at);
  EXPECT_EQ(pool[first].target, 41u);
  for (std::uint32_t i = 0; i < refs.size(); ++i) ASSERT_EQ(pool[refs[i]].target, i);
  EXPECT_EQ(pool.capacity(), 3 * 4096 + 1u);
}

TEST(EventPool, ASlotsLinkIsItsHoldersWhileInUse) {
  EventPool pool;
  const std::uint32_t a = pool.allocate(key_at(1));
  const std::uint32_t b = pool.allocate(key_at(2));
  pool.link(a) = b;
  pool.link(b) = EventPool::kNoSlot;
  EXPECT_EQ(pool.link(a), b);
  pool.release(b);
  pool.release(a);
  EXPECT_EQ(pool.allocate(key_at(3)), a);
  EXPECT_EQ(pool.allocate(key_at(4)), b);
}

}  // namespace
}  // namespace collsim::pdes
