#pragma once
// What a host's executor (HostExecutor) charges besides the network: each rank's cpus (one op
// at a time, the others waiting in order), LogGOPS's o and O, the scale-up port of --scale-up
// message, and how messages map to queue pairs.

#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "collsim/exec/execution.hpp"
#include "collsim/goal/op.hpp"
#include "collsim/net/host_device.hpp"

namespace collsim::exec {

class RankCpus {
 public:
  // Op wants cpu c: true when it has it now, false when it waits behind the op using it.
  bool take(std::uint8_t c, goal::LocalOp op) {
    if (cpus_.size() <= c) cpus_.resize(c + 1u);
    Cpu& cpu = cpus_[c];
    if (cpu.busy) {
      cpu.waiting.push_back(op);
      return false;
    }
    cpu.busy = true;
    return true;
  }
  // The op on cpu c is done: the next op waiting, which has it now, or nothing (it is free).
  std::optional<goal::LocalOp> pass(std::uint8_t c) {
    Cpu& cpu = cpus_[c];
    if (cpu.waiting.empty()) {
      cpu.busy = false;
      return std::nullopt;
    }
    const goal::LocalOp next = cpu.waiting.front();
    cpu.waiting.pop_front();
    return next;
  }

 private:
  struct Cpu {
    bool busy = false;
    std::deque<goal::LocalOp> waiting;
  };
  std::vector<Cpu> cpus_;
};

// A send or a matched receive of `bytes` keeps its cpu busy for o + (bytes - 1) × O.
inline std::int64_t host_overhead_ps(const PacketHostParams& p, std::uint64_t bytes) {
  const double per_byte = bytes > 0 ? static_cast<double>(bytes - 1) * p.O_ns_per_byte : 0.0;
  return p.o_ns * 1000 + static_cast<std::int64_t>(std::llround(per_byte * 1000.0));
}

// The queue pair a message travels on: one per (rank, peer, tag, nic), as NCCL keeps a
// connection per peer and channel (our tag) and MPI's transports a queue pair per peer, so
// that the messages of one connection leave in order while connections take turns.
inline net::QueuePair message_queue_pair(std::uint32_t slot, goal::RankId peer, std::uint32_t tag, std::uint8_t nic) {
  return {((std::uint64_t{slot} + 1) << 8) | nic, (std::uint64_t{peer} << 32) | tag};
}

// A host's scale-up port under --scale-up message: it sends one message's data at a time and
// takes one in at a time.
class ScaleUpPort {
 public:
  ScaleUpPort(const ScaleUpMessages& s, std::uint32_t host) : s_(s), host_(host) {}
  // `other` is another host of this one's server, and messages to it go as delays.
  bool reaches(std::uint32_t other) const {
    return s_.enabled() && other / s_.hosts_per_server == host_ / s_.hosts_per_server && other != host_;
  }
  struct Departure {
    std::int64_t start_ps;  // the data starts leaving (the notice goes then)
    std::int64_t done_ps;   // the data would be acknowledged: the send ends
  };
  // Data of `bytes` cleared to send at `now` leaves once the port has sent what it was sending.
  Departure depart(std::int64_t now, std::uint64_t bytes) {
    const std::int64_t start = std::max(now, tx_free_ps_);
    const std::int64_t wire = s_.wire_time(bytes).picoseconds();
    tx_free_ps_ = start + wire;
    return {start, start + wire + 2 * s_.latency.picoseconds()};
  }
  // Its notice arrived at `now`: the data is in after what the port is taking in.
  std::int64_t arrive(std::int64_t now, std::uint64_t bytes) {
    rx_free_ps_ = std::max(now, rx_free_ps_) + s_.wire_time(bytes).picoseconds();
    return rx_free_ps_;
  }

 private:
  const ScaleUpMessages& s_;
  std::uint32_t host_;
  std::int64_t tx_free_ps_ = 0, rx_free_ps_ = 0;
};

}  // namespace collsim::exec
