#pragma once
// Which host runs which GOAL rank. Several ranks may share a host (their messages to each
// other do not touch the network).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::exec {

enum class PlacementMethod { Linear, RoundRobin, Packed, Random, File };
std::optional<PlacementMethod> placement_method_from_name(std::string_view name);

struct Placement {
  std::vector<std::uint32_t> host_of;                 // per rank
  std::vector<std::vector<std::uint32_t>> ranks_on;   // per host, ascending
  std::uint32_t slot_of(std::uint32_t rank) const;    // index of the rank among its host's ranks
};

// linear: rank r on host r (needs ranks <= hosts); round-robin: host r % hosts; packed:
// ceil(ranks / hosts) consecutive ranks per host; random: a seeded shuffle of the packed
// slots. Throws std::invalid_argument when the ranks do not fit.
Placement make_placement(PlacementMethod method, std::uint32_t ranks, std::uint32_t hosts, std::uint64_t seed = 1);
// A file with one line per rank, "host" or "rank host" ('#' comments). Throws
// collsim::InputError naming the file and line.
Placement read_placement(const std::string& path, std::uint32_t ranks, std::uint32_t hosts);
Placement parse_placement(std::string_view text, const std::string& file_name, std::uint32_t ranks, std::uint32_t hosts);
Placement placement_from_hosts(std::vector<std::uint32_t> host_of, std::uint32_t hosts);

}  // namespace collsim::exec
