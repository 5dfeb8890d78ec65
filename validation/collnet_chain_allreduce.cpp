#include "collsim/validation/collnet_chain_allreduce.hpp"

#include <algorithm>
#include <stdexcept>

#include "collsim/goal/schedule_builder.hpp"

namespace collsim::validation {
namespace {

// Chunk sizes of channel c's share [c*S/C, (c+1)*S/C).
std::vector<std::uint64_t> channel_chunks(const CollNetChainAllreduce& a, std::uint32_t c) {
  std::vector<std::uint64_t> out;
  const std::uint64_t lo = a.bytes * c / a.channels, hi = a.bytes * (c + 1) / a.channels;
  for (std::uint64_t at = lo; at < hi; at += a.chunk_bytes) out.push_back(std::min(a.chunk_bytes, hi - at));
  return out;
}

}  // namespace

goal::Schedule make_collnet_chain_allreduce(const CollNetChainAllreduce& a) {
  if (a.gpus == 0) throw std::invalid_argument("CollNetChain allreduce needs at least 1 GPU per node");
  if (a.nodes < 2) throw std::invalid_argument("CollNetChain allreduce needs at least 2 nodes (one node has no network)");
  if (a.rails == 0) throw std::invalid_argument("CollNetChain allreduce needs at least one rail");
  if (a.channels == 0 || a.channels > 255) throw std::invalid_argument("CollNetChain allreduce needs 1..255 channels");
  if (a.chunk_bytes == 0 || a.in_flight == 0) throw std::invalid_argument("CollNetChain allreduce needs a chunk and a window");
  const std::uint32_t gpu_ranks = a.gpus * a.nodes;
  std::vector<std::vector<std::uint64_t>> chunks(a.channels);
  for (std::uint32_t c = 0; c < a.channels; ++c) chunks[c] = channel_chunks(a, c);
  goal::ScheduleBuilder b(gpu_ranks + a.rails);
  for (std::uint32_t r = 0; r < gpu_ranks; ++r) {
    const std::uint32_t node = r / a.gpus, local = r % a.gpus, first = node * a.gpus;
    b.begin_rank(r);
    for (std::uint32_t c = 0; c < a.channels; ++c) {
      const auto cpu = static_cast<std::uint8_t>(c);
      // Position 0 is the head; channel c's chain starts at local GPU c mod gpus.
      const std::uint32_t pos = (local + a.gpus - c % a.gpus) % a.gpus;
      const auto at = [&](std::uint32_t p) { return first + (p + c) % a.gpus; };
      const bool tail = pos + 1 == a.gpus;
      const std::uint32_t below = tail ? 0 : at(pos + 1);
      // Up: the next GPU of the chain, or the rail's aggregation from the head.
      const std::uint32_t up = pos == 0 ? gpu_ranks + c % a.rails : at(pos - 1);
      const goal::LocalOp launch =
          b.add(goal::Op::calc(static_cast<std::uint64_t>(std::max<std::int64_t>(0, a.launch_ns)), cpu));
      goal::LocalOp previous_up = launch, previous_down = launch;
      std::vector<goal::LocalOp> totals;
      for (std::size_t k = 0; k < chunks[c].size(); ++k) {
        const std::uint64_t n = chunks[c][k];
        // Chunks go up in order, each once the partial sum from below is in and a buffer slot
        // is free again (the total of chunk k - in_flight came back down).
        const goal::LocalOp send_up = b.add(goal::Op::send(n, up, c, cpu));
        b.add_requires(send_up, previous_up);
        if (!tail) b.add_requires(send_up, b.add(goal::Op::recv(n, below, c, cpu)));
        if (k >= a.in_flight) b.add_requires(send_up, totals[k - a.in_flight]);
        previous_up = send_up;
        const goal::LocalOp total = b.add(goal::Op::recv(n, up, c, cpu));
        totals.push_back(total);
        if (!tail) {
          const goal::LocalOp send_down = b.add(goal::Op::send(n, below, c, cpu));
          b.add_requires(send_down, total);
          b.add_requires(send_down, previous_down);
          previous_down = send_down;
        }
      }
    }
    b.end_rank();
  }
  for (std::uint32_t rail = 0; rail < a.rails; ++rail) {
    b.begin_rank(gpu_ranks + rail);
    for (std::uint32_t c = rail; c < a.channels; c += a.rails) {
      const auto cpu = static_cast<std::uint8_t>(c);
      for (std::size_t k = 0; k < chunks[c].size(); ++k) {
        std::vector<goal::LocalOp> sums;
        for (std::uint32_t node = 0; node < a.nodes; ++node)
          sums.push_back(b.add(goal::Op::recv(chunks[c][k], node * a.gpus + c % a.gpus, c, cpu)));
        for (std::uint32_t node = 0; node < a.nodes; ++node) {
          const goal::LocalOp out = b.add(goal::Op::send(chunks[c][k], node * a.gpus + c % a.gpus, c, cpu));
          for (goal::LocalOp s : sums) b.add_requires(out, s);
        }
      }
    }
    b.end_rank();
  }
  return b.finish();
}

}  // namespace collsim::validation
