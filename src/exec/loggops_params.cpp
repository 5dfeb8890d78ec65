#include "collsim/exec/loggops_params.hpp"

#include <array>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "collsim/common/units.hpp"
#include "collsim/common/sim_time.hpp"

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

namespace {

// The extensions beyond LogGOPSim's six (see loggops_params.hpp).
constexpr LogGOPSParamInfo kExtensions[] = {
    {"G_ps", "ps/byte", 0, "per-byte gap in picoseconds, added to G", &LogGOPSParams::G_ps},
    {"ranks_per_node", "ranks", 0, "ranks per node for L_intra and G_intra_ps (0: off)", &LogGOPSParams::ranks_per_node},
    {"L_intra", "ns", 0, "latency between ranks of one node", &LogGOPSParams::L_intra},
    {"G_intra_ps", "ps/byte", 0, "per-byte gap between ranks of one node", &LogGOPSParams::G_intra_ps},
    {"intra_nic", "0/1", 0, "1: messages between ranks of one node have their own NIC sides, as NVLink beside the network NIC (0: they share it)",
     &LogGOPSParams::intra_nic},
    {"causal", "0/1", 0, "1: an op starts no earlier than the prerequisite that released it ends (0: LogGOPSim's rule)",
     &LogGOPSParams::causal},
};

}  // namespace

namespace {

// A time (or a time per byte, or a bandwidth for one) in whole picoseconds, read by
// parse_duration; a number written without a unit is in `plain_unit`. Throws
// std::string, the reason, when it is not.
std::uint64_t picoseconds(std::string_view value, std::string_view plain_unit, bool per_byte) {
  if (per_byte) {
    if (const std::optional<Bandwidth> bw = parse_bandwidth(value)) {
      constexpr std::uint64_t kBitPs = 8'000'000'000'000u;  // ps a byte takes at 1 bit/s
      const auto bps = static_cast<std::uint64_t>(bw->bps());
      if (kBitPs % bps != 0)
        throw std::string("a bandwidth whose byte time is not a whole number of picoseconds (" +
                          std::to_string(8e12 / static_cast<double>(bps)) + " ps)");
      return kBitPs / bps;
    }
    for (std::string_view tail : {"/byte", "/B"})
      if (value.ends_with(tail)) value.remove_suffix(tail.size());
  }
  std::string text(value);
  if (!text.empty() && text.back() >= '0' && text.back() <= '9') text += plain_unit;
  std::string error;
  const std::optional<SimTime> t = parse_duration(text, &error);
  if (!t) throw error;
  return static_cast<std::uint64_t>(t->picoseconds());
}

}  // namespace

namespace {

// One parameter from text (see set_loggops_param).
void set_one(const LogGOPSParamInfo* p, LogGOPSParams& params, std::string_view value) {
  const std::string what = "LogGOPS parameter " + std::string(p->name) + " = '" + std::string(value) + "': ";
  auto in_range = [&](std::uint64_t v, const std::string& expected) {
    if (v > kMaxLogGOPSParam)
      throw std::invalid_argument(what + "expected " + expected + " in 0.." + std::to_string(kMaxLogGOPSParam));
    return v;
  };
  // A plain whole number keeps LogGOPSim's meaning: the parameter's own unit, and G alone.
  std::uint64_t plain = 0;
  const auto res = std::from_chars(value.data(), value.data() + value.size(), plain);
  if (res.ec == std::errc() && res.ptr == value.data() + value.size()) {
    if (p->unit == "0/1" && plain > 1) throw std::invalid_argument(what + "expected 0 or 1");
    params.*(p->member) = in_range(plain, "a whole number of " + std::string(p->unit));
    return;
  }
  // The table's unit says how a fraction or a unit is read.
  const auto member = p->member;
  const std::string_view unit = p->unit;
  if (unit == "bytes") {
    std::string error;
    const std::optional<std::uint64_t> bytes = parse_byte_size(value, &error);
    if (!bytes) throw std::invalid_argument(what + error);
    params.*member = in_range(*bytes, "a size in bytes");
    return;
  }
  const bool per_byte = unit.ends_with("/byte");
  const bool in_ps = unit.starts_with("ps");
  if (!per_byte && unit != "ns")  // counts and flags
    throw std::invalid_argument(what + "expected a whole number" + (unit == "0/1" ? " (0 or 1)" : ""));
  std::uint64_t ps = 0;
  try {
    ps = picoseconds(value, in_ps ? "ps" : "ns", per_byte);
  } catch (const std::string& why) {
    throw std::invalid_argument(what + why + "; expected " + std::string(p->unit) + " (a fraction, or a value with a unit: 3.7us" +
                                (per_byte ? ", 0.04ns, 200Gbps)" : ")"));
  }
  if (member == &LogGOPSParams::G) {
    // A fraction or a unit gives the whole gap per byte: nanoseconds in G, the rest in G_ps.
    params.G = in_range(ps / 1000, "a gap per byte");
    params.G_ps = ps % 1000;
    return;
  }
  if (!in_ps && ps % 1000 != 0)
    throw std::invalid_argument(what + "not a whole number of nanoseconds (LogGOPSim's unit)");
  params.*member = in_range(in_ps ? ps : ps / 1000, "a whole number of " + std::string(p->unit));
}

Parameter<LogGOPSParams> row(const LogGOPSParamInfo& info, bool extension) {
  const LogGOPSParamInfo* p = &info;
  return {std::string(info.name), std::string(info.unit),
          std::string(info.help) + (extension ? " (beyond LogGOPSim)" : ""),
          [p](LogGOPSParams& params, std::string_view value) { set_one(p, params, value); },
          [p](const LogGOPSParams& params) { return std::to_string(params.*(p->member)); }};
}

}  // namespace

const ParameterTable<LogGOPSParams>& loggops_parameters() {
  static const ParameterTable<LogGOPSParams> table("LogGOPS parameter", [] {
    std::vector<Parameter<LogGOPSParams>> rows;
    for (const LogGOPSParamInfo& p : kTable) rows.push_back(row(p, false));
    for (const LogGOPSParamInfo& p : kExtensions) rows.push_back(row(p, true));
    return rows;
  }());
  return table;
}

void set_loggops_param(LogGOPSParams& params, std::string_view name, std::string_view value) {
  if (name.starts_with(kLongPrefix)) name.remove_prefix(kLongPrefix.size());
  loggops_parameters().set(params, name, value);
}

void validate(const LogGOPSParams& params) {
  for (const LogGOPSParamInfo& p : kTable)
    if (params.*(p.member) > kMaxLogGOPSParam)
      throw std::invalid_argument("LogGOPS parameter " + std::string(p.name) + " = " +
                                  std::to_string(params.*(p.member)) + " exceeds LogGOPSim's limit " +
                                  std::to_string(kMaxLogGOPSParam));
  for (const LogGOPSParamInfo& p : kExtensions)
    if (p.unit == "0/1" && params.*(p.member) > 1)
      throw std::invalid_argument("LogGOPS parameter " + std::string(p.name) + " = " + std::to_string(params.*(p.member)) +
                                  ": expected 0 or 1");
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

std::string loggops_params_help() { return loggops_parameters().help(LogGOPSParams{}); }

}  // namespace collsim::exec
