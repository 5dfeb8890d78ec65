#pragma once
// NVLS (NVLink SHARP) allreduce inside one NVSwitch domain, emulated on the packet fabric.
// The NVSwitch reduces and multicasts in the network; our switches only forward, so the
// switch's reduction engine becomes a rank of its own on a host attached to the NVSwitch
// (make_system_topology adds it as "nvls<i>" when asked), whose link carries what the
// engine can process: the GPUs' NVLink rate times their number times an NVLS efficiency.
// Per channel and chunk, every GPU sends its chunk to the engine, and the engine, once it
// has the chunk from every GPU, sends the sum back to every GPU: S up and S down per GPU, as
// with NVLS (a ring moves 2(n-1)/n * S each way).
//
// NVLSTree (NCCL 2.18+: NVLS inside the node, a tree between nodes) on 2 nodes: each node's
// engine, once it has its GPUs' chunk, sends that node's sum to the other node's engine and
// sends the total down once the other node's sum is back. The tree over 2 nodes is this one
// exchange: S crosses the network per node and direction, as with NCCL's 2-node tree, so the
// bus bandwidth can exceed the NIC line rate (log 04). More nodes are not emulated.

#include <cstdint>

#include "collsim/goal/schedule.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {

struct NvlsAllreduce {
  std::uint32_t gpus = 8;            // per node; GPU g of node i is rank i*gpus+g
  std::uint32_t nodes = 1;           // 1 or 2; node i's engine is rank nodes*gpus+i
  std::uint64_t bytes = 0;
  std::uint32_t channels = 16;
  std::uint64_t chunk_bytes = 1 << 20;
  std::uint32_t in_flight = 4;       // chunks a GPU may have outstanding per channel
  std::int64_t launch_ns = 0;        // once per channel before the first chunk
};
// Throws std::invalid_argument for gpus < 2, nodes not 1 or 2, no channels, or a zero chunk.
goal::Schedule make_nvls_allreduce(const NvlsAllreduce& a);

// NCCL's NVLS efficiency: the share of the GPUs' NVLink rate its model gives the NVLS engine
// (0.85 Hopper, 0.74 Blackwell); validate's default where no calibration fitted it.
double nccl_nvls_efficiency(coll::GpuArch arch);

// NCCL's cost-model time for NVLS allreduce (one node) or NVLSTree (several), reference/nccl.md
// section 3: no base latency; latency 25 us (NVLink) for NVLS, 25 + 2 log2(nodes) * 20.9 us
// (NET) for NVLSTree; bus bandwidth = channels * per-channel intra bw (bwIntra on up to 2
// nodes) * efficiency * (channels-1)/channels * 2; algbw = busbw * n / (2(n-1)), n = ranks.
// inter_latency_us: the network's own latency, added to NET's 20.9 us as NCCL adds graph
// latencyInter (tuning_system's inter_latency_us).
double nvls_model_time_us(const SystemPreset& p, std::uint32_t ranks, std::uint32_t channels, std::uint64_t bytes,
                          std::uint32_t nodes = 1, double inter_latency_us = 0);

}  // namespace collsim::validation
