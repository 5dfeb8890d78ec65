#pragma once
// What the status endpoint answers to one request, apart from any socket: the server parses
// HTTP and writes bytes, this decides the status code and the JSON body, so the answers can be
// tested without a network.

#include <cstddef>
#include <string>
#include <string_view>

#include "collsim/status/run_status.hpp"

namespace collsim::status {

// How many links /links/top lists when no n is given, and at most.
inline constexpr std::size_t kDefaultTopLinks = 10;
inline constexpr std::size_t kMaxTopLinks = 1000;

struct StatusReply {
  unsigned code = 200;  // HTTP status code
  std::string body;     // JSON: the answer, or {"error": "..."} for 4xx
};

// `method` and `target` as they appear on the request line ("GET", "/links/top?n=5").
// The body is the same for HEAD as for GET; dropping it is the server's business.
// Asking for links is a request to the simulation to measure them again (board.request_links).
StatusReply answer(StatusBoard& board, std::string_view method, std::string_view target);

// {"error": message} as the body of a 4xx or 5xx reply.
std::string error_body(std::string_view message);

}  // namespace collsim::status
