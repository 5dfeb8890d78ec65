#pragma once
// Every parameter of the fabric model in one table: name, unit, default and help serve
// parsing (--set name=value, a params file), validation, --help and the dump of the
// configuration a run used.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collsim/common/parameter_table.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::net {

enum class RoutingMode : std::uint8_t { Ecmp, Spray, Adaptive, DimensionOrder, Minimal, Valiant, Ugal, Rail };
enum class CongestionControlKind : std::uint8_t { None, Dcqcn, Swift };

struct FabricParams {
  // packets
  std::uint32_t mtu_bytes = 4096;    // payload per packet
  std::uint32_t header_bytes = 64;   // per packet on the wire
  std::uint32_t ack_bytes = 64;      // wire size of ACK/NACK/CNP/pause frames
  // switches
  bool lossless = true;                   // PFC (true) or tail drop (false)
  std::uint64_t pfc_xoff_bytes = 256 << 10;  // per ingress port and class: pause above
  std::uint64_t pfc_xon_bytes = 128 << 10;   // resume below
  bool ecn = true;
  std::uint64_t ecn_kmin_bytes = 100 << 10;
  std::uint64_t ecn_kmax_bytes = 400 << 10;
  double ecn_pmax = 0.2;
  std::uint32_t priorities = 2;           // strict-priority classes per port (0 highest)
  // A switch port picks its next frame when the one on the wire has at most this many bytes
  // left (two control frames): see Switch. 0: only once the wire is free.
  std::uint32_t arbitration_lead_bytes = 128;
  RoutingMode routing = RoutingMode::Ecmp;
  // transport
  CongestionControlKind cc = CongestionControlKind::None;
  std::uint64_t window_bytes = 0;          // max unacknowledged bytes per flow; 0 = unlimited
  SimTime rto = SimTime::us(100);  // retransmission timeout (lossy mode)
  // The transport's timeout in a lossless fabric, where only failing links lose packets: an
  // RDMA NIC's local ACK timeout, 4.096 us x 2^NCCL_IB_TIMEOUT (18 here). Short ones fire
  // spuriously behind PFC pauses and long queues.
  SimTime rto_lossless = SimTime::ns(4096LL << 18);
  // ACK every n-th data packet (and the last): RC responders coalesce ACKs.
  std::uint32_t ack_every = 16;
  // Steady-state fast-forward: once a flow has sent `settle_packets` packets since it started
  // or was last disturbed (its congestion control cut its rate or shrank its window, its port
  // was paused, an ACK echoed an ECN mark or a wait behind others' data at a switch), it sends
  // its body as trains of up to `train_bytes` of payload that the fabric moves as one unit;
  // its last 15 packets (or a train's worth, if trains are shorter) go one by one, or only its
  // last one with trains_through_queues.
  // 0: off, every packet on its own (exact packet mode).
  std::uint32_t train_bytes = 0;
  std::uint32_t settle_packets = 64;
  // With trains on: a settled flow stays settled while its packets wait behind others' at
  // switches, echo ECN marks or its port is paused, so trains also cross shared queues, where
  // they take turns by trains rather than by packets and fill buffers a train at a time. Only a
  // cut of its congestion control's rate or window unsettles it. Without it, a flow sends
  // trains only while it is alone on its path.
  // (`--fast-forward contended` also settles flows at once, settle_packets 0: see
  // contended_trains.)
  bool trains_through_queues = false;
  // DCQCN (Zhu et al. 2015, defaults as in the ns-3 RDMA models)
  SimTime dcqcn_cnp_interval = SimTime::us(50);
  SimTime dcqcn_alpha_interval = SimTime::us(55);
  SimTime dcqcn_rate_increase_interval = SimTime::us(55);
  double dcqcn_g = 1.0 / 256;
  std::uint64_t dcqcn_byte_counter = 10ull << 20;
  std::uint32_t dcqcn_fast_recovery_steps = 5;
  double dcqcn_additive_gbps = 5;           // R_AI
  double dcqcn_hyper_gbps = 50;             // R_HAI
  double dcqcn_min_rate_gbps = 0.1;
  // Swift-like delay-based window (Kumar et al. 2020, simplified)
  SimTime swift_target_delay = SimTime::us(25);
  double swift_additive_packets = 1.0;      // window growth per RTT below target
  double swift_beta = 0.8;                  // multiplicative decrease gain
  double swift_max_decrease = 0.5;          // at most halve per RTT
  std::uint64_t seed = 1;
};

// The trains of `--fast-forward steady`: 15 packets of 4 KiB, below ECN's and PFC's thresholds
// (ecn_kmin_bytes, pfc_xon_bytes), where they meet others only until the flows unsettle.
inline constexpr std::uint32_t kSteadyTrainBytes = 60 << 10;
// The default parameters with the trains of `--fast-forward steady`.
FabricParams steady_trains();
// ... and of `--fast-forward contended`: trains through queues (trains_through_queues), of
// kContendedTrainBytes, from a flow's first packet on (kContendedSettlePackets; the README gives
// what they cost).
inline constexpr std::uint32_t kContendedTrainBytes = 240 << 10;
inline constexpr std::uint32_t kContendedSettlePackets = 0;
FabricParams contended_trains();

// Every fabric parameter, in display order (common/parameter_table.hpp).
const ParameterTable<FabricParams>& fabric_parameters();

// Shorthands for fabric_parameters().set and .values: sets one parameter from text
// ("mtu_bytes", "4KiB"), throwing std::invalid_argument naming the parameter and what it
// expects; current values as text, for the configuration dump.
void set_fabric_param(FabricParams& params, const std::string& name, const std::string& value);
std::map<std::string, std::string> fabric_param_values(const FabricParams& params);
// Throws std::invalid_argument if values contradict each other (xon > xoff, kmin > kmax, ...).
void validate(const FabricParams& params);
// MTU packets in one train: what train_bytes holds; 1 when trains are off.
std::uint32_t max_train_packets(const FabricParams& params);

std::string_view to_string(RoutingMode mode);
std::string_view to_string(CongestionControlKind kind);

}  // namespace collsim::net
