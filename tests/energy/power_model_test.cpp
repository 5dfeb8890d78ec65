#include "collsim/energy/power_model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace collsim::energy {
namespace {

TEST(PowerModel, GpuPresetsAreTheBoardsTdp) {
  EXPECT_DOUBLE_EQ(gpu_power_preset("A100")->compute_w, 400);
  EXPECT_DOUBLE_EQ(gpu_power_preset("H100")->compute_w, 700);
  EXPECT_DOUBLE_EQ(gpu_power_preset("H200")->compute_w, 700);
  EXPECT_DOUBLE_EQ(gpu_power_preset("B200")->compute_w, 1000);
  EXPECT_FALSE(gpu_power_preset("MI300X").has_value());
  for (const std::string& d : gpu_power_presets()) {
    const GpuPower g = *gpu_power_preset(d);
    EXPECT_LT(g.idle_w, g.comm_w) << d;
    EXPECT_LT(g.comm_w, g.compute_w) << d;
  }
}

TEST(PowerModel, ParametersSetAndReadBack) {
  PowerModel m = default_power_model("H100");
  EXPECT_DOUBLE_EQ(m.gpu.compute_w, 700);
  EXPECT_DOUBLE_EQ(m.pue, 1.56);
  power_parameters().set(m, "pue", "1.1");
  power_parameters().set(m, "gpu_idle_w", "80");
  power_parameters().set(m, "carbon_g_per_kwh", "32");
  EXPECT_DOUBLE_EQ(m.pue, 1.1);
  EXPECT_DOUBLE_EQ(m.gpu.idle_w, 80);
  EXPECT_EQ(power_parameters().values(m).at("carbon_g_per_kwh"), "32");
}

TEST(PowerModel, BadValuesAreRefusedWithTheirName) {
  PowerModel m;
  try {
    power_parameters().set(m, "pue", "0.5");
    FAIL() << "a PUE below 1 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pue"), std::string::npos);
  }
  EXPECT_THROW(power_parameters().set(m, "nic_w", "ten"), std::invalid_argument);
  EXPECT_THROW(power_parameters().set(m, "gpu_idle_w", "-1"), std::invalid_argument);
  try {
    power_parameters().set(m, "nic_ww", "1");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean nic_w"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::energy
