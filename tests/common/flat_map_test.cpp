// FlatMap against std::map: the same answers after the same random sets, takes and erases,
// with keys dense (an executor's flow numbers) and spread (a host in the top 32 bits), through
// growth and the backward shifts of erasure.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>

#include "collsim/common/flat_map.hpp"

namespace collsim::common {
namespace {

void run_against_std_map(std::uint64_t key_spread, std::uint32_t seed) {
  FlatMap<std::uint64_t> table(2);
  std::map<std::uint64_t, std::uint64_t> model;
  std::mt19937_64 random(seed);
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t key = (random() % 512) * key_spread;
    switch (random() % 4) {
      case 0:
      case 1: {
        const std::uint64_t value = random();
        table.set(key, value);
        model[key] = value;
        break;
      }
      case 2:
        if (model.contains(key)) {
          EXPECT_EQ(table.take(key), model[key]);
          model.erase(key);
        }
        break;
      case 3:
        table.erase(key);
        model.erase(key);
        break;
    }
    ASSERT_EQ(table.size(), model.size());
    const std::uint64_t probe = (random() % 512) * key_spread;
    const std::uint64_t* found = table.find(probe);
    ASSERT_EQ(found != nullptr, model.contains(probe));
    if (found) {
      ASSERT_EQ(*found, model.at(probe));
    }
  }
  for (const auto& [key, value] : model) {
    ASSERT_TRUE(table.contains(key));
    EXPECT_EQ(*table.find(key), value);
  }
}

TEST(FlatMap, AgreesWithAStdMapOnDenseKeys) { run_against_std_map(1, 1); }

TEST(FlatMap, AgreesWithAStdMapOnKeysSpreadOverTheTopBits) { run_against_std_map(std::uint64_t{1} << 32, 2); }

TEST(FlatMap, SetReplacesAndEraseOfAnAbsentKeyDoesNothing) {
  FlatMap<int> table;
  table.set(7, 1);
  table.set(7, 2);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(*table.find(7), 2);
  table.erase(8);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.at(7), 2);
  EXPECT_THROW(table.at(8), std::out_of_range);
  const auto [kept, fresh] = table.try_emplace(7, 5);  // there: left as it is
  EXPECT_FALSE(fresh);
  EXPECT_EQ(*kept, 2);
  const auto [added, added_fresh] = table.try_emplace(9, 5);
  EXPECT_TRUE(added_fresh);
  EXPECT_EQ(*added, 5);
  EXPECT_EQ(table.take(9), 5);
  EXPECT_EQ(table.take(7), 2);
  EXPECT_EQ(table.find(7), nullptr);
  EXPECT_EQ(table.size(), 0u);
}

// A key wider than 64 bits, whose folding collides on purpose: keys that fold alike must
// still be told apart by the whole key.
struct WideKey {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  bool operator==(const WideKey&) const = default;
};
std::uint64_t key_bits(const WideKey& k) { return k.hi ^ k.lo; }

TEST(FlatMap, TellsApartWideKeysThatFoldAlike) {
  FlatMap<int, WideKey> table(2);
  for (std::uint64_t i = 0; i < 64; ++i) table.set(WideKey{i, i}, static_cast<int>(i));  // all fold to 0
  for (std::uint64_t i = 0; i < 64; ++i) table.set(WideKey{i, i + 1}, static_cast<int>(100 + i));
  EXPECT_EQ(table.size(), 128u);
  for (std::uint64_t i = 0; i < 64; i += 2) table.erase(WideKey{i, i});
  EXPECT_EQ(table.size(), 96u);
  for (std::uint64_t i = 0; i < 64; ++i) {
    const int* same = table.find(WideKey{i, i});
    if (i % 2 == 0) {
      EXPECT_EQ(same, nullptr) << i;
    } else {
      ASSERT_NE(same, nullptr) << i;
      EXPECT_EQ(*same, static_cast<int>(i));
    }
    EXPECT_EQ(table.at(WideKey{i, i + 1}), static_cast<int>(100 + i));
  }
}

}  // namespace
}  // namespace collsim::common
