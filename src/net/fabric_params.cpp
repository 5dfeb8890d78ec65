#include "collsim/net/fabric_params.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "collsim/common/units.hpp"

namespace collsim::net {

namespace {

using Descriptor = Parameter<FabricParams>;

[[noreturn]] void bad(const std::string& name, std::string_view value, const std::string& expected) {
  throw std::invalid_argument("fabric parameter " + name + " = '" + std::string(value) + "': expected " + expected);
}

template <typename T>
Descriptor bytes(const char* name, T FabricParams::*member, const char* help) {
  return {name, "bytes", help,
          [=](FabricParams& p, std::string_view v) {
            std::string error;
            const auto b = parse_byte_size(v, &error);
            if (!b) bad(name, v, "a size such as 4KiB (" + error + ")");
            if (*b > std::numeric_limits<T>::max()) bad(name, v, "a smaller size");
            p.*member = static_cast<T>(*b);
          },
          [=](const FabricParams& p) { return format_byte_size(p.*member); }};
}

Descriptor time(const char* name, SimTime FabricParams::*member, const char* help) {
  return {name, "time", help,
          [=](FabricParams& p, std::string_view v) {
            std::string error;
            const auto t = parse_duration(v, &error);
            if (!t || *t < SimTime::zero()) bad(name, v, "a duration such as 50us (" + error + ")");
            p.*member = *t;
          },
          [=](const FabricParams& p) { return format_duration(p.*member); }};
}

template <typename T>
Descriptor count(const char* name, T FabricParams::*member, const char* help) {
  return {name, "count", help,
          [=](FabricParams& p, std::string_view v) {
            T out{};
            const auto res = std::from_chars(v.data(), v.data() + v.size(), out);
            if (res.ec != std::errc() || res.ptr != v.data() + v.size()) bad(name, v, "a whole number");
            p.*member = out;
          },
          [=](const FabricParams& p) { return std::to_string(p.*member); }};
}

Descriptor real(const char* name, double FabricParams::*member, const char* unit, const char* help) {
  return {name, unit, help,
          [=](FabricParams& p, std::string_view v) {
            std::istringstream in{std::string(v)};
            double out = 0;
            if (!(in >> out) || !in.eof()) bad(name, v, "a number");
            p.*member = out;
          },
          [=](const FabricParams& p) {
            std::ostringstream out;
            out << p.*member;
            return out.str();
          }};
}

Descriptor flag(const char* name, bool FabricParams::*member, const char* help) {
  return {name, "bool", help,
          [=](FabricParams& p, std::string_view v) {
            if (v == "true" || v == "1" || v == "on") {
              p.*member = true;
            } else if (v == "false" || v == "0" || v == "off") {
              p.*member = false;
            } else {
              bad(name, v, "true or false");
            }
          },
          [=](const FabricParams& p) { return std::string(p.*member ? "true" : "false"); }};
}

template <typename E, std::size_t N>
Descriptor choice(const char* name, E FabricParams::*member, const E (&values)[N], const char* help) {
  std::string names;
  for (E e : values) names += (names.empty() ? "" : "|") + std::string(to_string(e));
  std::vector<E> all(std::begin(values), std::end(values));
  return {name, "enum:" + names, help,
          [=](FabricParams& p, std::string_view v) {
            for (E e : all)
              if (to_string(e) == v) {
                p.*member = e;
                return;
              }
            bad(name, v, "one of " + names);
          },
          [=](const FabricParams& p) { return std::string(to_string(p.*member)); }};
}

constexpr RoutingMode kRouting[] = {RoutingMode::Ecmp,           RoutingMode::Spray,   RoutingMode::Adaptive,
                                    RoutingMode::DimensionOrder, RoutingMode::Minimal, RoutingMode::Valiant,
                                    RoutingMode::Ugal,           RoutingMode::Rail};
constexpr CongestionControlKind kCc[] = {CongestionControlKind::None, CongestionControlKind::Dcqcn,
                                         CongestionControlKind::Swift};

}  // namespace

const ParameterTable<FabricParams>& fabric_parameters() {
  using P = FabricParams;
  static const ParameterTable<FabricParams> table("fabric parameter", {
      bytes("mtu_bytes", &P::mtu_bytes, "payload bytes per data packet"),
      bytes("header_bytes", &P::header_bytes, "header bytes added to every data packet on the wire"),
      bytes("ack_bytes", &P::ack_bytes, "wire size of ACK, NACK, CNP and PFC frames"),
      flag("lossless", &P::lossless, "PFC pause/resume (true) or tail drop and retransmission (false)"),
      bytes("pfc_xoff_bytes", &P::pfc_xoff_bytes, "bytes buffered from one ingress port and class that pause it"),
      bytes("pfc_xon_bytes", &P::pfc_xon_bytes, "bytes below which a paused ingress is resumed"),
      flag("ecn", &P::ecn, "mark ECN-capable packets at congested output queues"),
      bytes("ecn_kmin_bytes", &P::ecn_kmin_bytes, "queue length where marking starts"),
      bytes("ecn_kmax_bytes", &P::ecn_kmax_bytes, "queue length above which every packet is marked"),
      real("ecn_pmax", &P::ecn_pmax, "ratio", "marking probability at kmax"),
      count("priorities", &P::priorities, "strict-priority traffic classes per port (class 0 first)"),
      bytes("arbitration_lead_bytes", &P::arbitration_lead_bytes,
            "a switch port picks its next frame when the one on the wire has this many bytes left"),
      choice("routing", &P::routing, kRouting, "how switches choose among ports"),
      choice("cc", &P::cc, kCc, "congestion control of host transports"),
      bytes("window_bytes", &P::window_bytes, "unacknowledged bytes per flow at most (0: unlimited)"),
      time("rto", &P::rto, "retransmission timeout (lossy mode)"),
      time("rto_lossless", &P::rto_lossless,
           "retransmission timeout of lossless mode, where only failing links lose packets (4.096us x 2^NCCL_IB_TIMEOUT)"),
      count("ack_every", &P::ack_every, "acknowledge every n-th data packet (and the last)"),
      bytes("train_bytes", &P::train_bytes,
            "steady-state fast-forward: payload of a train a settled flow sends as one unit (0: off, exact)"),
      count("settle_packets", &P::settle_packets,
            "packets a flow sends one by one after it starts or is disturbed, before it sends trains"),
      flag("trains_through_queues", &P::trains_through_queues,
           "settled flows keep sending trains when they wait at switch queues, are ECN-marked or paused "
           "(only a cut of their rate or window unsettles them)"),
      time("dcqcn_cnp_interval", &P::dcqcn_cnp_interval, "at most one CNP per flow in this interval"),
      time("dcqcn_alpha_interval", &P::dcqcn_alpha_interval, "alpha decays once per interval without CNP"),
      time("dcqcn_rate_increase_interval", &P::dcqcn_rate_increase_interval, "rate-increase timer"),
      real("dcqcn_g", &P::dcqcn_g, "ratio", "alpha gain"),
      bytes("dcqcn_byte_counter", &P::dcqcn_byte_counter, "bytes sent per rate-increase event"),
      count("dcqcn_fast_recovery_steps", &P::dcqcn_fast_recovery_steps, "increase events of fast recovery"),
      real("dcqcn_additive_gbps", &P::dcqcn_additive_gbps, "Gbps", "additive increase step"),
      real("dcqcn_hyper_gbps", &P::dcqcn_hyper_gbps, "Gbps", "hyper increase step"),
      real("dcqcn_min_rate_gbps", &P::dcqcn_min_rate_gbps, "Gbps", "lowest sending rate"),
      time("swift_target_delay", &P::swift_target_delay, "round-trip delay Swift aims for"),
      real("swift_additive_packets", &P::swift_additive_packets, "packets", "window growth per RTT below target"),
      real("swift_beta", &P::swift_beta, "ratio", "decrease gain above target"),
      real("swift_max_decrease", &P::swift_max_decrease, "ratio", "largest decrease per RTT"),
      count("seed", &P::seed, "seed of the fabric's random streams (ECN marking, hashing)"),
  });
  return table;
}

void set_fabric_param(FabricParams& params, const std::string& name, const std::string& value) {
  fabric_parameters().set(params, name, value);
}

std::map<std::string, std::string> fabric_param_values(const FabricParams& params) {
  return fabric_parameters().values(params);
}

void validate(const FabricParams& p) {
  auto fail = [](const std::string& why) { throw std::invalid_argument("fabric parameters: " + why); };
  if (p.mtu_bytes == 0) fail("mtu_bytes must be positive");
  if (p.mtu_bytes + p.header_bytes > 65535u) fail("mtu_bytes + header_bytes must fit 65535 bytes (a jumbo frame is 9000)");
  if (p.ack_bytes == 0 || p.ack_bytes > 65535u) fail("ack_bytes must be 1..65535");
  if (p.pfc_xon_bytes > p.pfc_xoff_bytes) fail("pfc_xon_bytes must not exceed pfc_xoff_bytes");
  if (p.ecn_kmin_bytes > p.ecn_kmax_bytes) fail("ecn_kmin_bytes must not exceed ecn_kmax_bytes");
  if (!(p.ecn_pmax >= 0 && p.ecn_pmax <= 1)) fail("ecn_pmax must be within [0, 1]");
  if (p.priorities < 1 || p.priorities > 8) fail("priorities must be 1..8");
  if (p.ack_every < 1) fail("ack_every must be at least 1");
  if (p.trains_through_queues && p.train_bytes == 0)
    fail("trains_through_queues needs trains (train_bytes above 0)");
  if (p.train_bytes != 0) {
    if (p.train_bytes < 2 * p.mtu_bytes) fail("train_bytes must be 0 (off) or hold at least two packets (2 x mtu_bytes)");
    if (!p.lossless) fail("train_bytes needs lossless=true: a lost train would be resent packet by packet from its start");
  }
  // Below a microsecond a timeout fires before any ACK can come back, and the sender resends
  // for ever (rto=1ns never ended).
  if (!p.lossless && p.rto < SimTime::us(1)) fail("lossy mode needs an rto of at least 1us");
  if (p.rto_lossless < SimTime::us(1)) fail("rto_lossless must be at least 1us");
  if (p.dcqcn_min_rate_gbps <= 0) fail("dcqcn_min_rate_gbps must be positive");
  // A timer of 0 would fire again at the same instant for ever.
  if (p.dcqcn_alpha_interval <= SimTime::zero()) fail("dcqcn_alpha_interval must be positive");
  if (p.dcqcn_rate_increase_interval <= SimTime::zero()) fail("dcqcn_rate_increase_interval must be positive");
  if (p.dcqcn_byte_counter == 0) fail("dcqcn_byte_counter must be positive");
  if (!(p.dcqcn_g > 0 && p.dcqcn_g <= 1)) fail("dcqcn_g must be within (0, 1]");
  if (!(p.dcqcn_additive_gbps >= 0 && p.dcqcn_hyper_gbps >= 0)) fail("dcqcn_additive_gbps and dcqcn_hyper_gbps must not be negative");
  if (p.swift_target_delay <= SimTime::zero()) fail("swift_target_delay must be positive");
  if (!(p.swift_additive_packets > 0)) fail("swift_additive_packets must be positive");
  if (!(p.swift_beta > 0 && p.swift_beta <= 1)) fail("swift_beta must be within (0, 1]");
  if (!(p.swift_max_decrease > 0 && p.swift_max_decrease < 1)) fail("swift_max_decrease must be within (0, 1)");
}

FabricParams steady_trains() {
  FabricParams p;
  p.train_bytes = kSteadyTrainBytes;
  return p;
}

FabricParams contended_trains() {
  FabricParams p;
  p.train_bytes = kContendedTrainBytes;
  p.settle_packets = kContendedSettlePackets;
  p.trains_through_queues = true;
  return p;
}

std::uint32_t max_train_packets(const FabricParams& p) {
  if (p.train_bytes == 0) return 1;
  const std::uint32_t by_payload = p.train_bytes / p.mtu_bytes;
  const std::uint32_t by_wire = UINT32_MAX / (p.mtu_bytes + p.header_bytes);  // a packet's 32-bit sizes
  return std::max<std::uint32_t>(1, std::min(by_payload, by_wire));
}

std::string_view to_string(RoutingMode mode) {
  switch (mode) {
    case RoutingMode::Ecmp: return "ecmp";
    case RoutingMode::Spray: return "spray";
    case RoutingMode::Adaptive: return "adaptive";
    case RoutingMode::DimensionOrder: return "dimension-order";
    case RoutingMode::Minimal: return "minimal";
    case RoutingMode::Valiant: return "valiant";
    case RoutingMode::Ugal: return "ugal";
    case RoutingMode::Rail: return "rail";
  }
  return "unknown";
}

std::string_view to_string(CongestionControlKind kind) {
  switch (kind) {
    case CongestionControlKind::None: return "none";
    case CongestionControlKind::Dcqcn: return "dcqcn";
    case CongestionControlKind::Swift: return "swift";
  }
  return "unknown";
}

}  // namespace collsim::net
