#include "collsim/collectives/collective.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace collsim::collectives {
namespace {

// Lower case without '_' and '-', so "all_reduce", "AllReduce" and "allreduce" meet.
std::string folded(std::string_view name) {
  std::string out;
  for (char ch : name) {
    if (ch == '_' || ch == '-') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  }
  return out;
}

}  // namespace

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::Allreduce: return "allreduce";
    case Collective::Allgather: return "allgather";
    case Collective::ReduceScatter: return "reduce_scatter";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::AllToAll: return "alltoall";
    case Collective::Barrier: return "barrier";
    case Collective::SendRecv: return "sendrecv";
  }
  return "?";
}

std::optional<Collective> collective_from_name(std::string_view name) {
  const std::string key = folded(name);
  for (Collective c : kAllCollectives)
    if (folded(to_string(c)) == key) return c;
  if (key == "bcast") return Collective::Broadcast;
  if (key == "send" || key == "recv" || key == "p2p") return Collective::SendRecv;
  return std::nullopt;
}

bool has_root(Collective c) { return c == Collective::Broadcast || c == Collective::Reduce; }

bool reduces(Collective c) {
  return c == Collective::Allreduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}

std::uint64_t blocks_per_slice(Collective c, std::uint32_t n) {
  switch (c) {
    case Collective::Allreduce:
    case Collective::Broadcast:
    case Collective::Reduce: return 1;
    case Collective::AllToAll: return std::uint64_t{n} * n;
    case Collective::Allgather:
    case Collective::ReduceScatter:
    case Collective::SendRecv:
    case Collective::Barrier: return n;
  }
  return 1;
}

std::uint64_t block_bytes(Collective c, std::uint32_t n, std::uint64_t bytes) {
  switch (c) {
    case Collective::Allreduce:
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::SendRecv: return bytes;
    case Collective::Allgather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return n == 0 ? 0 : bytes / n;
    case Collective::Barrier: return 0;
  }
  return bytes;
}

std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::Auto: return "auto";
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
  }
  return "?";
}

std::optional<Protocol> protocol_from_name(std::string_view name) {
  const std::string key = folded(name);
  for (Protocol p : {Protocol::Auto, Protocol::LL, Protocol::LL128, Protocol::Simple})
    if (folded(to_string(p)) == key) return p;
  return std::nullopt;
}

ProtocolCosts protocol_costs(Protocol p) {
  switch (p) {
    case Protocol::LL:
      // 512 KiB buffer in 8 steps of 64 KiB on the wire, half of it data; one step per chunk.
      return {32 * 1024, 8, SimTime::ns(6600), SimTime::ns(600)};
    case Protocol::LL128:
      // ~4.7 MiB buffer in 8 steps of 600 KiB on the wire, 15/16 data; 4 steps per chunk.
      return {4 * 576000, 2, SimTime::ns(14000), SimTime::ns(1900)};
    case Protocol::Auto:
    case Protocol::Simple:
      // 4 MiB buffer in 8 steps of 512 KiB; ring chunks of 4 steps (NCCL_STEPS / 2).
      return {2 * 1024 * 1024, 2, SimTime::ns(8400), SimTime::ns(3400)};
  }
  return {2 * 1024 * 1024, 2, SimTime::ns(8400), SimTime::ns(3400)};
}

std::uint64_t one_step_bytes(Protocol p) {
  const ProtocolCosts c = protocol_costs(p);
  return c.chunk_bytes * c.max_in_flight / kNcclSteps;
}

std::uint64_t wire_bytes(Protocol p, std::uint64_t data) {
  switch (p) {
    case Protocol::LL: return (data + 3) / 4 * 8;
    case Protocol::LL128: return (data + 119) / 120 * 128;
    case Protocol::Auto:
    case Protocol::Simple: return data;
  }
  return data;
}

}  // namespace collsim::collectives
