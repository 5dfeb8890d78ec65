#pragma once
// What a collective computes (its postcondition), independent of the algorithm that does it.

#include <cstdint>
#include <optional>
#include <string_view>

#include "collsim/common/sim_time.hpp"

namespace collsim::collectives {

enum class Collective : std::uint8_t {
  Allreduce,
  Allgather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  Barrier,
  SendRecv,  // nccl-tests sendrecv: every rank sends to rank+1 and receives from rank-1
};

inline constexpr Collective kAllCollectives[] = {
    Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter, Collective::Broadcast,
    Collective::Reduce,    Collective::AllToAll,  Collective::Barrier,       Collective::SendRecv};

// "allreduce", "allgather", "reduce_scatter", "broadcast", "reduce", "alltoall", "barrier",
// "sendrecv".
std::string_view to_string(Collective c);
// Also accepts NCCL's and nccl-tests' spellings: "all_reduce", "AllReduce", "reducescatter", ...
std::optional<Collective> collective_from_name(std::string_view name);

// Broadcast and reduce have a root.
bool has_root(Collective c);
// The collective combines contributions (and so costs reduction time).
bool reduces(Collective c);

// How the collective's `bytes` (the nccl-tests "size") is divided into blocks:
//   allreduce, broadcast, reduce:   1 block of `bytes`
//   allgather, reduce_scatter:      n blocks of bytes/n (block b belongs to rank b)
//   alltoall:                       n*n blocks of bytes/n (block (s,d) goes from s to d)
//   sendrecv:                       n blocks of `bytes` (block s is what rank s sends)
//   barrier:                        n blocks of 0 bytes (block s is rank s's arrival)
std::uint64_t blocks_per_slice(Collective c, std::uint32_t n);
std::uint64_t block_bytes(Collective c, std::uint32_t n, std::uint64_t bytes);

// NCCL's protocols: what fraction of the wire carries data, and the latency they add.
enum class Protocol : std::uint8_t { Auto, LL, LL128, Simple };
std::string_view to_string(Protocol p);
std::optional<Protocol> protocol_from_name(std::string_view name);  // "LL", "LL128", "Simple", "auto"

struct ProtocolCosts {
  std::uint64_t chunk_bytes;      // data bytes per pipelined message, by default
  std::uint32_t max_in_flight;    // messages in flight per connection (NCCL_STEPS / chunk steps)
  SimTime launch;                 // once per collective and channel (NCCL's base latency)
  SimTime step;                   // before every send (NCCL's per-hop NVLink latency, minus the link)
};
// Defaults from NCCL 2.30.7's buffers and tuning tables (reference/nccl.md sections 2 and 3).
ProtocolCosts protocol_costs(Protocol p);
// NCCL_STEPS: a connection's buffer has this many slots, one step each.
inline constexpr std::uint32_t kNcclSteps = 8;
// Data bytes in one step of the protocol's buffer: 512 KiB for Simple, 576000 for LL128 (15/16
// of 600 KiB), 32 KiB for LL (half of 64 KiB).
std::uint64_t one_step_bytes(Protocol p);
// Bytes on the wire for `data` bytes of payload: LL carries 4 data bytes per 8, LL128 120 per 128.
std::uint64_t wire_bytes(Protocol p, std::uint64_t data);

}  // namespace collsim::collectives
