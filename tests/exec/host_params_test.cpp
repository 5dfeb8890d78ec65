#include "collsim/exec/host_params.hpp"

#include <gtest/gtest.h>

namespace collsim::exec {
namespace {

TEST(HostParameters, EachCostParsesWithItsRange) {
  const ParameterTable<PacketHostParams>& t = host_parameters();
  PacketHostParams p;
  t.set(p, "o", "1500");
  t.set(p, "O", "0.25");
  t.set(p, "S", "64KiB");
  t.set(p, "control_bytes", "128");
  EXPECT_EQ(p.o_ns, 1500);
  EXPECT_EQ(p.O_ns_per_byte, 0.25);
  EXPECT_EQ(p.eager_limit_bytes, 65536u);
  EXPECT_EQ(p.control_bytes, 128u);
  EXPECT_EQ(t.values(p).at("S"), "64KiB");
  // A cost past the end of simulated time, a negative one, a frame past 16 bits.
  for (const auto& [name, value] : std::vector<std::pair<const char*, const char*>>{
           {"o", "1000000000001"}, {"o", "-1"}, {"O", "1e30"}, {"O", "-0.5"}, {"control_bytes", "0"},
           {"control_bytes", "65536"}, {"control_bytes", "-1"}, {"S", "lots"}})
    EXPECT_THROW(t.set(p, name, value), std::invalid_argument) << name << "=" << value;
}

}  // namespace
}  // namespace collsim::exec
