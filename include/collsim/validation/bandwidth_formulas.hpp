#pragma once
// nccl-tests' own arithmetic (reference/nccl.md section 1.3): algbw = size / time and
// busbw = algbw * factor(collective, n), in GB/s (1e9 bytes per second).

#include <cstdint>
#include <optional>
#include <string_view>

#include "collsim/collectives/collective.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::validation {

// allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall (n-1)/n; broadcast, reduce,
// sendrecv 1. n = 0 is treated as 1.
double busbw_factor(collectives::Collective c, std::uint32_t n);
// size / time, in GB/s. 0 for a time of 0.
double algbw_gbps(std::uint64_t bytes, Duration time);
double busbw_gbps(collectives::Collective c, std::uint32_t n, std::uint64_t bytes, Duration time);
// The time that gives `busbw` (GB/s) for `bytes`; used for summary tables that print only busbw.
Duration time_from_busbw(collectives::Collective c, std::uint32_t n, std::uint64_t bytes, double busbw);
// The rank count whose factor is busbw/algbw (allreduce and the (n-1)/n family only; the
// ratio must come from well-resolved values, say algbw >= 10 GB/s).
std::optional<std::uint32_t> ranks_from_ratio(collectives::Collective c, double ratio);
// Bytes per element of an nccl-tests type name ("float" 4, "half" 2, "int8" 1, ...).
std::optional<std::uint32_t> element_bytes(std::string_view type);
// nccl-tests' count for `size` bytes: elements per rank (allgather, reduce_scatter), per peer
// (alltoall) or in the buffer (the rest).
std::uint64_t expected_count(collectives::Collective c, std::uint32_t n, std::uint64_t size, std::uint32_t elt);

}  // namespace collsim::validation
