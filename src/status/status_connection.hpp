#pragma once
// One client of the status endpoint: read one request, answer it, close. Runs on the server's
// single thread; keeps itself alive through the handlers it has pending.

#include <array>
#include <cstddef>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "collsim/status/run_status.hpp"
#include "collsim/status/status_server.hpp"

namespace collsim::status {

class StatusConnection : public std::enable_shared_from_this<StatusConnection> {
 public:
  // `open_connections` counts live connections for the server's limit; it and `limits` must
  // outlive every connection (the server destroys its io_context, and with it any pending
  // connection, before them).
  StatusConnection(boost::asio::ip::tcp::socket socket, StatusBoard& board, const ServerLimits& limits,
                   std::size_t& open_connections);
  ~StatusConnection();
  StatusConnection(const StatusConnection&) = delete;
  StatusConnection& operator=(const StatusConnection&) = delete;

  void start();

 private:
  void on_read(boost::beast::error_code ec);
  // HEAD gets the headers of the GET answer only; 405 says which methods there are.
  void reply(unsigned code, std::string body, bool head_only = false);
  void on_written(boost::beast::error_code ec);
  void drain();

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::request_parser<boost::beast::http::empty_body> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  StatusBoard& board_;
  const ServerLimits& limits_;
  std::size_t& open_connections_;
  std::array<char, 2048> discard_{};  // what the client sends after its answer, thrown away
  std::size_t drained_ = 0;
};

}  // namespace collsim::status
