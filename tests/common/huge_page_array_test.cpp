#include "collsim/common/huge_page_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace collsim {
namespace {

struct Pair {
  std::uint64_t a;
  std::uint32_t b;
};

TEST(HugePageArray, EmptyHasNoMemory) {
  HugePageArray<int> none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  HugePageArray<int> zero(0);
  EXPECT_TRUE(zero.empty());
  EXPECT_EQ(zero.data(), nullptr);
}

TEST(HugePageArray, SmallAndLargeArraysStartZeroAndKeepWhatIsWritten) {
  // One below a huge page, and several huge pages with a partial last one.
  for (const std::size_t n : {std::size_t{1000}, (std::size_t{5} << 20) / sizeof(Pair) + 3}) {
    HugePageArray<Pair> array(n);
    ASSERT_EQ(array.size(), n);
    std::uint64_t nonzero = 0;
    for (const Pair& p : array.span()) nonzero += (p.a != 0) + (p.b != 0);
    EXPECT_EQ(nonzero, 0u) << n;
    for (std::size_t i = 0; i < n; ++i) array[i] = {i * 3, static_cast<std::uint32_t>(i)};
    EXPECT_EQ(array[n - 1].a, (n - 1) * 3);
    EXPECT_EQ(array[n / 2].b, n / 2);
  }
}

TEST(HugePageArray, MovesItsMemory) {
  HugePageArray<std::uint32_t> a(100);
  a[7] = 42;
  const std::uint32_t* where = a.data();
  HugePageArray<std::uint32_t> b(std::move(a));
  EXPECT_EQ(b.data(), where);
  EXPECT_EQ(b[7], 42u);
  HugePageArray<std::uint32_t> c(3);
  c = std::move(b);
  EXPECT_EQ(c.data(), where);
  EXPECT_EQ(c.size(), 100u);
}

}  // namespace
}  // namespace collsim
