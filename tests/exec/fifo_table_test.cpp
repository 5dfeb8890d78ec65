#include "collsim/exec/fifo_table.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <string>

namespace collsim::exec {
namespace {

TEST(FifoTable, EachKeyIsItsOwnQueueFirstInFirstOut) {
  FifoTable<std::string> t;
  t.push(7, "a");
  t.push(9, "x");
  t.push(7, "b");
  EXPECT_TRUE(t.contains(7));
  EXPECT_EQ(t.front(7), "a");
  EXPECT_EQ(t.pop(7), "a");
  EXPECT_EQ(t.pop(9), "x");
  EXPECT_FALSE(t.contains(9));
  EXPECT_EQ(t.pop(7), "b");
  EXPECT_FALSE(t.contains(7));
  EXPECT_FALSE(t.contains(123));
}

// Keys that share a home slot, removed from the middle of their probe run: the ones after
// them must stay reachable (backward-shift deletion).
TEST(FifoTable, RemovingAKeyKeepsTheKeysThatProbedPastIt) {
  FifoTable<int> t;
  for (int k = 0; k < 12; ++k) t.push(static_cast<std::uint64_t>(k) << 32, k);  // equal low bits
  for (int k = 0; k < 12; k += 2) EXPECT_EQ(t.pop(static_cast<std::uint64_t>(k) << 32), k);
  for (int k = 1; k < 12; k += 2) {
    ASSERT_TRUE(t.contains(static_cast<std::uint64_t>(k) << 32)) << k;
    EXPECT_EQ(t.front(static_cast<std::uint64_t>(k) << 32), k);
  }
}

// Random pushes and pops against std::map of std::deque, through growth and node reuse.
TEST(FifoTable, AgreesWithAMapOfDequesOnRandomTraffic) {
  FifoTable<std::uint64_t> t;
  std::map<std::uint64_t, std::deque<std::uint64_t>> ref;
  std::mt19937_64 rng(5);
  for (std::uint64_t step = 0; step < 200000; ++step) {
    const std::uint64_t key = (rng() % 64) << 32 | (rng() % 300);
    if (rng() % 2 == 0) {
      t.push(key, step);
      ref[key].push_back(step);
    } else if (auto it = ref.find(key); it != ref.end()) {
      ASSERT_TRUE(t.contains(key));
      ASSERT_EQ(t.pop(key), it->second.front());
      it->second.pop_front();
      if (it->second.empty()) ref.erase(it);
    } else {
      ASSERT_FALSE(t.contains(key));
    }
  }
  std::map<std::uint64_t, std::deque<std::uint64_t>> listed;
  t.for_each([&](std::uint64_t key, std::uint64_t item) { listed[key].push_back(item); });
  EXPECT_EQ(listed, ref);
}

}  // namespace
}  // namespace collsim::exec
