#pragma once
// NCCL's own view of NVLS: the share of the NVLink rate it gives the NVSwitch's reduction
// engine, and the time its cost model predicts, by which it chooses NVLS over rings and trees.

#include <cstdint>

#include "collsim/common/sim_time.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {

// NCCL's NVLS efficiency: the share of the GPUs' NVLink rate its model gives the NVLS engine
// (0.85 Hopper, 0.74 Blackwell); validate's default where no calibration fitted it.
double nccl_nvls_efficiency(collectives::GpuArch arch);

// NCCL's cost-model time for NVLS allreduce (one node) or NVLSTree (several), reference/nccl.md
// section 3: no base latency; latency 25 us (NVLink) for NVLS, 25 + 2 log2(nodes) * 20.9 us
// (NET) for NVLSTree; bus bandwidth = channels * per-channel intra bw (bwIntra on up to 2
// nodes) * efficiency * (channels-1)/channels * 2; algbw = busbw * n / (2(n-1)), n = ranks.
// inter_latency: the network's own latency, added to NET's 20.9 us as NCCL adds graph
// latencyInter (tuning_system's inter_latency_us).
Duration nvls_model_time(const SystemPreset& p, std::uint32_t ranks, std::uint32_t channels, std::uint64_t bytes,
                         std::uint32_t nodes = 1, Duration inter_latency = Duration::zero());

}  // namespace collsim::validation
