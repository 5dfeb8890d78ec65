#include "collsim/status/status_routes.hpp"

#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim::status {
namespace {

// Link names come from topology files: replace rather than throw on invalid UTF-8.
std::string dump(const nlohmann::ordered_json& json) {
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

StatusReply fail(unsigned code, std::string_view message) { return {code, error_body(message)}; }

struct QueryParam {
  std::string_view key;
  std::string_view value;
};

// Splits "a=1&b=2"; a parameter without '=' has an empty value.
std::vector<QueryParam> split_query(std::string_view query) {
  std::vector<QueryParam> params;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto part = query.substr(0, amp);
    const auto eq = part.find('=');
    params.push_back({part.substr(0, eq), eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1)});
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return params;
}

StatusReply status_reply(const StatusBoard& board, std::string_view query) {
  if (!query.empty()) return fail(400, "/status takes no query parameters");
  const RunStatus s = board.status();
  const nlohmann::ordered_json json = {
      {"sim_time_ps", s.sim_time_ps}, {"events", s.events},   {"events_per_s", s.events_per_s},
      {"ops_completed", s.ops_completed}, {"ops_total", s.ops_total}, {"ranks", s.ranks},
      {"wall_s", s.wall_s},           {"state", s.state}};
  return {200, dump(json)};
}

// n as 1..kMaxTopLinks in decimal digits, or nothing when it is not that.
std::optional<std::size_t> parse_count(std::string_view text) {
  std::size_t n = 0;
  const auto* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc{} || stop != end || n < 1 || n > kMaxTopLinks) return std::nullopt;
  return n;
}

StatusReply top_links_reply(StatusBoard& board, std::string_view query) {
  std::size_t n = kDefaultTopLinks;
  bool seen_n = false;
  for (const auto& [key, value] : split_query(query)) {
    if (key != "n") return fail(400, "/links/top takes only n, not '" + std::string(key) + "'");
    if (seen_n) return fail(400, "n given twice");
    seen_n = true;
    const auto count = parse_count(value);
    if (!count) {
      return fail(400, "n must be a whole number from 1 to " + std::to_string(kMaxTopLinks) + ", not '" +
                           std::string(value) + "'");
    }
    n = *count;
  }
  // Answer at once with the last measurement; the simulation measures again when it next can.
  board.request_links();
  std::int64_t as_of = -1;
  const auto links = board.top_links(n, &as_of);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& link : links) {
    list.push_back({{"link", link.link}, {"bytes", link.bytes}, {"utilisation", link.utilisation}});
  }
  nlohmann::ordered_json json = {{"as_of_sim_time_ps", nullptr}, {"links", std::move(list)}};
  if (as_of >= 0) json["as_of_sim_time_ps"] = as_of;
  return {200, dump(json)};
}

}  // namespace

std::string error_body(std::string_view message) {
  return dump(nlohmann::ordered_json{{"error", std::string(message)}});
}

StatusReply answer(StatusBoard& board, std::string_view method, std::string_view target) {
  if (method != "GET" && method != "HEAD") {
    return fail(405, "method " + std::string(method) + " not allowed: only GET and HEAD");
  }
  if (target.empty() || target.front() != '/') return fail(400, "request target must be a path starting with '/'");
  const auto question = target.find('?');
  const auto path = target.substr(0, question);
  const auto query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  if (path == "/status") return status_reply(board, query);
  if (path == "/links/top") return top_links_reply(board, query);
  return fail(404, "no such path: " + std::string(path) + " (try /status or /links/top?n=10)");
}

}  // namespace collsim::status
