// A hand-written scanner for GOAL text, following the states of txt2bin's re2c grammar so
// that both accept the same files: white space between tokens is optional, optional
// fields come in the order tag, cpu, nic, a statement ends at a newline (or at the end of
// the file), and comments stand on lines of their own.

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/common/mapped_file.hpp"
#include "collsim/goal/dependency_analysis.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/text_format.hpp"
#include "label_table.hpp"

namespace collsim::goal {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

// Operations of LogGOPSim2's Portals-4/sPIN dialect and its gem5 extension: named in the
// error so that users know the file is not standard GOAL rather than just broken.
bool is_dialect_op(std::string_view w) {
  static constexpr std::string_view kOps[] = {"put", "get", "tput", "tget", "append", "tappend", "test", "calcgem5"};
  return std::find(std::begin(kOps), std::end(kOps), w) != std::end(kOps);
}

std::string dialect_message(std::string_view w) {
  return "'" + std::string(w) +
         "' is an operation of LogGOPSim2's Portals-4/sPIN dialect, not of standard GOAL "
         "(which has only send, recv and calc); txt2bin and collsim do not read that dialect";
}

class TextParser {
 public:
  TextParser(std::string_view text, const std::string& file)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), file_(file) {}

  Schedule parse();

 private:
  struct Position {
    std::uint64_t line;
    std::uint64_t column;
  };

  [[noreturn]] void fail(const char* at, const std::string& detail) const {
    const Position pos = position_of(at);
    throw InputError::at_text(file_, pos.line, pos.column, detail);
  }
  [[noreturn]] void fail_expected(const std::string& expected) const {
    fail(p_, "expected " + expected + ", found " + describe(p_));
  }
  Position position_of(const char* at) const {
    const auto line = static_cast<std::uint64_t>(std::count(begin_, at, '\n')) + 1;
    const char* line_start = at;
    while (line_start > begin_ && line_start[-1] != '\n') --line_start;
    return {line, static_cast<std::uint64_t>(at - line_start) + 1};
  }
  std::uint64_t line_of(const char* at) const { return position_of(at).line; }
  std::string describe(const char* at) const;

  void skip_blanks() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
  }
  bool match(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) >= word.size() && std::memcmp(p_, word.data(), word.size()) == 0) {
      p_ += word.size();
      return true;
    }
    return false;
  }
  std::string_view identifier() {
    const char* start = p_;
    while (p_ < end_ && is_ident(*p_)) ++p_;
    return {start, static_cast<std::size_t>(p_ - start)};
  }
  std::string_view peek_identifier() const {
    const char* q = p_;
    if (q >= end_ || !is_alpha(*q)) return {};
    while (q < end_ && is_ident(*q)) ++q;
    return {p_, static_cast<std::size_t>(q - p_)};
  }
  // Consumes a line break; a lone '\r' is not one.
  bool newline() {
    if (p_ < end_ && *p_ == '\n') {
      ++p_;
      return true;
    }
    if (end_ - p_ >= 2 && p_[0] == '\r' && p_[1] == '\n') {
      p_ += 2;
      return true;
    }
    return false;
  }
  // A statement ends at a line break or at the end of the file (txt2bin appends one).
  void end_statement(const char* expected) {
    skip_blanks();
    if (p_ < end_ && !newline()) fail_expected(expected);
  }
  std::uint64_t number(const std::string& what, std::uint64_t max);
  std::uint32_t rank_or_wildcard(OpKind kind);
  std::uint32_t tag_or_wildcard();
  void comment();

  void num_ranks_line(const char* keyword_at);
  void rank_block(const char* keyword_at);
  void statement();
  LocalOp operation(OpKind kind, const char* statement_at);
  void dependency(const char* statement_at, std::string_view dependent, bool start_dependency);
  void check_cycles(RankId rank);
  std::string op_name(LocalOp op) const;

  const char* begin_;
  const char* p_;
  const char* end_;
  const std::string& file_;

  std::optional<ScheduleBuilder> builder_;
  const char* num_ranks_at_ = nullptr;
  std::uint32_t num_ranks_ = 0;
  RankId next_rank_ = 0;
  const char* rank_at_ = nullptr;
  detail::LabelTable labels_;
  std::vector<const char*> op_at_;  // statement start of each op of the current rank
};

std::string TextParser::describe(const char* at) const {
  if (at >= end_) return "end of file";
  if (*at == '\n' || (*at == '\r' && at + 1 < end_ && at[1] == '\n')) return "end of line";
  const char* q = at;
  if (is_alpha(*q)) {
    while (q < end_ && is_ident(*q) && q - at < 40) ++q;
    return "'" + std::string(at, q) + "'";
  }
  if (is_digit(*q)) {
    while (q < end_ && is_digit(*q) && q - at < 40) ++q;
    return "'" + std::string(at, q) + "'";
  }
  const auto c = static_cast<unsigned char>(*q);
  if (c == '\r') return "a carriage return not followed by a line feed";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + *q + "'";
  static const char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
}

std::uint64_t TextParser::number(const std::string& what, std::uint64_t max) {
  if (p_ >= end_ || !is_digit(*p_)) fail_expected(what + " (an integer)");
  const char* start = p_;
  std::uint64_t value = 0;
  for (; p_ < end_ && is_digit(*p_); ++p_) {
    const auto digit = static_cast<std::uint64_t>(*p_ - '0');
    if (value > (max - digit) / 10) {
      while (p_ < end_ && is_digit(*p_)) ++p_;
      fail(start, what + " " + std::string(start, p_) + " is too large (at most " + std::to_string(max) + ")");
    }
    value = value * 10 + digit;
  }
  return value;
}

std::uint32_t TextParser::rank_or_wildcard(OpKind kind) {
  const char* at = p_;
  if (match("-1")) {
    if (p_ < end_ && is_digit(*p_)) fail(at, "negative rank: only -1 (any source) is allowed");
    if (kind == OpKind::Send)
      fail(at, "a send needs a destination rank; -1 (any source) is only allowed as a recv source");
    return kAnySource;
  }
  const std::uint64_t peer = number(kind == OpKind::Send ? "destination rank" : "source rank", 0xFFFFFFFFu);
  if (peer >= num_ranks_)
    fail(at, "rank " + std::to_string(peer) + " does not exist: num_ranks is " + std::to_string(num_ranks_) +
                 " (line " + std::to_string(line_of(num_ranks_at_)) + ")");
  return static_cast<std::uint32_t>(peer);
}

std::uint32_t TextParser::tag_or_wildcard() {
  const char* at = p_;
  if (match("-1")) {
    if (p_ < end_ && is_digit(*p_)) fail(at, "negative tag: only -1 (any tag) is allowed");
    return kAnyTag;
  }
  // 2^32-1 is how the binary form stores -1, so it cannot be a tag of its own.
  return static_cast<std::uint32_t>(number("tag", kAnyTag - 1));
}

void TextParser::comment() {
  const char* start = p_;
  if (match("//")) {
    while (p_ < end_ && *p_ != '\n') ++p_;
    return;
  }
  if (match("/*")) {
    const char* close = nullptr;
    for (const char* q = p_; q + 1 < end_; ++q)
      if (q[0] == '*' && q[1] == '/') {
        close = q;
        break;
      }
    if (close == nullptr) fail(start, "unterminated comment: '/*' without '*/'");
    p_ = close + 2;
    return;
  }
  fail(start, "unexpected '/': comments start with '//' or '/*'");
}

Schedule TextParser::parse() {
  for (;;) {
    skip_blanks();
    if (p_ >= end_) break;
    if (newline()) continue;
    const char c = *p_;
    if (c == '/') {
      comment();
      continue;
    }
    if (is_alpha(c)) {
      const char* at = p_;
      const std::string_view word = identifier();
      if (word == "num_ranks") {
        num_ranks_line(at);
        continue;
      }
      if (word == "rank") {
        rank_block(at);
        continue;
      }
      p_ = at;
      if (is_dialect_op(word)) fail(at, dialect_message(word) + ", and ops belong inside a 'rank N { ... }' block");
      if (word == "send" || word == "recv" || word == "calc")
        fail(at, "'" + std::string(word) + "' outside a rank block: ops belong inside 'rank N { ... }'");
      fail_expected("'num_ranks', 'rank' or a comment");
    }
    if (c == '}') fail(p_, "'}' without an open 'rank N {' block");
    fail_expected("'num_ranks', 'rank' or a comment");
  }
  if (!builder_) fail(p_, "expected 'num_ranks N' before the end of the file: the file defines no ranks");
  if (next_rank_ != num_ranks_)
    fail(p_, "the file ends after " + std::to_string(next_rank_) + " rank block(s), but num_ranks is " +
                 std::to_string(num_ranks_) + ": the block of rank " + std::to_string(next_rank_) + " is missing");
  return builder_->finish();
}

void TextParser::num_ranks_line(const char* keyword_at) {
  if (num_ranks_at_ != nullptr)
    fail(keyword_at, "'num_ranks' given twice (first on line " + std::to_string(line_of(num_ranks_at_)) + ")");
  skip_blanks();
  const char* value_at = p_;
  const std::uint64_t n = number("number of ranks", 0xFFFFFFFFu);
  if (n == 0) fail(value_at, "num_ranks must be at least 1");
  num_ranks_at_ = keyword_at;
  num_ranks_ = static_cast<std::uint32_t>(n);
  builder_.emplace(num_ranks_);
  // Every op takes a line; a line count bounds the ops and only reserves address space.
  const auto lines = static_cast<std::uint64_t>(std::count(p_, end_, '\n')) + 1;
  builder_->reserve(lines, lines);
}

void TextParser::rank_block(const char* keyword_at) {
  if (!builder_) fail(keyword_at, "'rank' block before 'num_ranks N': the number of ranks must come first");
  skip_blanks();
  const char* value_at = p_;
  const std::uint64_t r = number("rank number", 0xFFFFFFFFu);
  if (r >= num_ranks_)
    fail(value_at, "rank " + std::to_string(r) + " does not exist: num_ranks is " + std::to_string(num_ranks_));
  if (r != next_rank_) {
    if (r < next_rank_) fail(value_at, "rank " + std::to_string(r) + " has a block already; blocks come once each, in order 0.." + std::to_string(num_ranks_ - 1));
    fail(value_at, "expected the block of rank " + std::to_string(next_rank_) + ", found rank " + std::to_string(r) +
                       ": blocks come in order 0.." + std::to_string(num_ranks_ - 1));
  }
  skip_blanks();
  if (!match("{")) fail_expected("'{' after 'rank " + std::to_string(r) + "'");

  rank_at_ = keyword_at;
  builder_->begin_rank(static_cast<RankId>(r));
  labels_.clear();
  op_at_.clear();
  for (;;) {
    skip_blanks();
    if (p_ >= end_)
      fail(keyword_at, "the block of rank " + std::to_string(r) + " is not closed: '}' missing before the end of the file");
    if (newline()) continue;
    const char c = *p_;
    if (c == '}') {
      ++p_;
      break;
    }
    if (c == '/') {
      comment();
      continue;
    }
    if (!is_alpha(c)) fail_expected("an op, a dependency, a comment or '}'");
    statement();
  }
  builder_->end_rank();
  check_cycles(static_cast<RankId>(r));
  ++next_rank_;
}

void TextParser::statement() {
  const char* at = p_;
  const std::string_view word = identifier();
  if (word == "send") {
    operation(OpKind::Send, at);
    return;
  }
  if (word == "recv") {
    operation(OpKind::Recv, at);
    return;
  }
  if (word == "calc") {
    operation(OpKind::Calc, at);
    return;
  }
  if (word == "rank")
    fail(at, "'rank' inside the block of rank " + std::to_string(builder_->current_rank()) + ": is a '}' missing?");
  if (word == "num_ranks") fail(at, "'num_ranks' inside a rank block: it must come before the first block");

  // A label, then ':' and an op, or 'requires' / 'irequires' and a second label.
  skip_blanks();
  if (match(":")) {
    skip_blanks();
    const char* op_at = p_;
    const std::string_view op_word = peek_identifier();
    if (is_dialect_op(op_word)) fail(op_at, dialect_message(op_word));
    OpKind kind;
    if (match("send")) {
      kind = OpKind::Send;
    } else if (match("recv")) {
      kind = OpKind::Recv;
    } else if (match("calc")) {
      kind = OpKind::Calc;
    } else {
      fail_expected("'send', 'recv' or 'calc' after '" + std::string(word) + ":'");
    }
    const LocalOp op = operation(kind, at);
    if (auto first = labels_.insert(word, op))
      fail(at, "label '" + std::string(word) + "' is defined twice in rank " + std::to_string(builder_->current_rank()) +
                   " (first on line " + std::to_string(line_of(op_at_[*first])) + ")");
    return;
  }
  if (match("requires")) {
    dependency(at, word, false);
    return;
  }
  if (match("irequires")) {
    dependency(at, word, true);
    return;
  }
  if (is_dialect_op(word)) fail(at, dialect_message(word));
  fail_expected("':', 'requires' or 'irequires' after label '" + std::string(word) + "'");
}

LocalOp TextParser::operation(OpKind kind, const char* statement_at) {
  Op op;
  op.kind = kind;
  skip_blanks();
  if (kind == OpKind::Calc) {
    op.size = number("calc duration in ns", kMaxCalcNs);
    skip_blanks();
    if (match("cpu")) {
      skip_blanks();
      op.cpu = static_cast<std::uint8_t>(number("cpu", 255));
      end_statement("end of line after the cpu");
    } else if (peek_identifier().starts_with("nic") || peek_identifier().starts_with("tag")) {
      fail(p_, "calc takes no " + std::string(peek_identifier().substr(0, 3)) + " (only a duration and an optional 'cpu')");
    } else {
      end_statement("'cpu' or end of line");
    }
  } else {
    op.size = number("message size in bytes", kMaxSize);
    skip_blanks();
    if (!match("b")) fail_expected("'b' after the message size (sizes are in bytes, as in '1024b')");
    skip_blanks();
    if (!match(kind == OpKind::Send ? "to" : "from"))
      fail_expected(kind == OpKind::Send ? "'to' and a destination rank" : "'from' and a source rank");
    skip_blanks();
    op.peer = rank_or_wildcard(kind);
    skip_blanks();
    const char* expected = "'tag', 'cpu', 'nic' or end of line";
    if (match("tag")) {
      skip_blanks();
      op.tag = tag_or_wildcard();
      skip_blanks();
      expected = "'cpu', 'nic' or end of line (optional fields come in the order tag, cpu, nic)";
    }
    if (match("cpu")) {
      skip_blanks();
      op.cpu = static_cast<std::uint8_t>(number("cpu", 255));
      skip_blanks();
      expected = "'nic' or end of line (optional fields come in the order tag, cpu, nic)";
    }
    if (match("nic")) {
      skip_blanks();
      op.nic = static_cast<std::uint8_t>(number("nic", 255));
      expected = "end of line (optional fields come in the order tag, cpu, nic)";
    }
    end_statement(expected);
  }
  op_at_.push_back(statement_at);
  return builder_->add(op);
}

void TextParser::dependency(const char* statement_at, std::string_view dependent, bool start_dependency) {
  skip_blanks();
  const char* second_at = p_;
  if (p_ >= end_ || !is_alpha(*p_))
    fail_expected(std::string("a label after '") + (start_dependency ? "irequires" : "requires") + "'");
  const std::string_view prerequisite = identifier();
  end_statement("end of line after the dependency");

  const RankId rank = builder_->current_rank();
  auto unknown = [&](const char* at, std::string_view label) {
    fail(at, "unknown label '" + std::string(label) + "' in rank " + std::to_string(rank) +
                 " (a dependency must come after the ops it names, in the same rank block)");
  };
  const auto a = labels_.find(dependent);
  if (!a) unknown(statement_at, dependent);
  const auto b = labels_.find(prerequisite);
  if (!b) unknown(second_at, prerequisite);
  if (*a == *b) fail(statement_at, "dependency cycle in rank " + std::to_string(rank) + ": '" + std::string(dependent) + "' depends on itself");
  if (start_dependency) {
    builder_->add_irequires(*a, *b);
  } else {
    builder_->add_requires(*a, *b);
  }
}

std::string TextParser::op_name(LocalOp op) const {
  const char* at = op_at_[op];
  const char* q = at;
  while (q < end_ && is_ident(*q)) ++q;
  return "'" + std::string(at, q) + "' (line " + std::to_string(line_of(at)) + ")";
}

void TextParser::check_cycles(RankId rank) {
  const RankOps ops = builder_->last_rank();
  if (dependencies_point_backward(ops)) return;
  const std::vector<CycleStep> cycle = find_dependency_cycle(ops);
  if (cycle.empty()) return;
  std::string text;
  for (const CycleStep& step : cycle) text += op_name(step.op) + (step.start_dependency ? " irequires " : " requires ");
  text += op_name(cycle.front().op);
  fail(op_at_[cycle.front().op], "dependency cycle in rank " + std::to_string(rank) + ": " + text);
}

}  // namespace

Schedule parse_goal_text(std::string_view text, const std::string& file_name) {
  return TextParser(text, file_name).parse();
}

Schedule read_goal_text_file(const std::string& path) {
  const MappedFile file(path);
  return parse_goal_text(file.text(), path);
}

}  // namespace collsim::goal
