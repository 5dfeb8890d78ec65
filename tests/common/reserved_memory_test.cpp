#include "collsim/common/reserved_memory.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <new>

namespace collsim {
namespace {

TEST(ReservedMemory, GrowsInPlaceZeroFilledAndKeepsWhatWasWritten) {
  ReservedMemory m(std::size_t{1} << 30);  // 1 GiB of address space, nothing usable yet
  EXPECT_EQ(m.usable(), 0u);
  void* const at = m.data();
  m.make_usable(100);
  ASSERT_GE(m.usable(), 100u);
  auto* bytes = static_cast<unsigned char*>(m.data());
  EXPECT_EQ(bytes[99], 0u);
  std::memset(bytes, 7, 100);
  m.make_usable(std::size_t{3} << 20);
  EXPECT_EQ(m.data(), at);  // never moves
  EXPECT_GE(m.usable(), std::size_t{3} << 20);
  EXPECT_EQ(bytes[0], 7u);
  EXPECT_EQ(bytes[(std::size_t{3} << 20) - 1], 0u);
  m.make_usable(10);  // less than usable: nothing changes
  EXPECT_GE(m.usable(), std::size_t{3} << 20);
}

TEST(ReservedMemory, RefusesToGrowPastTheReservation) {
  ReservedMemory m(1 << 16);
  m.make_usable(1 << 16);
  EXPECT_THROW(m.make_usable((1 << 16) + 1), std::bad_alloc);
}

TEST(ReservedMemory, MovesOwnership) {
  ReservedMemory a(1 << 20);
  a.make_usable(4096);
  void* const at = a.data();
  ReservedMemory b(std::move(a));
  EXPECT_EQ(b.data(), at);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.usable(), 0u);
  static_cast<char*>(b.data())[0] = 1;
}

}  // namespace
}  // namespace collsim
