#pragma once
// The live status endpoint: a small HTTP/1.1 server on its own thread that answers
// GET /status and GET /links/top?n=K from a StatusBoard (see status_routes.hpp for the answers).
// It prints nothing; the caller says where it listens.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "collsim/status/run_status.hpp"

namespace collsim::status {

// What one client may cost the server. A client that is slower or larger than this is dropped,
// so that a slow or hostile client can hold up nobody but itself.
struct ServerLimits {
  // From accepting a connection to having read its whole request header (not an idle timeout:
  // a client dribbling one byte a second is dropped too). Also bounds writing the answer.
  std::chrono::milliseconds request_timeout{5000};
  // Request line plus headers; a longer request gets 431 and the connection is closed.
  std::size_t max_header_bytes = 8 * 1024;
  // Connections open at once; more are closed as soon as they are accepted.
  std::size_t max_connections = 64;
};

class StatusServer {
 public:
  // Listens on bind_address:port (port 0: any free port, see port()) and serves until destroyed.
  // Throws std::runtime_error when it cannot listen ("cannot listen on 127.0.0.1:8080: address
  // already in use"). `board` must outlive the server.
  StatusServer(StatusBoard& board, std::string bind_address = "127.0.0.1", std::uint16_t port = 0,
               ServerLimits limits = {});
  // Stops promptly, closing any open connections, and joins the server's thread.
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  // The port it listens on (the one picked when 0 was asked for).
  std::uint16_t port() const;
  // "127.0.0.1:41234" or "[::1]:41234", for the caller to print.
  std::string address() const;

 private:
  class Running;
  std::unique_ptr<Running> running_;
};

}  // namespace collsim::status
