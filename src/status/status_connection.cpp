#include "status_connection.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "collsim/status/status_routes.hpp"

namespace collsim::status {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// After answering, what the client still sends is read and thrown away for a moment before
// closing: closing a socket with unread input sends a reset, which can destroy the answer
// before the client has read it (an oversized request, typically).
constexpr std::chrono::milliseconds kLingerTime{500};
constexpr std::size_t kMaxDrainBytes = 64 * 1024;

bool is_parse_error(const beast::error_code& ec) {
  return ec.category() == beast::error_code(http::error::bad_method).category();
}

}  // namespace

StatusConnection::StatusConnection(boost::asio::ip::tcp::socket socket, StatusBoard& board,
                                   const ServerLimits& limits, std::size_t& open_connections)
    : stream_(std::move(socket)),
      buffer_(limits.max_header_bytes + 1),
      board_(board),
      limits_(limits),
      open_connections_(open_connections) {
  ++open_connections_;
}

StatusConnection::~StatusConnection() { --open_connections_; }

void StatusConnection::start() {
  parser_.header_limit(
      static_cast<std::uint32_t>(std::min<std::size_t>(limits_.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  stream_.expires_after(limits_.request_timeout);
  http::async_read(stream_, buffer_, parser_,
                   [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
}

void StatusConnection::on_read(beast::error_code ec) {
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    reply(431, error_body("request header larger than " + std::to_string(limits_.max_header_bytes) + " bytes"));
    return;
  }
  if (ec == http::error::unexpected_body || ec == http::error::body_limit) {
    reply(400, error_body("a status request has no body"));
    return;
  }
  if (ec && is_parse_error(ec) && ec != http::error::end_of_stream) {
    reply(400, error_body("malformed HTTP request: " + ec.message()));
    return;
  }
  // Timed out, or the client went away: nobody to answer.
  if (ec) return;

  const auto& request = parser_.get();
  const bool head_only = request.method() == http::verb::head;
  auto [code, body] = answer(board_, std::string_view(request.method_string().data(), request.method_string().size()),
                             std::string_view(request.target().data(), request.target().size()));
  reply(code, std::move(body), head_only);
}

void StatusConnection::reply(unsigned code, std::string body, bool head_only) {
  response_.result(code);
  response_.version(11);
  response_.set(http::field::content_type, "application/json");
  response_.set(http::field::cache_control, "no-store");
  if (code == 405) response_.set(http::field::allow, "GET, HEAD");
  response_.keep_alive(false);
  const auto length = body.size();
  if (!head_only) response_.body() = std::move(body);
  response_.content_length(length);
  stream_.expires_after(limits_.request_timeout);
  http::async_write(stream_, response_,
                    [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_written(ec); });
}

void StatusConnection::on_written(beast::error_code ec) {
  if (ec) return;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
  if (ec) return;
  stream_.expires_after(std::min<std::chrono::milliseconds>(kLingerTime, limits_.request_timeout));
  drain();
}

void StatusConnection::drain() {
  stream_.async_read_some(boost::asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
    self->drained_ += n;
    if (!ec && self->drained_ < kMaxDrainBytes) self->drain();
  });
}

}  // namespace collsim::status
