#include "collsim/status/status_routes.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace collsim::status {
namespace {

using nlohmann::json;

// Five links, highest utilisation first, as the simulation publishes them.
void publish_five_links(StatusBoard& board) {
  board.publish_links({{"h0 -> leaf0", 5000, 0.5},
                       {"leaf0 -> spine0", 4000, 0.4},
                       {"spine0 -> leaf1", 3000, 0.3},
                       {"leaf1 -> h1", 2000, 0.2},
                       {"h1 -> leaf1", 1000, 0.1}},
                      9'000'000);
}

std::string error_of(const StatusReply& reply) { return json::parse(reply.body).at("error").get<std::string>(); }

TEST(StatusRoutes, StatusListsEveryField) {
  StatusBoard board;
  RunStatus s;
  s.sim_time_ps = 12'345'000;
  s.events = 987'654'321'012ULL;
  s.events_per_s = 1.5e6;
  s.ops_completed = 4000;
  s.ops_total = 4096;
  s.ranks = 8;
  s.wall_s = 0.25;
  s.state = "failed";
  board.publish(s);
  const auto reply = answer(board, "GET", "/status");
  ASSERT_EQ(reply.code, 200u);
  const auto j = json::parse(reply.body);
  EXPECT_EQ(j.size(), 8u);
  EXPECT_EQ(j.at("sim_time_ps").get<std::int64_t>(), 12'345'000);
  EXPECT_EQ(j.at("events").get<std::uint64_t>(), 987'654'321'012ULL);
  EXPECT_DOUBLE_EQ(j.at("events_per_s").get<double>(), 1.5e6);
  EXPECT_EQ(j.at("ops_completed").get<std::uint64_t>(), 4000u);
  EXPECT_EQ(j.at("ops_total").get<std::uint64_t>(), 4096u);
  EXPECT_EQ(j.at("ranks").get<std::uint32_t>(), 8u);
  EXPECT_DOUBLE_EQ(j.at("wall_s").get<double>(), 0.25);
  EXPECT_EQ(j.at("state").get<std::string>(), "failed");
}

TEST(StatusRoutes, HeadAnswersLikeGet) {
  StatusBoard board;
  EXPECT_EQ(answer(board, "HEAD", "/status").body, answer(board, "GET", "/status").body);
}

TEST(StatusRoutes, TopLinksRespectsNAndOrder) {
  StatusBoard board;
  publish_five_links(board);
  const auto reply = answer(board, "GET", "/links/top?n=3");
  ASSERT_EQ(reply.code, 200u);
  const auto j = json::parse(reply.body);
  EXPECT_EQ(j.at("as_of_sim_time_ps").get<std::int64_t>(), 9'000'000);
  const auto& links = j.at("links");
  ASSERT_EQ(links.size(), 3u);
  EXPECT_EQ(links[0].at("link"), "h0 -> leaf0");
  EXPECT_EQ(links[0].at("bytes").get<std::uint64_t>(), 5000u);
  EXPECT_DOUBLE_EQ(links[0].at("utilisation").get<double>(), 0.5);
  EXPECT_EQ(links[1].at("link"), "leaf0 -> spine0");
  EXPECT_EQ(links[2].at("link"), "spine0 -> leaf1");
}

TEST(StatusRoutes, TopLinksDefaultsToTenAndAsksForAFreshMeasurement) {
  StatusBoard board;
  std::vector<LinkLoad> links;
  for (int i = 0; i < 12; ++i) links.push_back({"l" + std::to_string(i), 0, 0});
  board.publish_links(links, 5);
  EXPECT_FALSE(board.links_requested());
  const auto j = json::parse(answer(board, "GET", "/links/top").body);
  EXPECT_EQ(j.at("links").size(), 10u);
  EXPECT_TRUE(board.links_requested());
}

TEST(StatusRoutes, TopLinksBeforeAnyMeasurementIsEmptyWithNullTime) {
  StatusBoard board;
  const auto j = json::parse(answer(board, "GET", "/links/top?n=1000").body);
  EXPECT_TRUE(j.at("as_of_sim_time_ps").is_null());
  EXPECT_TRUE(j.at("links").empty());
}

TEST(StatusRoutes, BadNIsRejected) {
  StatusBoard board;
  publish_five_links(board);
  for (const char* target : {"/links/top?n=abc", "/links/top?n=", "/links/top?n", "/links/top?n=0",
                             "/links/top?n=1001", "/links/top?n=-1", "/links/top?n=+5", "/links/top?n=5x",
                             "/links/top?n=99999999999999999999999", "/links/top?n=2&n=3", "/links/top?m=2"}) {
    const auto reply = answer(board, "GET", target);
    EXPECT_EQ(reply.code, 400u) << target;
    EXPECT_FALSE(error_of(reply).empty()) << target;
  }
  EXPECT_NE(error_of(answer(board, "GET", "/links/top?n=abc")).find("1 to 1000"), std::string::npos);
  EXPECT_EQ(answer(board, "GET", "/links/top?n=1000").code, 200u);
  EXPECT_EQ(answer(board, "GET", "/links/top?n=1").code, 200u);
}

TEST(StatusRoutes, UnknownPathsAre404) {
  StatusBoard board;
  for (const char* target : {"/", "/statu", "/status/", "/links", "/links/top/x", "/STATUS"}) {
    const auto reply = answer(board, "GET", target);
    EXPECT_EQ(reply.code, 404u) << target;
    EXPECT_NE(error_of(reply).find("/status"), std::string::npos) << target;  // says what exists
  }
}

TEST(StatusRoutes, OtherMethodsAre405AndOddTargets400) {
  StatusBoard board;
  EXPECT_EQ(answer(board, "POST", "/status").code, 405u);
  EXPECT_EQ(answer(board, "DELETE", "/links/top").code, 405u);
  EXPECT_EQ(answer(board, "get", "/status").code, 405u);  // methods are case-sensitive
  EXPECT_EQ(answer(board, "GET", "status").code, 400u);
  EXPECT_EQ(answer(board, "GET", "*").code, 400u);
  EXPECT_EQ(answer(board, "GET", "/status?verbose=1").code, 400u);
}

TEST(StatusRoutes, InvalidUtf8InALinkNameDoesNotThrow) {
  StatusBoard board;
  board.publish_links({{std::string("sw\xff -> h0"), 1, 0.1}}, 1);
  const auto reply = answer(board, "GET", "/links/top?n=1");
  EXPECT_EQ(reply.code, 200u);
  EXPECT_EQ(json::parse(reply.body).at("links").size(), 1u);
}

}  // namespace
}  // namespace collsim::status
