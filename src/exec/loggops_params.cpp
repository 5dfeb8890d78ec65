#include "collsim/exec/loggops_params.hpp"

#include <array>
#include <charconv>
#include <stdexcept>

namespace collsim::exec {
namespace {

constexpr std::array<LogGOPSParamInfo, 6> kTable{{
    {"L", "ns", 2500, "latency: a message's first byte reaches the receiver L after the sender's o",
     &LogGOPSParams::L},
    {"o", "ns", 1500, "CPU overhead per message, charged at the sender and at the receiver", &LogGOPSParams::o},
    {"g", "ns", 1000, "NIC gap per message: a NIC starts one message per g", &LogGOPSParams::g},
    {"G", "ns/byte", 6, "NIC gap per byte after the first (1/bandwidth)", &LogGOPSParams::G},
    {"O", "ns/byte", 0, "CPU overhead per byte after the first", &LogGOPSParams::O},
    {"S", "bytes", 65535, "eager limit: larger messages wait for the matching receive (rendezvous)",
     &LogGOPSParams::S},
}};

constexpr std::string_view kLongPrefix = "LogGOPS_";

}  // namespace

std::span<const LogGOPSParamInfo> loggops_param_table() { return kTable; }

const LogGOPSParamInfo* find_loggops_param(std::string_view name) {
  if (name.starts_with(kLongPrefix)) name.remove_prefix(kLongPrefix.size());
  for (const LogGOPSParamInfo& p : kTable)
    if (p.name == name) return &p;
  return nullptr;
}

namespace {

// The extensions beyond LogGOPSim's six (see loggops_params.hpp).
constexpr LogGOPSParamInfo kExtensions[] = {
    {"G_ps", "ps/byte", 0, "per-byte gap in picoseconds, added to G", &LogGOPSParams::G_ps},
    {"ranks_per_node", "ranks", 0, "ranks per node for L_intra and G_intra_ps (0: off)", &LogGOPSParams::ranks_per_node},
    {"L_intra", "ns", 0, "latency between ranks of one node", &LogGOPSParams::L_intra},
    {"G_intra_ps", "ps/byte", 0, "per-byte gap between ranks of one node", &LogGOPSParams::G_intra_ps},
    {"causal", "0/1", 0, "1: an op starts no earlier than the prerequisite that released it ends (0: LogGOPSim's rule)",
     &LogGOPSParams::causal},
};

}  // namespace

void set_loggops_param(LogGOPSParams& params, std::string_view name, std::string_view value) {
  const LogGOPSParamInfo* p = find_loggops_param(name);
  for (const LogGOPSParamInfo& e : kExtensions)
    if (e.name == name) p = &e;
  if (p == nullptr) throw std::invalid_argument("unknown LogGOPS parameter '" + std::string(name) + "' (L, o, g, G, O, S; G_ps, ranks_per_node, L_intra, G_intra_ps, causal)");
  std::uint64_t v = 0;
  const auto res = std::from_chars(value.data(), value.data() + value.size(), v);
  if (res.ec != std::errc() || res.ptr != value.data() + value.size() || v > kMaxLogGOPSParam)
    throw std::invalid_argument("LogGOPS parameter " + std::string(p->name) + " = '" + std::string(value) +
                                "': expected a whole number of " + std::string(p->unit) + " in 0.." +
                                std::to_string(kMaxLogGOPSParam));
  if (p->member == &LogGOPSParams::causal && v > 1)
    throw std::invalid_argument("LogGOPS parameter causal = '" + std::string(value) + "': expected 0 or 1");
  params.*(p->member) = v;
}

void validate(const LogGOPSParams& params) {
  for (const LogGOPSParamInfo& p : kTable)
    if (params.*(p.member) > kMaxLogGOPSParam)
      throw std::invalid_argument("LogGOPS parameter " + std::string(p.name) + " = " +
                                  std::to_string(params.*(p.member)) + " exceeds LogGOPSim's limit " +
                                  std::to_string(kMaxLogGOPSParam));
  if (params.causal > 1) throw std::invalid_argument("LogGOPS parameter causal = " + std::to_string(params.causal) + ": expected 0 or 1");
}

std::string to_string(const LogGOPSParams& params) {
  std::string out;
  for (const LogGOPSParamInfo& p : kTable) {
    if (!out.empty()) out += ' ';
    out += std::string(p.name) + "=" + std::to_string(params.*(p.member));
  }
  for (const LogGOPSParamInfo& p : kExtensions)
    if (params.*(p.member) != 0) out += " " + std::string(p.name) + "=" + std::to_string(params.*(p.member));
  return out;
}

std::string loggops_params_help() {
  std::string out;
  for (const LogGOPSParamInfo& p : kTable)
    out += "  " + std::string(p.name) + "  " + std::string(p.help) + " (" + std::string(p.unit) + ", default " +
           std::to_string(p.default_value) + ")\n";
  for (const LogGOPSParamInfo& p : kExtensions)
    out += "  " + std::string(p.name) + "  " + std::string(p.help) + " (" + std::string(p.unit) + ", beyond LogGOPSim)\n";
  return out;
}

}  // namespace collsim::exec
