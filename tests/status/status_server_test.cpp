#include "collsim/status/status_server.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "status/loopback_client.hpp"

namespace collsim::status {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::body_of;
using testing::exchange;
using testing::get;
using testing::SilentClient;
using testing::status_code;

// Publishes like a simulation does, until stopped or a bounded number of steps: step i has
// done i ops of 1'000'000, 10 i events, and reached 1000 i ps, so a reader can check that it
// got one whole snapshot.
class FakeSimulation {
 public:
  explicit FakeSimulation(StatusBoard& board)
      : thread_([this, &board] {
          for (std::uint64_t i = 1; i <= 100'000 && !stop_; ++i) {
            RunStatus s;
            s.ops_completed = i;
            s.ops_total = 1'000'000;
            s.events = 10 * i;
            s.sim_time_ps = static_cast<std::int64_t>(1000 * i);
            s.ranks = 4;
            board.publish(s);
            std::this_thread::sleep_for(20us);
          }
        }) {}
  ~FakeSimulation() { stop(); }
  FakeSimulation(const FakeSimulation&) = delete;
  FakeSimulation& operator=(const FakeSimulation&) = delete;
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(StatusServer, PicksAFreePortAndSaysWhere) {
  StatusBoard board;
  const StatusServer server(board);
  EXPECT_NE(server.port(), 0);
  EXPECT_EQ(server.address(), "127.0.0.1:" + std::to_string(server.port()));
}

// IPv6 addresses are bracketed so that "host:port" stays unambiguous.
TEST(StatusServer, ListensOnIpv6Loopback) {
  StatusBoard board;
  std::unique_ptr<StatusServer> server;
  try {
    server = std::make_unique<StatusServer>(board, "::1");
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  EXPECT_EQ(server->address(), "[::1]:" + std::to_string(server->port()));
}

TEST(StatusServer, AnswersStatusWhileTheSimulationPublishes) {
  StatusBoard board;
  const StatusServer server(board);
  FakeSimulation simulation(board);
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  while (board.status().ops_completed == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  std::uint64_t last_ops = 0;
  for (int i = 0; i < 5; ++i) {
    const auto reply = exchange(server.port(), get("/status"));
    ASSERT_EQ(status_code(reply.received), 200u) << reply.received;
    EXPECT_NE(reply.received.find("Content-Type: application/json"), std::string::npos);
    EXPECT_TRUE(reply.closed);  // Connection: close
    const auto j = json::parse(body_of(reply.received));
    const auto ops = j.at("ops_completed").get<std::uint64_t>();
    EXPECT_EQ(j.at("events").get<std::uint64_t>(), 10 * ops);
    EXPECT_EQ(j.at("sim_time_ps").get<std::int64_t>(), static_cast<std::int64_t>(1000 * ops));
    EXPECT_EQ(j.at("ops_total").get<std::uint64_t>(), 1'000'000u);
    EXPECT_EQ(j.at("ranks").get<std::uint32_t>(), 4u);
    EXPECT_EQ(j.at("state").get<std::string>(), "running");
    EXPECT_GE(ops, last_ops);
    last_ops = ops;
  }
  EXPECT_GT(last_ops, 0u);  // the answers came while the simulation ran
  simulation.stop();
  RunStatus done;
  done.sim_time_ps = 2'500'000;
  done.events = 123'456;
  done.events_per_s = 2.0e6;
  done.ops_completed = 64;
  done.ops_total = 64;
  done.ranks = 2;
  done.wall_s = 0.0625;
  done.state = "finished";
  board.publish(done);
  const auto j = json::parse(body_of(exchange(server.port(), get("/status")).received));
  EXPECT_EQ(j.at("sim_time_ps").get<std::int64_t>(), 2'500'000);
  EXPECT_EQ(j.at("events").get<std::uint64_t>(), 123'456u);
  EXPECT_DOUBLE_EQ(j.at("events_per_s").get<double>(), 2.0e6);
  EXPECT_EQ(j.at("ops_completed").get<std::uint64_t>(), 64u);
  EXPECT_DOUBLE_EQ(j.at("wall_s").get<double>(), 0.0625);
  EXPECT_EQ(j.at("state").get<std::string>(), "finished");
}

TEST(StatusServer, TopLinksRespectsNAndOrderAndAsksForAMeasurement) {
  StatusBoard board;
  board.publish_links({{"h0 -> leaf0", 900, 0.9}, {"leaf0 -> spine0", 800, 0.8}, {"spine0 -> leaf1", 700, 0.7}},
                      4'000'000);
  const StatusServer server(board);
  EXPECT_FALSE(board.links_requested());
  const auto reply = exchange(server.port(), get("/links/top?n=2"));
  ASSERT_EQ(status_code(reply.received), 200u) << reply.received;
  EXPECT_TRUE(board.links_requested());
  const auto j = json::parse(body_of(reply.received));
  EXPECT_EQ(j.at("as_of_sim_time_ps").get<std::int64_t>(), 4'000'000);
  ASSERT_EQ(j.at("links").size(), 2u);
  EXPECT_EQ(j.at("links")[0].at("link"), "h0 -> leaf0");
  EXPECT_EQ(j.at("links")[1].at("link"), "leaf0 -> spine0");
  EXPECT_EQ(j.at("links")[1].at("bytes").get<std::uint64_t>(), 800u);
}

TEST(StatusServer, HeadSendsTheHeadersOnly) {
  StatusBoard board;
  const StatusServer server(board);
  const auto reply = exchange(server.port(), "HEAD /status HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(status_code(reply.received), 200u) << reply.received;
  EXPECT_TRUE(body_of(reply.received).empty());
  EXPECT_NE(reply.received.find("Content-Length: "), std::string::npos);
  EXPECT_EQ(reply.received.find("Content-Length: 0\r\n"), std::string::npos);  // the GET body's length
}

TEST(StatusServer, RejectsBadRequestsWithAJsonError) {
  StatusBoard board;
  const StatusServer server(board);
  struct Case {
    const char* request;
    unsigned code;
  };
  for (const auto& [request, code] : std::vector<Case>{
           {"GARBAGE\r\n\r\n", 400},
           {"GET /status\r\n\r\n", 400},                 // no HTTP version
           {"GET /status HTTP/9.9\r\n\r\n", 400},        // no such version
           {"GET  /status HTTP/1.1\r\n\r\n", 400},       // two spaces
           {"G(T /status HTTP/1.1\r\n\r\n", 400},        // not a method token
           {"GET /links/top?n=abc HTTP/1.1\r\n\r\n", 400},
           {"GET /links/top?n=5000 HTTP/1.1\r\n\r\n", 400},
           {"GET /status HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", 400},
           {"POST /status HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405},
           {"GET /nowhere HTTP/1.1\r\n\r\n", 404},
       }) {
    const auto reply = exchange(server.port(), request);
    EXPECT_EQ(status_code(reply.received), code) << request << "\n-> " << reply.received;
    EXPECT_TRUE(reply.closed) << request;
    const auto body = json::parse(body_of(reply.received), nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << request << "\n-> " << reply.received;
    EXPECT_TRUE(body.contains("error")) << request;
  }
  const auto reply = exchange(server.port(), "PUT /status HTTP/1.1\r\n\r\n");
  EXPECT_NE(reply.received.find("Allow: GET, HEAD"), std::string::npos) << reply.received;
}

// Garbage and near-misses of a valid request: each gets an HTTP answer with a JSON body, or is
// closed without one, within the deadline, and the server keeps serving. Seeded: reproducible.
TEST(StatusServer, SurvivesRandomRequests) {
  StatusBoard board;
  board.publish_links({{"a -> b", 1, 0.5}}, 1);
  const StatusServer server(board);
  std::mt19937 random(20261122);
  const std::string valid = "GET /links/top?n=5 HTTP/1.1\r\nHost: x\r\n\r\n";
  std::map<unsigned, int> codes;  // 0: closed without an answer
  for (int i = 0; i < 300; ++i) {
    std::string request = valid;
    if (i % 3 == 0) {
      request.assign(std::uniform_int_distribution<std::size_t>(0, 200)(random), '\0');
      for (auto& c : request) c = static_cast<char>(random());
    } else {
      for (int edit = 0, edits = std::uniform_int_distribution<int>(1, 4)(random); edit < edits; ++edit) {
        const auto at = std::uniform_int_distribution<std::size_t>(0, request.size() - 1)(random);
        switch (random() % 3) {
          case 0: request[at] = static_cast<char>(random()); break;
          case 1: request.erase(at, 1); break;
          default: request.insert(at, 1, static_cast<char>(random())); break;
        }
      }
    }
    const auto reply = exchange(server.port(), request, 3s, true);
    ASSERT_TRUE(reply.closed) << "request " << i << " left hanging";
    const auto code = status_code(reply.received);
    ++codes[code];
    if (reply.received.empty()) continue;
    EXPECT_TRUE(code == 200 || code == 400 || code == 404 || code == 405 || code == 431)
        << "request " << i << " -> " << reply.received;
    EXPECT_FALSE(json::parse(body_of(reply.received), nullptr, false).is_discarded()) << reply.received;
  }
  // The mix reached past the parser too: some edits leave a valid request, most do not.
  EXPECT_GT(codes[200], 0);
  EXPECT_GT(codes[400], 50);
  EXPECT_EQ(status_code(exchange(server.port(), get("/status")).received), 200u);
}

TEST(StatusServer, CutsOffAnOversizedHeader) {
  StatusBoard board;
  const StatusServer server(board);
  // 16 KiB of header, twice the 8 KiB limit: answered 431 and closed.
  const auto big = "GET /status HTTP/1.1\r\nX-Padding: " + std::string(16 * 1024, 'a') + "\r\n\r\n";
  const auto reply = exchange(server.port(), big);
  EXPECT_EQ(status_code(reply.received), 431u) << reply.received.substr(0, 200);
  EXPECT_TRUE(reply.closed);
  // A header that never ends (64 MiB of it): the server stops reading and closes long before.
  const auto endless = "GET /status HTTP/1.1\r\nX-Padding: " + std::string(64 << 20, 'a');
  const auto cut = exchange(server.port(), endless, 5s);
  EXPECT_TRUE(cut.closed);
  EXPECT_TRUE(cut.write_failed);
}

TEST(StatusServer, ASilentClientDoesNotHoldUpOthersAndIsDropped) {
  StatusBoard board;
  ServerLimits limits;
  limits.request_timeout = 1s;
  const StatusServer server(board, "127.0.0.1", 0, limits);
  SilentClient silent(server.port());
  SilentClient slow(server.port());
  slow.send("GET /sta");  // and then nothing more
  const auto start = std::chrono::steady_clock::now();
  const auto reply = exchange(server.port(), get("/status"), 2s);
  EXPECT_EQ(status_code(reply.received), 200u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, limits.request_timeout);  // not after the silent ones
  EXPECT_TRUE(silent.closed_by_server_within(3s));
  EXPECT_TRUE(slow.closed_by_server_within(3s));
}

// The timeout bounds the whole request, not the gap between bytes: a client that trickles one
// byte every 50 ms is dropped after 300 ms although it is never idle for long.
TEST(StatusServer, ATricklingClientIsDroppedAtTheDeadline) {
  StatusBoard board;
  ServerLimits limits;
  limits.request_timeout = 300ms;
  const StatusServer server(board, "127.0.0.1", 0, limits);
  SilentClient trickle(server.port());
  const auto start = std::chrono::steady_clock::now();
  bool dropped = false;
  for (int i = 0; i < 60 && !dropped; ++i) {  // at most 3 s
    try {
      trickle.send("X");
    } catch (const std::exception&) {
      dropped = true;
      break;
    }
    dropped = trickle.closed_by_server_within(50ms);
  }
  EXPECT_TRUE(dropped);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(StatusServer, ServesSeveralClientsAtOnce) {
  StatusBoard board;
  const StatusServer server(board);
  std::vector<std::future<unsigned>> clients;
  for (int i = 0; i < 8; ++i) {
    clients.push_back(std::async(std::launch::async, [&server, i] {
      return status_code(exchange(server.port(), get(i % 2 == 0 ? "/status" : "/links/top?n=1")).received);
    }));
  }
  for (auto& client : clients) EXPECT_EQ(client.get(), 200u);
}

TEST(StatusServer, ClosesConnectionsBeyondTheLimit) {
  StatusBoard board;
  ServerLimits limits;
  limits.max_connections = 2;
  const StatusServer server(board, "127.0.0.1", 0, limits);
  SilentClient first(server.port());
  SilentClient second(server.port());
  const auto third = exchange(server.port(), get("/status"), 2s);
  EXPECT_TRUE(third.closed);
  EXPECT_TRUE(third.received.empty());
  EXPECT_FALSE(first.closed_by_server_within(50ms));  // the two within the limit are still open
}

TEST(StatusServer, DestructorReturnsPromptlyWithClientsConnected) {
  StatusBoard board;
  auto server = std::make_unique<StatusServer>(board);  // default 5 s request timeout
  SilentClient silent(server->port());
  SilentClient partial(server->port());
  partial.send("GET /status HTTP/1.1\r\n");
  ASSERT_EQ(status_code(exchange(server->port(), get("/status")).received), 200u);  // serving
  const auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(silent.closed_by_server_within(1s));
  EXPECT_TRUE(partial.closed_by_server_within(1s));
}

TEST(StatusServer, APortInUseIsAClearError) {
  StatusBoard board;
  const StatusServer first(board);
  try {
    const StatusServer second(board, "127.0.0.1", first.port());
    FAIL() << "a second server listened on the same port";
  } catch (const std::runtime_error& e) {
    const std::string expected = "cannot listen on 127.0.0.1:" + std::to_string(first.port()) + ": address already in use";
    EXPECT_EQ(e.what(), expected);
  }
}

TEST(StatusServer, ABindAddressThatIsNoAddressIsAClearError) {
  StatusBoard board;
  try {
    const StatusServer server(board, "localhost:80", 0);
    FAIL() << "listened on a malformed address";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on localhost:80:0: not an IP address"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace collsim::status
