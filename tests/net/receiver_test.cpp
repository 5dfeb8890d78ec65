// What a receiver holds: packets below `expected` without a bit each (a flow that arrives in
// order never keeps a bitmap), those beyond it by their bit.

#include <gtest/gtest.h>

#include "collsim/net/host_device.hpp"

namespace collsim::net {
namespace {

TEST(Receiver, AnInOrderPrefixIsHeldWithoutABitmap) {
  detail::Receiver r;
  r.extend_prefix(1, 4096);
  r.extend_prefix(2, 8192);
  EXPECT_EQ(r.count, 3u);
  EXPECT_EQ(r.expected, 3u);
  EXPECT_EQ(r.bytes, 12288u);
  EXPECT_TRUE(r.got.empty());
  EXPECT_TRUE(r.holds(0));
  EXPECT_TRUE(r.holds(2));
  EXPECT_FALSE(r.holds(3));
}

TEST(Receiver, PacketsBeyondThePrefixAreHeldByTheirBit) {
  detail::Receiver r;
  r.extend_prefix(64, 64 * 4096);
  r.got.assign(2, 0);
  r.got[1] |= std::uint64_t{1} << (70 % 64);  // packet 70 came early; 64..69 are missing
  EXPECT_TRUE(r.holds(63));
  EXPECT_FALSE(r.holds(64));
  EXPECT_FALSE(r.holds(69));
  EXPECT_TRUE(r.holds(70));
  EXPECT_FALSE(r.holds(71));
  EXPECT_FALSE(r.holds(200));  // past the bitmap's words
}

}  // namespace
}  // namespace collsim::net
