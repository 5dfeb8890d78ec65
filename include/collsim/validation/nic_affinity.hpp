#pragma once
// Which NICs a GPU of a node sends through, as NCCL's topology search gives them: each GPU uses
// the NIC(s) closest to it on PCIe (one per GPU on rail-optimised nodes, several GPUs sharing one
// where a node has fewer NICs than GPUs). A job that uses only some GPUs of each node gets only
// their NICs: NCCL does not route a channel through a NIC that no GPU of the job is close to.

#include <cstdint>
#include <string>
#include <vector>

namespace collsim::validation {

struct SystemPreset;

// NIC k serves GPUs result[k]. When a node has at least as many NICs as GPUs, NICs are dealt to
// GPUs in order (8 GPUs, 16 NICs: GPU 0 gets NICs 0 and 1); otherwise consecutive GPUs share a
// NIC (8 GPUs, 4 NICs: GPUs 0 and 1 share NIC 0), as PCIe switches pair them on such servers.
std::vector<std::vector<std::uint32_t>> default_nic_gpus(std::uint32_t gpus, std::uint32_t nics);

// The preset's affinity: its own (SystemPreset::nic_gpus) or the default.
std::vector<std::vector<std::uint32_t>> nic_gpus_of(const SystemPreset& p);

// What is wrong with an affinity for `gpus` GPUs (a GPU no NIC serves, a GPU that does not
// exist, a NIC serving nothing), or "" when nothing is.
std::string affinity_problem(const std::vector<std::vector<std::uint32_t>>& nic_gpus, std::uint32_t gpus);

// The NICs of one node that a job using its first `gpus_used` GPUs sends through, numbered
// 0..count-1 in the order of the node's NICs (NIC i of the job is rail i of its topology).
struct NodeNics {
  std::uint32_t count = 0;
  std::vector<std::uint32_t> physical;             // job NIC i is the node's NIC physical[i]
  std::vector<std::vector<std::uint32_t>> of_gpu;  // job NICs of local GPU g, ascending
};
NodeNics node_nics(const SystemPreset& p, std::uint32_t gpus_used);

}  // namespace collsim::validation
