#include "collsim/common/parameter_table.hpp"

#include <gtest/gtest.h>

#include <charconv>

namespace collsim {
namespace {

struct Knobs {
  int size = 3;
  bool on = false;
};

ParameterTable<Knobs> table() {
  return ParameterTable<Knobs>(
      "knob", {{"size", "count", "how many",
                [](Knobs& k, std::string_view v) {
                  int out = 0;
                  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
                  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || out < 1)
                    throw std::invalid_argument("knob size: expected a whole number of at least 1");
                  k.size = out;
                },
                [](const Knobs& k) { return std::to_string(k.size); }},
               {"on", "bool", "whether", [](Knobs& k, std::string_view v) { k.on = v == "true"; },
                [](const Knobs& k) { return std::string(k.on ? "true" : "false"); }}});
}

TEST(ParameterTable, SetsReadsBackAndDescribesEachRow) {
  const ParameterTable<Knobs> t = table();
  Knobs k;
  t.set(k, "size", "7");
  t.set(k, "on", "true");
  EXPECT_EQ(k.size, 7);
  EXPECT_EQ(t.values(k), (std::map<std::string, std::string>{{"on", "true"}, {"size", "7"}}));
  EXPECT_EQ(t.help(Knobs{}), "  size = 3  [count] how many\n  on = false  [bool] whether\n");
  EXPECT_EQ(t.find("on")->unit, "bool");
  EXPECT_EQ(t.find("off"), nullptr);
}

TEST(ParameterTable, AnUnknownNameListsTheKnownOnesAndTheNearest) {
  Knobs k;
  try {
    table().set(k, "sise", "1");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown knob 'sise' (did you mean size?); known: size, on");
  }
  EXPECT_THROW(table().set(k, "size", "0"), std::invalid_argument);  // the row's own range check
  EXPECT_EQ(k.size, 3);
}

}  // namespace
}  // namespace collsim
