#pragma once
// NVLS (NVLink SHARP) allreduce inside one NVSwitch domain, emulated on the packet fabric.
// The NVSwitch reduces and multicasts in the network; our switches only forward, so the
// switch's reduction engine becomes a rank of its own on a host attached to the NVSwitch
// (make_system_topology adds it as "nvls<i>" when asked), whose link carries what the
// engine can process: the GPUs' NVLink rate times their number times an NVLS efficiency.
// Per channel and chunk, every GPU sends its chunk to the engine, and the engine, once it
// has the chunk from every GPU, sends the sum back to every GPU: S up and S down per GPU, as
// with NVLS (a ring moves 2(n-1)/n * S each way).

#include <cstdint>

#include "collsim/goal/schedule.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {

struct NvlsAllreduce {
  std::uint32_t gpus = 8;            // ranks 0..gpus-1; rank `gpus` is the engine
  std::uint64_t bytes = 0;
  std::uint32_t channels = 16;
  std::uint64_t chunk_bytes = 1 << 20;
  std::uint32_t in_flight = 4;       // chunks a GPU may have outstanding per channel
  std::int64_t launch_ns = 0;        // once per channel before the first chunk
};
// Throws std::invalid_argument for gpus < 2, no channels, or a zero chunk.
goal::Schedule make_nvls_allreduce(const NvlsAllreduce& a);

// NCCL's cost-model time for NVLS allreduce on one node (reference/nccl.md section 3: no base
// latency, 25 us NVLink hardware latency, bus bandwidth = channels * per-channel intra bw *
// efficiency * (channels-1)/channels * 2, algbw = busbw * n / (2(n-1))).
double nvls_model_time_us(const SystemPreset& p, std::uint32_t gpus, std::uint32_t channels, std::uint64_t bytes);

}  // namespace collsim::validation
