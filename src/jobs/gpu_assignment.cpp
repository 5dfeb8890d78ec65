#include "collsim/jobs/gpu_assignment.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "collsim/common/splitmix.hpp"

namespace collsim::jobs {

std::vector<std::vector<std::uint32_t>> assign_gpus(const std::vector<JobSpec>& jobs,
                                                    const std::vector<std::uint32_t>& needed,
                                                    const topo::Topology& t) {
  const std::uint32_t hosts = t.num_hosts();
  std::vector<int> owner(hosts, -1);
  std::vector<std::vector<std::uint32_t>> out(jobs.size());
  auto take = [&](std::size_t j, std::uint32_t h) {
    if (h >= hosts)
      throw std::invalid_argument("job '" + jobs[j].name + "': GPU " + std::to_string(h) + ", but " + t.name() +
                                  " has " + std::to_string(hosts));
    if (owner[h] >= 0)
      throw std::invalid_argument("jobs '" + jobs[static_cast<std::size_t>(owner[h])].name + "' and '" + jobs[j].name +
                                  "' both ask for GPU " + std::to_string(h));
    owner[h] = static_cast<int>(j);
    out[j].push_back(h);
  };
  auto check_size = [&](std::size_t j) {
    if (needed[j] != 0 && out[j].size() != needed[j])
      throw std::invalid_argument("job '" + jobs[j].name + "' runs " + std::to_string(needed[j]) + " ranks but is given " +
                                  std::to_string(out[j].size()) + " GPUs");
  };
  // Servers' hosts, in host order.
  std::map<std::uint32_t, std::vector<std::uint32_t>> servers;
  for (std::uint32_t h = 0; h < hosts; ++h) servers[t.node(t.host(h)).server].push_back(h);
  std::vector<std::uint32_t> server_ids;
  for (const auto& [id, members] : servers) server_ids.push_back(id);

  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const GpuRequest& g = jobs[j].gpus;
    if (g.policy == GpuPolicy::List) {
      for (const std::uint32_t h : g.hosts) take(j, h);
      check_size(j);
    } else if (g.policy == GpuPolicy::Nodes) {
      if (g.last_node >= server_ids.size())
        throw std::invalid_argument("job '" + jobs[j].name + "': node " + std::to_string(g.last_node) + ", but " +
                                    t.name() + " has " + std::to_string(server_ids.size()) + " nodes");
      for (std::uint32_t n = g.first_node; n <= g.last_node; ++n)
        for (const std::uint32_t h : servers[server_ids[n]]) take(j, h);
      check_size(j);
    }
  }
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const GpuRequest& g = jobs[j].gpus;
    if (g.policy == GpuPolicy::List || g.policy == GpuPolicy::Nodes) continue;
    const std::uint32_t count = g.count ? g.count : needed[j];
    if (count == 0) throw std::invalid_argument("job '" + jobs[j].name + "': how many GPUs? give 'count'");
    if (needed[j] != 0 && count != needed[j])
      throw std::invalid_argument("job '" + jobs[j].name + "' runs " + std::to_string(needed[j]) +
                                  " ranks but asks for " + std::to_string(count) + " GPUs");
    std::vector<std::uint32_t> free;
    if (g.policy == GpuPolicy::Spread) {
      // One GPU per node in turn: the first free GPU of every node, then the second, ...
      for (std::size_t round = 0; free.size() < hosts; ++round) {
        bool any = false;
        for (const std::uint32_t id : server_ids) {
          const auto& members = servers[id];
          if (round < members.size()) {
            any = true;
            if (owner[members[round]] < 0) free.push_back(members[round]);
          }
        }
        if (!any) break;
      }
    } else {
      for (std::uint32_t h = 0; h < hosts; ++h)
        if (owner[h] < 0) free.push_back(h);
      if (g.policy == GpuPolicy::Random)
        for (std::size_t i = free.size(); i > 1; --i)
          std::swap(free[i - 1], free[splitmix64(g.seed * 0x100000001B3ull + i) % i]);
    }
    if (free.size() < count)
      throw std::invalid_argument("job '" + jobs[j].name + "' asks for " + std::to_string(count) + " GPUs, but only " +
                                  std::to_string(free.size()) + " of " + t.name() + "'s " + std::to_string(hosts) +
                                  " are left");
    for (std::uint32_t i = 0; i < count; ++i) take(j, free[i]);
  }
  return out;
}

}  // namespace collsim::jobs
