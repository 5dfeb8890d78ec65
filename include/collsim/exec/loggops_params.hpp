#pragma once
// The LogGOPS model's parameters, as LogGOPSim takes them: integer nanoseconds and bytes
// (with fractions and units accepted on input, see set_loggops_param).
// One table gives name, unit, default and help for --help, parsing and validation.
//
// The defaults are LogGOPSim's (its simulator.ggo): L=2500 o=1500 g=1000 G=6 O=0 S=65535.
// LogGOPSim reads every value into a C `int`, so we accept exactly 0 .. 2^31-1.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "collsim/common/parameter_table.hpp"

namespace collsim::exec {

struct LogGOPSParams {
  std::uint64_t L = 2500;   // ns: wire latency, first byte out to first byte in
  std::uint64_t o = 1500;   // ns: CPU overhead per message, at sender and receiver
  std::uint64_t g = 1000;   // ns: NIC gap per message, at sender and receiver
  std::uint64_t G = 6;      // ns per byte after the first: NIC gap per byte
  std::uint64_t O = 0;      // ns per byte after the first: CPU overhead per byte
  std::uint64_t S = 65535;  // bytes: messages larger than S use rendezvous, others go eagerly

  // Beyond LogGOPSim, for GPU clusters (all 0 by default, which is LogGOPSim's model): a
  // per-byte gap finer than a nanosecond (links faster than 8 Gb/s), and a second class of
  // links between ranks of one node (NVLink), where rank / ranks_per_node is the node.
  std::uint64_t G_ps = 0;            // ps per byte, added to G
  std::uint64_t ranks_per_node = 0;  // 0: every pair of ranks uses L and G
  std::uint64_t L_intra = 0;         // ns, between ranks of one node
  std::uint64_t G_intra_ps = 0;      // ps per byte between ranks of one node (G and G_ps are not added)
  // 1: messages between ranks of one node pass through their own send and receive sides (g
  // and G charged there), as a GPU's NVLink works beside its network NIC; 0: they share the
  // NIC's, as in LogGOPSim, and an intra-node message waits behind a network send.
  std::uint64_t intra_nic = 0;
  // 1: an op starts no earlier than the prerequisite that released it finished (a calc's end
  // for `requires`) or started (`irequires`). 0 is LogGOPSim's rule, under which an op on an
  // idle cpu may start before its prerequisite ends (see loggops_simulator.hpp); right for
  // replaying LogGOPSim, wrong for a training step whose gradient reductions must wait for
  // the backward compute that produces the gradients.
  std::uint64_t causal = 0;

  bool operator==(const LogGOPSParams&) const = default;
};

struct LogGOPSParamInfo {
  std::string_view name;  // "L", "o", ... (case matters: g and G, o and O differ)
  std::string_view unit;  // "ns", "ns/byte" or "bytes"
  std::uint64_t default_value;
  std::string_view help;
  std::uint64_t LogGOPSParams::*member;
};

// Largest value of any parameter (LogGOPSim's int).
inline constexpr std::uint64_t kMaxLogGOPSParam = 0x7FFFFFFF;

// All six, in LogGOPSim's order L, o, g, G, O, S.
std::span<const LogGOPSParamInfo> loggops_param_table();

// Every parameter, LogGOPSim's six then the extensions, as a parameter table
// (common/parameter_table.hpp); each row parses as set_loggops_param says.
const ParameterTable<LogGOPSParams>& loggops_parameters();

// Sets one parameter, named as in the table or in LogGOPSim's long form ("LogGOPS_L"). A
// whole number is in the parameter's own unit, as LogGOPSim reads it (and G alone). A
// fraction or a unit is exact to the picosecond: "3.7us", "0.04" or "0.04ns" or "200Gbps"
// for G (the whole gap per byte: nanoseconds in G, the rest in G_ps), "64KiB" for S; what
// does not come to whole nanoseconds (whole picoseconds for G, G_ps, G_intra_ps)
// is refused, not rounded. Throws std::invalid_argument naming the parameter and what it
// expects (unknown name, not a number, no such unit, out of range).
void set_loggops_param(LogGOPSParams& params, std::string_view name, std::string_view value);
// Throws std::invalid_argument if a value is out of LogGOPSim's range.
void validate(const LogGOPSParams& params);

// "L=2500 o=1500 g=1000 G=6 O=0 S=65535"
std::string to_string(const LogGOPSParams& params);
// One line per parameter: "  L = 2500  [ns] latency ...", for --help.
std::string loggops_params_help();

}  // namespace collsim::exec
