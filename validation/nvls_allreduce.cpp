#include "collsim/validation/nvls_allreduce.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collsim/goal/schedule_builder.hpp"

namespace collsim::validation {

goal::Schedule make_nvls_allreduce(const NvlsAllreduce& a) {
  if (a.gpus < 2) throw std::invalid_argument("NVLS allreduce needs at least 2 GPUs");
  if (a.nodes != 1 && a.nodes != 2) throw std::invalid_argument("NVLS allreduce is emulated on 1 or 2 nodes");
  if (a.channels == 0 || a.channels > 255) throw std::invalid_argument("NVLS allreduce needs 1..255 channels");
  if (a.chunk_bytes == 0 || a.in_flight == 0) throw std::invalid_argument("NVLS allreduce needs a chunk and a window");
  const std::uint32_t gpu_ranks = a.gpus * a.nodes;
  // Channel c carries bytes [c*S/C, (c+1)*S/C), cut into chunks.
  std::vector<std::vector<std::uint64_t>> chunks(a.channels);
  for (std::uint32_t c = 0; c < a.channels; ++c) {
    const std::uint64_t lo = a.bytes * c / a.channels, hi = a.bytes * (c + 1) / a.channels;
    for (std::uint64_t at = lo; at < hi; at += a.chunk_bytes) chunks[c].push_back(std::min(a.chunk_bytes, hi - at));
  }
  goal::ScheduleBuilder b(gpu_ranks + a.nodes);
  for (std::uint32_t r = 0; r < gpu_ranks; ++r) {
    const std::uint32_t engine = gpu_ranks + r / a.gpus;
    b.begin_rank(r);
    for (std::uint32_t c = 0; c < a.channels; ++c) {
      const auto cpu = static_cast<std::uint8_t>(c);
      const goal::LocalOp launch = b.add(goal::Op::calc(static_cast<std::uint64_t>(std::max<std::int64_t>(0, a.launch_ns)), cpu));
      std::vector<goal::LocalOp> recvs;
      goal::LocalOp previous = launch;
      for (std::size_t k = 0; k < chunks[c].size(); ++k) {
        // A channel streams its chunks in order (concurrent sends would share the link and all
        // finish late together).
        const goal::LocalOp send = b.add(goal::Op::send(chunks[c][k], engine, c, cpu));
        b.add_requires(send, previous);
        previous = send;
        // The chunk's buffer slot is free again once the sum of chunk k - in_flight is back.
        if (k >= a.in_flight) b.add_requires(send, recvs[k - a.in_flight]);
        recvs.push_back(b.add(goal::Op::recv(chunks[c][k], engine, c, cpu)));
      }
    }
    b.end_rank();
  }
  for (std::uint32_t node = 0; node < a.nodes; ++node) {
    const std::uint32_t first = node * a.gpus, other_engine = gpu_ranks + (1 - node);
    b.begin_rank(gpu_ranks + node);
    for (std::uint32_t c = 0; c < a.channels; ++c) {
      const auto cpu = static_cast<std::uint8_t>(c);
      for (std::size_t k = 0; k < chunks[c].size(); ++k) {
        std::vector<goal::LocalOp> in;
        for (std::uint32_t g = 0; g < a.gpus; ++g) in.push_back(b.add(goal::Op::recv(chunks[c][k], first + g, c, cpu)));
        if (a.nodes == 2) {
          // Channel c crosses through NIC c (modulo the node's), as NCCL binds its channels.
          const goal::LocalOp out = b.add(goal::Op::send(chunks[c][k], other_engine, c, cpu, cpu));
          for (goal::LocalOp i : in) b.add_requires(out, i);
          in.push_back(b.add(goal::Op::recv(chunks[c][k], other_engine, c, cpu, cpu)));
        }
        for (std::uint32_t g = 0; g < a.gpus; ++g) {
          const goal::LocalOp out = b.add(goal::Op::send(chunks[c][k], first + g, c, cpu));
          for (goal::LocalOp i : in) b.add_requires(out, i);
        }
      }
    }
    b.end_rank();
  }
  return b.finish();
}

double nccl_nvls_efficiency(coll::GpuArch arch) { return arch == coll::GpuArch::Blackwell ? 0.74 : 0.85; }

double nvls_model_time_us(const SystemPreset& p, std::uint32_t ranks, std::uint32_t channels, std::uint64_t bytes,
                          std::uint32_t nodes, double inter_latency_us) {
  const double eff = nccl_nvls_efficiency(p.arch);
  const double per_channel = p.gpu_link_gbytes / std::max<std::uint32_t>(1, p.channels);
  const double ch = std::max<std::uint32_t>(1, channels);
  const double bus = ch * per_channel * eff * (ch - 1) / ch * 2.0;
  const double n = ranks;
  const double alg = bus * n / (2.0 * (n - 1));
  const double latency = nodes <= 1 ? 25.0 : 25.0 + 2.0 * std::log2(static_cast<double>(nodes)) * (20.9 + inter_latency_us);
  return latency + static_cast<double>(bytes) / (1000.0 * alg);
}

}  // namespace collsim::validation
