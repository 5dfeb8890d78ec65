#pragma once
// Small text helpers for reading nccl-tests output: whitespace splitting and numbers as
// nccl-tests prints them ("309.4", "47535", "5e-07", "-1").

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::validation {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

inline std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

inline bool is_integer(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

// A finite decimal number, the whole token; nothing for "N/A", "nan", "12abc".
inline std::optional<double> parse_number(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  const std::string str(s);
  char* end = nullptr;
  const double v = std::strtod(str.c_str(), &end);
  if (end != str.c_str() + str.size()) return std::nullopt;
  const char c = str.front();
  if (!(is_digit(c) || c == '-' || c == '+' || c == '.')) return std::nullopt;  // no "inf", "nan"
  if (str.find_first_of("xXpP") != std::string::npos) return std::nullopt;      // no hex floats
  return v;
}

// Decimal places of a printed number ("309.4" -> 1, "47535" -> 0, "5e-07" -> 7).
inline int decimals(std::string_view s) {
  const std::size_t e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    const int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
    const std::size_t dot = s.find('.');
    const int mant = dot == std::string_view::npos || dot > e ? 0 : static_cast<int>(e - dot - 1);
    return std::max(0, mant - exp);
  }
  const std::size_t dot = s.find('.');
  return dot == std::string_view::npos ? 0 : static_cast<int>(s.size() - dot - 1);
}

}  // namespace collsim::validation
