#pragma once
// What running a GOAL schedule produces, whatever the network model, and the host costs of
// the packet mode.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/exec/compute_variation.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::exec {

// An explicit, opt-in approximation of the packet mode (`--scale-up message`): the data of
// a rendezvous message between two hosts of one server (NVLink through the NVSwitch) does
// not go as packets. Once cleared to send, the sender's scale-up port is busy for the data's
// wire time (payload plus a header per MTU, at the port's rate), and one control-sized
// notice goes through the fabric instead; the receiver takes the data in over its own port
// after the notice arrives (wire time again, one message at a time, so an incast
// serialises), and the sender's op finishes when the data would be acknowledged (wire time
// plus a round trip). Requests, clear-to-sends, eager messages and everything between
// servers stay packets. Why: the TP collectives of a large training step are ~10^11 NVLink
// packets. What it misses: packets of several messages interleaving (messages go one after
// another per port, same total), and the NVSwitch's own queues (the notices still cross it);
// recorded flows (--hdf5) and link bytes show the notices, not the data.
struct ScaleUpMessages {
  std::uint32_t hosts_per_server = 0;  // 0: off; hosts h and k share a server if h / n == k / n
  std::int64_t bits_per_s = 0;         // the port's rate (the path's bottleneck)
  SimTime latency;                     // host to host, one way
  std::uint32_t mtu_bytes = 4096;      // the fabric's payload per packet ...
  std::uint32_t header_bytes = 0;      // ... and header
  bool enabled() const { return hosts_per_server > 0 && bits_per_s > 0; }
  // On the wire for `bytes` of payload, rounded up to the picosecond.
  SimTime wire_time(std::uint64_t bytes) const;
};

// Costs at the end hosts in packet mode (the network's own costs come from the fabric).
// LogGOPS's o and O: a send or a matched receive of s bytes keeps its cpu busy for
// o + (s-1)*O. Messages above the eager limit S go by rendezvous: a request of
// control_bytes travels to the receiver, which answers clear-to-send once a receive matches,
// and only then the data flows.
struct PacketHostParams {
  std::int64_t o_ns = 0;
  double O_ns_per_byte = 0.0;
  std::uint64_t eager_limit_bytes = 65535;
  std::uint64_t control_bytes = 64;
  ScaleUpMessages scale_up;
  // How calcs depart from their scheduled times (stragglers, noise); null: as scheduled.
  std::shared_ptr<const ComputeVariation> compute;
};

// When an op ran; empty where it never started or never ended.
struct OpTime {
  goal::RankId rank;
  goal::LocalOp op;
  std::optional<SimTime> start;
  std::optional<SimTime> end;
};

// One message's data through the fabric, from the sender starting it to its last byte
// arriving (empty: never arrived). Control messages of the rendezvous are not listed.
struct MessageFlow {
  std::uint32_t src_host = 0;
  std::uint32_t dst_host = 0;
  std::uint64_t bytes = 0;
  SimTime start;
  std::optional<SimTime> end;
};

struct RunResult {
  bool complete = true;               // every op finished and no message is left over
  SimTime makespan;
  std::vector<SimTime> rank_finish;   // per rank: when its last op finished
  std::uint64_t ops_total = 0;
  std::uint64_t peak_live_ops = 0;    // streamed runs: most ops held at once, summed over simulator ranks
  std::uint64_t ops_completed = 0;
  std::uint64_t messages = 0;         // sends completed
  std::uint64_t bytes = 0;            // bytes of the completed sends
  std::uint64_t events = 0;
  double wall_s = 0;
  double events_per_s = 0;
  std::vector<std::string> blocked;   // one line per op that never finished
  std::vector<std::string> unmatched; // one line per message nobody received
  std::string pfc_deadlock;           // packet mode, on rank 0: the cycle of paused ports the run stalled on
  std::vector<OpTime> op_times;       // when asked for, ordered by rank and op
  std::vector<MessageFlow> flows;     // when asked for, ordered by start, source, destination, size, end
};

// As the result files and the JSON write a time: picoseconds, -1 for one that never came.
constexpr std::int64_t picoseconds_or_never(const std::optional<SimTime>& t) { return t ? t->picoseconds() : -1; }

// "op 12 (send 1024 b to 3 tag 0 cpu 0 nic 0)"
std::string describe_op(goal::LocalOp index, const goal::Op& op);

}  // namespace collsim::exec
