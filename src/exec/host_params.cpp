#include "collsim/exec/host_params.hpp"

#include <charconv>
#include <sstream>

#include "collsim/common/units.hpp"

namespace collsim::exec {

namespace {

[[noreturn]] void bad(const char* name, std::string_view value, const std::string& expected) {
  throw std::invalid_argument("host parameter " + std::string(name) + " = '" + std::string(value) + "': expected " +
                              expected);
}

template <typename T>
T whole(const char* name, std::string_view v, T low, T high, const std::string& expected) {
  T out{};
  const auto res = std::from_chars(v.data(), v.data() + v.size(), out);
  if (res.ec != std::errc() || res.ptr != v.data() + v.size() || out < low || out > high) bad(name, v, expected);
  return out;
}

}  // namespace

const ParameterTable<PacketHostParams>& host_parameters() {
  using P = PacketHostParams;
  static const ParameterTable<P> table(
      "host parameter",
      {{"o", "ns", "CPU overhead per message, at the sender and at the receiver",
        [](P& p, std::string_view v) {
          p.o_ns = whole<std::int64_t>("o", v, 0, 1'000'000'000'000, "whole nanoseconds, 0..10^12");
        },
        [](const P& p) { return std::to_string(p.o_ns); }},
       {"O", "ns/byte", "CPU overhead per byte",
        [](P& p, std::string_view v) {
          std::istringstream in{std::string(v)};
          double out = 0;
          if (!(in >> out) || !in.eof() || !(out >= 0 && out <= 1e6)) bad("O", v, "nanoseconds per byte, 0..10^6");
          p.O_ns_per_byte = out;
        },
        [](const P& p) {
          std::ostringstream out;
          out << p.O_ns_per_byte;
          return out.str();
        }},
       {"S", "bytes", "eager limit: larger messages wait for the matching receive (rendezvous)",
        [](P& p, std::string_view v) {
          std::string error;
          const auto b = parse_byte_size(v, &error);
          if (!b) bad("S", v, "a size such as 64KiB (" + error + ")");
          p.eager_limit_bytes = *b;
        },
        [](const P& p) { return format_byte_size(p.eager_limit_bytes); }},
       {"control_bytes", "bytes", "wire size of a rendezvous request or clear-to-send",
        [](P& p, std::string_view v) {
          p.control_bytes = whole<std::uint64_t>("control_bytes", v, 1, 65535, "a whole number of bytes, 1..65535");
        },
        [](const P& p) { return std::to_string(p.control_bytes); }}});
  return table;
}

}  // namespace collsim::exec
