// A host keeps a flow's state only while the flow is in flight: a long run starts millions of
// flows per host, and their memory must not grow with the run. Finished flows leave without
// changing any time (derived by hand below), and queue pairs keep their order across them.

#include <gtest/gtest.h>

#include "collsim/net/fabric.hpp"
#include "collsim/pdes/transport.hpp"
#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

// Host 0 sends `flows` messages of 10,000 bytes to host 1 one after the other on one queue
// pair, each started when the one before is acknowledged.
class Sequential final : public HostApp {
 public:
  explicit Sequential(std::uint32_t flows) : flows_(flows) {}
  void start(Host& host) override {
    if (host.index() == 0) host.start_flow(1, 10000, 0, {}, Host::kAnyNic, QueuePair{1, 2});
  }
  void on_acked(Host& host, const FlowEnd& end) override {
    last_ack_ps = end.end.picoseconds();
    most_held = std::max(most_held, host.flow_states());
    if (++acked < flows_) host.start_flow(1, 10000, 0, {}, Host::kAnyNic, QueuePair{1, 2});
  }
  void on_delivered(Host&, const FlowEnd&) override { ++delivered; }
  std::uint32_t acked = 0, delivered = 0;
  std::int64_t last_ack_ps = 0;
  std::size_t most_held = 0;

 private:
  std::uint32_t flows_;
};

struct Outcome {
  std::uint32_t acked, delivered;
  std::int64_t last_ack_ps;
  std::size_t most_held, held_after[2];
};

Outcome run(bool lossless, std::uint32_t flows) {
  auto transport = pdes::make_local_transport();
  FabricParams params;
  params.lossless = lossless;
  const topo::Topology star = testing::star(2, Bandwidth::gbps(100), SimTime::ns(1000));  // the fabric keeps a reference
  Fabric fabric(star, params, *transport, FabricOptions{},
                [&](HostIndex) { return std::make_unique<Sequential>(flows); });
  fabric.run();
  const auto& sender = static_cast<const Sequential&>(fabric.local_hosts()[0]->app());
  const auto& receiver = static_cast<const Sequential&>(fabric.local_hosts()[1]->app());
  return {sender.acked, receiver.delivered, sender.last_ack_ps, sender.most_held,
          {fabric.local_hosts()[0]->flow_states(), fabric.local_hosts()[1]->flow_states()}};
}

TEST(FlowState, FinishedFlowsLeaveTheHostsWithoutChangingTheirTimes) {
  // One round: the data's one way, 2 us of links plus the first packet's and all wire bytes
  // (3 packets, 10,000 + 3 × 64 bytes) at 80 ps per byte: 2,000,000 + (4,160 + 10,192) × 80 =
  // 3,148,160 ps; then the 64-byte ACK back: 2,000,000 + 2 × 64 × 80 = 2,010,240 ps. 200
  // rounds end at 200 × 5,158,400 = 1,031,680,000 ps.
  const Outcome o = run(true, 200);
  EXPECT_EQ(o.acked, 200u);
  EXPECT_EQ(o.delivered, 200u);
  EXPECT_EQ(o.last_ack_ps, 1'031'680'000);
  // The sender holds the flow being acknowledged only (it leaves after its callback); the
  // receiver forgot each flow once delivered: nothing of the 200 is left.
  EXPECT_EQ(o.most_held, 1u);
  EXPECT_EQ(o.held_after[0], 0u);
  EXPECT_EQ(o.held_after[1], 0u);
}

TEST(FlowState, ALossyReceiverKeepsDeliveredFlowsToAcknowledgeLateDuplicates) {
  // Without PFC a retransmission may come after delivery, so the receiver keeps each flow
  // (its bitmap freed); the sender's side still leaves. Same times: nothing is lost here.
  const Outcome o = run(false, 50);
  EXPECT_EQ(o.delivered, 50u);
  EXPECT_EQ(o.last_ack_ps, 50 * 5'158'400);
  EXPECT_EQ(o.held_after[0], 0u);
  EXPECT_EQ(o.held_after[1], 50u);
}

}  // namespace
}  // namespace collsim::net
