// The receivers of a host by flow key: what a map would answer, for keys that collide in their
// home slot, wrap around the end of the array and leave holes that later searches must cross.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "collsim/net/receiver_table.hpp"

namespace collsim::net {
namespace {

struct Held {
  std::uint64_t key = 0;
  std::vector<std::uint64_t> bits;  // something that owns memory, as a receiver's bitmap does
};

TEST(ReceiverTable, AMissingKeyIsMadeOnceAndFoundAgain) {
  detail::ReceiverTable<Held> t;
  Held& a = t[(std::uint64_t{7} << 32) | 3];
  a.key = 42;
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(&t[(std::uint64_t{7} << 32) | 3], &a);
  EXPECT_EQ(t[(std::uint64_t{7} << 32) | 3].key, 42u);
  EXPECT_EQ(t.size(), 1u);
}

TEST(ReceiverTable, AnErasedReceiverComesBackDefaultAndOthersKeepTheirPlace) {
  detail::ReceiverTable<Held> t;
  std::vector<Held*> at;
  for (std::uint64_t k = 0; k < 100; ++k) {
    at.push_back(&t[k]);
    at.back()->key = k;
    at.back()->bits.assign(3, k);
  }
  for (std::uint64_t k = 0; k < 100; k += 2) t.erase(k);
  t.erase(1000);  // absent: nothing happens
  EXPECT_EQ(t.size(), 50u);
  for (std::uint64_t k = 1; k < 100; k += 2) {
    EXPECT_EQ(&t[k], at[k]) << k;  // growing and erasing moved no receiver
    EXPECT_EQ(t[k].key, k);
  }
  Held& again = t[4];
  EXPECT_EQ(again.key, 0u);
  EXPECT_TRUE(again.bits.empty());
  EXPECT_EQ(t.size(), 51u);
}

TEST(ReceiverTable, RandomInsertsAndErasesAgreeWithAMap) {
  // Few distinct keys in a small table: long probe runs, wrap-arounds and backward shifts.
  std::mt19937_64 rng(5);
  detail::ReceiverTable<Held> t;
  std::unordered_map<std::uint64_t, std::uint64_t> expected;
  for (int step = 0; step < 200000; ++step) {
    const std::uint64_t key = (rng() % 97) << (rng() % 2 == 0 ? 32 : 0) | (rng() % 13);
    switch (rng() % 3) {
      case 0:
      case 1: {
        Held& h = t[key];
        const auto it = expected.find(key);
        ASSERT_EQ(h.key, it == expected.end() ? 0 : it->second) << "step " << step;
        h.key = rng() | 1;
        expected[key] = h.key;
        break;
      }
      default:
        t.erase(key);
        expected.erase(key);
    }
    ASSERT_EQ(t.size(), expected.size()) << "step " << step;
  }
  for (const auto& [key, value] : expected) EXPECT_EQ(t[key].key, value);
}

}  // namespace
}  // namespace collsim::net
