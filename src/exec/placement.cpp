#include "collsim/exec/placement.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include "collsim/common/input_error.hpp"
#include "collsim/common/mapped_file.hpp"

namespace collsim::exec {

std::optional<PlacementMethod> placement_method_from_name(std::string_view name) {
  if (name == "linear") return PlacementMethod::Linear;
  if (name == "round-robin" || name == "roundrobin") return PlacementMethod::RoundRobin;
  if (name == "packed") return PlacementMethod::Packed;
  if (name == "random") return PlacementMethod::Random;
  if (name == "file") return PlacementMethod::File;
  return std::nullopt;
}

std::uint32_t Placement::slot_of(std::uint32_t rank) const {
  const auto& on = ranks_on[host_of[rank]];
  return static_cast<std::uint32_t>(std::lower_bound(on.begin(), on.end(), rank) - on.begin());
}

Placement placement_from_hosts(std::vector<std::uint32_t> host_of, std::uint32_t hosts) {
  Placement p;
  p.host_of = std::move(host_of);
  p.ranks_on.resize(hosts);
  for (std::uint32_t r = 0; r < p.host_of.size(); ++r) {
    if (p.host_of[r] >= hosts)
      throw std::invalid_argument("rank " + std::to_string(r) + " placed on host " + std::to_string(p.host_of[r]) +
                                  ", but the topology has " + std::to_string(hosts) + " hosts");
    p.ranks_on[p.host_of[r]].push_back(r);
  }
  for (const auto& on : p.ranks_on)
    if (on.size() > 16384) throw std::invalid_argument("more than 16384 ranks on one host");
  return p;
}

Placement make_placement(PlacementMethod method, std::uint32_t ranks, std::uint32_t hosts, std::uint64_t seed) {
  if (hosts == 0) throw std::invalid_argument("the topology has no hosts");
  std::vector<std::uint32_t> host_of(ranks);
  const std::uint32_t per_host = (ranks + hosts - 1) / hosts;
  switch (method) {
    case PlacementMethod::Linear:
      if (ranks > hosts)
        throw std::invalid_argument("linear placement puts one rank per host, but there are " + std::to_string(ranks) +
                                    " ranks and " + std::to_string(hosts) + " hosts (use packed or round-robin)");
      std::iota(host_of.begin(), host_of.end(), 0u);
      break;
    case PlacementMethod::RoundRobin:
      for (std::uint32_t r = 0; r < ranks; ++r) host_of[r] = r % hosts;
      break;
    case PlacementMethod::Packed:
      for (std::uint32_t r = 0; r < ranks; ++r) host_of[r] = r / per_host;
      break;
    case PlacementMethod::Random: {
      std::vector<std::uint32_t> slots(std::uint64_t{per_host} * hosts);
      for (std::uint32_t s = 0; s < slots.size(); ++s) slots[s] = s / per_host;
      std::mt19937_64 rng(seed);
      std::shuffle(slots.begin(), slots.end(), rng);
      std::copy_n(slots.begin(), ranks, host_of.begin());
      break;
    }
    case PlacementMethod::File: throw std::invalid_argument("placement 'file' needs a file (--placement-file)");
  }
  return placement_from_hosts(std::move(host_of), hosts);
}

Placement parse_placement(std::string_view text, const std::string& file_name, std::uint32_t ranks, std::uint32_t hosts) {
  std::vector<std::uint32_t> host_of(ranks, 0xFFFFFFFFu);
  std::istringstream in{std::string(text)};
  std::string line;
  std::uint64_t line_no = 0;
  std::uint32_t next_rank = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::vector<std::pair<std::uint64_t, std::size_t>> numbers;  // value, column
    std::size_t at = 0;
    while (at < line.size()) {
      if (line[at] == ' ' || line[at] == '\t' || line[at] == '\r' || line[at] == ',') {
        ++at;
        continue;
      }
      std::uint64_t v = 0;
      const auto res = std::from_chars(line.data() + at, line.data() + line.size(), v);
      if (res.ec != std::errc())
        throw InputError::at_text(file_name, line_no, at + 1, "expected a rank or host number");
      numbers.emplace_back(v, at + 1);
      at = static_cast<std::size_t>(res.ptr - line.data());
    }
    if (numbers.empty()) continue;
    if (numbers.size() > 2)
      throw InputError::at_text(file_name, line_no, numbers[2].second, "expected 'host' or 'rank host'");
    const std::uint64_t rank = numbers.size() == 2 ? numbers[0].first : next_rank;
    const auto [host, column] = numbers.back();
    if (rank >= ranks)
      throw InputError::at_text(file_name, line_no, numbers[0].second,
                                "rank " + std::to_string(rank) + " but the schedule has " + std::to_string(ranks));
    if (host >= hosts)
      throw InputError::at_text(file_name, line_no, column,
                                "host " + std::to_string(host) + " but the topology has " + std::to_string(hosts));
    if (host_of[rank] != 0xFFFFFFFFu)
      throw InputError::at_text(file_name, line_no, numbers[0].second, "rank " + std::to_string(rank) + " placed twice");
    host_of[rank] = static_cast<std::uint32_t>(host);
    next_rank = static_cast<std::uint32_t>(rank + 1);
  }
  for (std::uint32_t r = 0; r < ranks; ++r)
    if (host_of[r] == 0xFFFFFFFFu) throw InputError::in_file(file_name, "rank " + std::to_string(r) + " has no host");
  return placement_from_hosts(std::move(host_of), hosts);
}

Placement read_placement(const std::string& path, std::uint32_t ranks, std::uint32_t hosts) {
  const MappedFile file(path);
  return parse_placement(file.text(), path, ranks, hosts);
}

}  // namespace collsim::exec
