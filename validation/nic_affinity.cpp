#include "collsim/validation/nic_affinity.hpp"

#include <algorithm>
#include <stdexcept>

#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {

std::vector<std::vector<std::uint32_t>> default_nic_gpus(std::uint32_t gpus, std::uint32_t nics) {
  std::vector<std::vector<std::uint32_t>> serves(nics);
  if (gpus == 0) return serves;
  if (nics >= gpus) {
    for (std::uint32_t k = 0; k < nics; ++k)
      serves[k].push_back(static_cast<std::uint32_t>(std::uint64_t{k} * gpus / nics));
  } else {
    for (std::uint32_t g = 0; g < gpus; ++g)
      serves[static_cast<std::uint32_t>(std::uint64_t{g} * nics / gpus)].push_back(g);
  }
  return serves;
}

std::vector<std::vector<std::uint32_t>> nic_gpus_of(const SystemPreset& p) {
  return p.nic_gpus.empty() ? default_nic_gpus(p.gpus_per_node, p.nics_per_node) : p.nic_gpus;
}

std::string affinity_problem(const std::vector<std::vector<std::uint32_t>>& nic_gpus, std::uint32_t gpus) {
  std::vector<bool> served(gpus, false);
  for (std::size_t k = 0; k < nic_gpus.size(); ++k) {
    if (nic_gpus[k].empty()) return "NIC " + std::to_string(k) + " serves no GPU";
    for (std::uint32_t g : nic_gpus[k]) {
      if (g >= gpus)
        return "NIC " + std::to_string(k) + " serves GPU " + std::to_string(g) + ", but a node has " +
               std::to_string(gpus) + " GPUs (0 to " + std::to_string(gpus - 1) + ")";
      served[g] = true;
    }
  }
  for (std::uint32_t g = 0; g < gpus; ++g)
    if (!served[g]) return "no NIC serves GPU " + std::to_string(g);
  return "";
}

NodeNics node_nics(const SystemPreset& p, std::uint32_t gpus_used) {
  if (gpus_used == 0 || gpus_used > p.gpus_per_node)
    throw std::invalid_argument(p.name + " has " + std::to_string(p.gpus_per_node) + " GPUs per node, not " +
                                std::to_string(gpus_used));
  const auto serves = nic_gpus_of(p);
  if (const std::string problem = affinity_problem(serves, p.gpus_per_node); !problem.empty())
    throw std::invalid_argument(p.name + ": " + problem);
  NodeNics n;
  n.of_gpu.resize(gpus_used);
  for (std::uint32_t k = 0; k < serves.size(); ++k) {
    bool used = false;
    for (std::uint32_t g : serves[k])
      if (g < gpus_used) {
        n.of_gpu[g].push_back(n.count);
        used = true;
      }
    if (!used) continue;
    n.physical.push_back(k);
    ++n.count;
  }
  return n;
}

}  // namespace collsim::validation
