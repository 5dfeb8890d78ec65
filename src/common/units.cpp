#include "collsim/common/units.hpp"

#include <cstdio>

namespace collsim {

namespace {

struct Decimal {
  std::uint64_t digits = 0;  // the number with the decimal point removed
  std::uint64_t scale = 1;   // 10^(number of decimals)
};

bool report(std::string* error, const std::string& text, const std::string& why, const char* examples) {
  if (error != nullptr) *error = "'" + text + "' " + why + " (examples: " + examples + ")";
  return false;
}

// Leading number; the rest (after optional spaces) goes to `unit`.
std::optional<Decimal> split(std::string_view text, std::string_view& unit) {
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  Decimal d;
  bool any = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, any = true) {
    if (d.digits > (UINT64_MAX - 9) / 10) return std::nullopt;
    d.digits = d.digits * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, any = true) {
      if (d.digits > (UINT64_MAX - 9) / 10 || d.scale >= 1'000'000'000'000ull) return std::nullopt;
      d.digits = d.digits * 10 + static_cast<std::uint64_t>(text[i] - '0');
      d.scale *= 10;
    }
  }
  if (!any) return std::nullopt;
  while (i < text.size() && text[i] == ' ') ++i;
  unit = text.substr(i);
  while (!unit.empty() && unit.back() == ' ') unit.remove_suffix(1);
  return d;
}

// digits * factor / scale, if whole and below 2^63.
std::optional<std::uint64_t> scaled(Decimal d, std::uint64_t factor) {
  const detail::uint128 product = static_cast<detail::uint128>(d.digits) * factor;
  if (product % d.scale != 0) return std::nullopt;
  const detail::uint128 value = product / d.scale;
  if (value > static_cast<detail::uint128>(INT64_MAX)) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

// "K", "Ki", "M", ... at the front of `unit`: the multiplier, and the prefix removed.
std::uint64_t take_prefix(std::string_view& unit) {
  static constexpr struct {
    std::string_view prefix;
    std::uint64_t factor;
  } kPrefixes[] = {{"Ki", 1ull << 10}, {"Mi", 1ull << 20}, {"Gi", 1ull << 30}, {"Ti", 1ull << 40},
                   {"K", 1'000},       {"k", 1'000},       {"M", 1'000'000},   {"G", 1'000'000'000},
                   {"T", 1'000'000'000'000}};
  for (const auto& p : kPrefixes)
    if (unit.substr(0, p.prefix.size()) == p.prefix && unit.size() > p.prefix.size()) {
      unit.remove_prefix(p.prefix.size());
      return p.factor;
    }
  return 1;
}

}  // namespace

std::optional<Bandwidth> parse_bandwidth(std::string_view text, std::string* error) {
  constexpr const char* kExamples = "400Gbps, 100 Gb/s, 50GB/s";
  const std::string original(text);
  std::string_view unit;
  const auto number = split(text, unit);
  if (!number) return report(error, original, "is not a bandwidth", kExamples), std::nullopt;
  std::uint64_t factor = take_prefix(unit);
  if (unit == "bps" || unit == "b/s" || unit == "bit/s") {
  } else if (unit == "Bps" || unit == "B/s" || unit == "Byte/s") {
    factor *= 8;
  } else {
    report(error, original, unit.empty() ? "has no unit" : "has an unknown unit '" + std::string(unit) + "'", kExamples);
    return std::nullopt;
  }
  const auto bps = scaled(*number, factor);
  if (!bps) return report(error, original, "is not a whole number of bit/s below 2^63", kExamples), std::nullopt;
  if (*bps == 0) return report(error, original, "is zero", kExamples), std::nullopt;
  return Bandwidth::bits_per_second(static_cast<std::int64_t>(*bps));
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text, std::string* error) {
  constexpr const char* kExamples = "4096, 4KiB, 32MiB, 1.5GB";
  const std::string original(text);
  std::string_view unit;
  const auto number = split(text, unit);
  if (!number) return report(error, original, "is not a size", kExamples), std::nullopt;
  std::uint64_t factor = 1;
  if (!unit.empty()) {
    factor = take_prefix(unit);
    if (unit != "B") {
      report(error, original, "has an unknown unit '" + std::string(unit) + "'", kExamples);
      return std::nullopt;
    }
  }
  const auto bytes = scaled(*number, factor);
  if (!bytes) return report(error, original, "is not a whole number of bytes below 2^63", kExamples), std::nullopt;
  return bytes;
}

std::string format_bandwidth(Bandwidth bw) {
  static constexpr struct {
    const char* name;
    std::int64_t factor;
  } kUnits[] = {{"Tbps", 1'000'000'000'000}, {"Gbps", 1'000'000'000}, {"Mbps", 1'000'000}, {"Kbps", 1'000}};
  for (const auto& u : kUnits)
    if (bw.bps() >= u.factor) {
      if (bw.bps() % u.factor == 0) return std::to_string(bw.bps() / u.factor) + u.name;
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.6g%s", static_cast<double>(bw.bps()) / static_cast<double>(u.factor), u.name);
      return buf;
    }
  return std::to_string(bw.bps()) + "bps";
}

std::string format_byte_size(std::uint64_t bytes) {
  static constexpr struct {
    const char* name;
    std::uint64_t factor;
  } kUnits[] = {{"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
  for (const auto& u : kUnits)
    if (bytes >= u.factor && bytes % u.factor == 0) return std::to_string(bytes / u.factor) + u.name;
  return std::to_string(bytes) + "B";
}

}  // namespace collsim
