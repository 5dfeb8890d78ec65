#include "nccl_log_line.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "collsim/common/input_error.hpp"

namespace collsim::traces {
namespace {

constexpr std::array<std::string_view, 8> kCallNames = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
                                                        "Reduce",    "AlltoAll",  "Send",          "Recv"};

bool is_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "[2024-05-01 12:34:56]" or with ".123456" seconds, anywhere before the host.
std::optional<std::int64_t> timestamp_in(std::string_view head) {
  for (std::size_t at = head.find('['); at != std::string_view::npos; at = head.find('[', at + 1)) {
    const std::string_view s = head.substr(at + 1);
    if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':') continue;
    if (!is_digits(s.substr(0, 4)) || !is_digits(s.substr(5, 2)) || !is_digits(s.substr(8, 2)) ||
        !is_digits(s.substr(11, 2)) || !is_digits(s.substr(14, 2)) || !is_digits(s.substr(17, 2)))
      continue;
    auto num = [&](std::size_t pos, std::size_t len) { return std::stoll(std::string(s.substr(pos, len))); };
    std::int64_t ns = (days_from_civil(num(0, 4), static_cast<unsigned>(num(5, 2)), static_cast<unsigned>(num(8, 2))) * 86400 +
                       num(11, 2) * 3600 + num(14, 2) * 60 + num(17, 2)) *
                      1'000'000'000;
    std::size_t i = 19;
    if (i < s.size() && s[i] == '.') {
      std::int64_t scale = 100'000'000;
      for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, scale /= 10) ns += (s[i] - '0') * scale;
    }
    return ns;
  }
  return std::nullopt;
}

struct Token {
  std::string_view text;
  std::size_t column;  // 1-based in the line
};

std::vector<Token> tokens(std::string_view text, std::size_t base) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') ++i;
    if (i > start) out.push_back({text.substr(start, i - start), base + start + 1});
  }
  return out;
}

class Fields {
 public:
  Fields(std::vector<Token> t, const std::string& file, std::uint64_t line, std::size_t end_column)
      : t_(std::move(t)), file_(file), line_(line), end_(end_column) {}

  // The token after `key`; fails when `key` is missing or last.
  const Token* find(std::string_view key) const {
    for (std::size_t i = 0; i + 1 < t_.size(); ++i)
      if (t_[i].text == key) return &t_[i + 1];
    return nullptr;
  }
  const Token& value(std::string_view key, const char* what) const {
    const Token* v = find(key);
    if (v == nullptr) fail(end_, std::string("expected '") + std::string(key) + " <" + what + ">'");
    return *v;
  }
  std::uint64_t number(std::string_view key, int base = 10) const {
    const Token& v = value(key, base == 16 ? "hex number" : "number");
    std::string_view s = v.text;
    if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    std::uint64_t out = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
    if (ec != std::errc() || end != s.data() + s.size())
      fail(v.column, "expected a " + std::string(base == 16 ? "hexadecimal " : "") + "number after '" + std::string(key) +
                         "', found '" + std::string(v.text) + "'");
    return out;
  }
  std::uint32_t number32(std::string_view key) const {
    const std::uint64_t v = number(key);
    if (v > 0xFFFFFFFFu) fail(value(key, "").column, "'" + std::string(key) + "' is too large");
    return static_cast<std::uint32_t>(v);
  }
  const std::vector<Token>& all() const { return t_; }
  [[noreturn]] void fail(std::size_t column, const std::string& detail) const {
    throw InputError::at_text(file_, line_, column, detail);
  }

 private:
  std::vector<Token> t_;
  const std::string& file_;
  std::uint64_t line_;
  std::size_t end_;
};

}  // namespace

std::optional<std::uint32_t> nccl_datatype_bytes(std::uint32_t datatype) {
  static constexpr std::uint32_t kBytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  if (datatype >= std::size(kBytes)) return std::nullopt;
  return kBytes[datatype];
}

std::optional<NcclLine> parse_nccl_line(std::string_view text, const std::string& file, std::uint64_t line) {
  constexpr std::string_view kInfo = " NCCL INFO ";
  const std::size_t info = text.find(kInfo);
  if (info == std::string_view::npos) return std::nullopt;
  const std::size_t msg_at = info + kInfo.size();
  const std::string_view msg = text.substr(msg_at);

  bool is_call = false;
  for (std::string_view name : kCallNames)
    if (msg.size() > name.size() + 9 && msg.substr(0, name.size()) == name && msg.substr(name.size(), 9) == ": opCount")
      is_call = true;
  // Another call ("AllToAllv: opCount ...") would vanish from the program, and every time
  // after it would be early: it is refused where it stands.
  if (const std::size_t colon = msg.find(": opCount"); !is_call && colon != std::string_view::npos && colon > 0 &&
                                                        std::all_of(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(colon),
                                                                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
    throw InputError::at_text(file, line, msg_at + 1,
                              "NCCL call '" + std::string(msg.substr(0, colon)) +
                                  "' is not one replay simulates (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, "
                                  "AlltoAll, Send, Recv)");
  const bool is_init = !is_call && msg.find("Init COMPLETE") != std::string_view::npos &&
                       (msg.substr(0, 5) == "comm " || msg.find(" comm ") != std::string_view::npos);
  if (!is_call && !is_init) return std::nullopt;

  // The prefix: [launcher prefix][timestamp ]host:pid:tid [cudaDev]
  NcclLine out;
  const std::string_view head = text.substr(0, info);
  const std::size_t open = head.rfind('[');
  if (open == std::string_view::npos || head.back() != ']' || !is_digits(head.substr(open + 1, head.size() - open - 2)))
    throw InputError::at_text(file, line, info + 1, "expected '<host>:<pid>:<tid> [<cudaDev>]' before 'NCCL INFO'");
  out.device = std::string(head.substr(open + 1, head.size() - open - 2));
  std::string_view who = head.substr(0, open);
  while (!who.empty() && who.back() == ' ') who.remove_suffix(1);
  const std::size_t space = who.find_last_of(" \t");
  const std::string_view before = space == std::string_view::npos ? std::string_view() : who.substr(0, space);
  who = space == std::string_view::npos ? who : who.substr(space + 1);
  const std::size_t c3 = who.rfind(':');
  const std::size_t c2 = c3 == std::string_view::npos || c3 == 0 ? std::string_view::npos : who.rfind(':', c3 - 1);
  if (c2 == std::string_view::npos || !is_digits(who.substr(c2 + 1, c3 - c2 - 1)))
    throw InputError::at_text(file, line, 1, "expected '<host>:<pid>:<tid> [<cudaDev>]' before 'NCCL INFO'");
  const std::size_t c1 = c2 == 0 ? std::string_view::npos : who.rfind(':', c2 - 1);
  out.host = std::string(c1 == std::string_view::npos ? who.substr(0, c2) : who.substr(c1 + 1, c2 - c1 - 1));
  out.pid = std::string(who.substr(c2 + 1, c3 - c2 - 1));
  out.time_ns = timestamp_in(before.empty() && c1 != std::string_view::npos ? who.substr(0, c1) : before);

  const Fields f(tokens(msg, msg_at), file, line, text.size() + 1);
  if (is_call) {
    NcclCallLine c;
    c.op = std::string(msg.substr(0, msg.find(':')));
    c.op_count = f.number("opCount", 16);
    c.count = f.number("count");
    c.datatype = f.number32("datatype");
    if (!nccl_datatype_bytes(c.datatype))
      f.fail(f.value("datatype", "").column, "unknown datatype " + std::to_string(c.datatype) + " (NCCL's are 0..11)");
    c.root = f.find("root") != nullptr ? f.number32("root") : 0;
    if ((c.op == "Send" || c.op == "Recv" || c.op == "Broadcast" || c.op == "Reduce") && f.find("root") == nullptr)
      f.fail(text.size() + 1, "expected 'root <rank>' (" + c.op + " names its " +
                                  (c.op == "Send" || c.op == "Recv" ? "peer" : "root") + " there)");
    c.comm = std::string(f.value("comm", "pointer").text);
    if (const Token* s = f.find("stream")) c.stream = std::string(s->text);
    for (const Token& t : f.all())
      if (t.text.substr(0, 8) == "[nranks=" && t.text.back() == ']') {
        const std::string_view n = t.text.substr(8, t.text.size() - 9);
        if (!is_digits(n) || n.size() > 9) f.fail(t.column, "expected [nranks=<number>]");
        c.nranks = static_cast<std::uint32_t>(std::stoul(std::string(n)));
      }
    out.call = std::move(c);
  } else {
    NcclInitLine i;
    i.comm = std::string(f.value("comm", "pointer").text);
    i.rank = f.number32("rank");
    i.nranks = f.number32("nranks");
    if (f.find("commId") == nullptr)
      f.fail(text.size() + 1, "the init line has no 'commId <id>': communicators cannot be matched across processes "
                              "(use an NCCL version whose init line prints commId)");
    i.comm_id = std::string(f.value("commId", "id").text);
    if (i.nranks == 0 || i.rank >= i.nranks)
      f.fail(f.value("rank", "").column, "rank " + std::to_string(i.rank) + " is not below nranks " + std::to_string(i.nranks));
    out.init = std::move(i);
  }
  return out;
}

}  // namespace collsim::traces
