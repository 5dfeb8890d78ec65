#pragma once
// A bare HTTP client for the status server tests: raw bytes out, raw bytes in, and a deadline on
// everything so that a test can fail but never hang.

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <functional>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace collsim::status::testing {

using namespace std::chrono_literals;
using boost::asio::ip::tcp;

struct RawExchange {
  std::string received;      // everything the server sent
  bool closed = false;       // the server ended the connection (EOF or reset) before the deadline
  bool write_failed = false; // the server stopped taking our bytes (closed on us)
};

inline tcp::endpoint loopback(std::uint16_t port) {
  return {boost::asio::ip::make_address("127.0.0.1"), port};
}

// Sends `request` and reads until the server closes or `deadline` passes. With `then_close_send`
// the client says it has nothing more to send, so an unfinished request ends rather than waits.
inline RawExchange exchange(std::uint16_t port, std::string_view request, std::chrono::milliseconds deadline = 3s,
                            bool then_close_send = false) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  RawExchange result;
  std::array<char, 4096> chunk{};
  std::function<void()> read_more = [&] {
    socket.async_read_some(boost::asio::buffer(chunk), [&](boost::system::error_code ec, std::size_t n) {
      result.received.append(chunk.data(), n);
      if (ec) {
        result.closed = true;
        return;
      }
      read_more();
    });
  };
  socket.async_connect(loopback(port), [&](boost::system::error_code ec) {
    if (ec) return;
    read_more();  // read while writing: the server may answer before it has read everything
    boost::asio::async_write(socket, boost::asio::buffer(request), [&](boost::system::error_code write_ec, std::size_t) {
      if (write_ec) {
        result.write_failed = true;
        return;
      }
      boost::system::error_code ignored;
      if (then_close_send) socket.shutdown(tcp::socket::shutdown_send, ignored);
    });
  });
  io.run_for(deadline);
  return result;
}

// The status code of a raw HTTP response ("HTTP/1.1 404 Not Found" gives 404), 0 if none.
inline unsigned status_code(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return static_cast<unsigned>(std::stoul(response.substr(9, 3)));
}

inline std::string body_of(const std::string& response) {
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? std::string{} : response.substr(end + 4);
}

inline std::string get(std::string_view target) {
  return "GET " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
}

// A connection that the test holds open without sending anything.
class SilentClient {
 public:
  explicit SilentClient(std::uint16_t port) : socket_(io_) { socket_.connect(loopback(port)); }
  // Waits up to `deadline` for the server to close the connection; true if it did.
  bool closed_by_server_within(std::chrono::milliseconds deadline) {
    bool closed = false;
    std::array<char, 256> chunk{};
    std::function<void()> read_more = [&] {
      socket_.async_read_some(boost::asio::buffer(chunk), [&](boost::system::error_code ec, std::size_t) {
        if (ec == boost::asio::error::operation_aborted) return;
        if (ec) {
          closed = true;
          return;
        }
        read_more();
      });
    };
    read_more();
    io_.run_for(deadline);
    // The read still pending refers to locals: cancel it and let it finish before returning.
    socket_.cancel();
    io_.restart();
    io_.run();
    io_.restart();
    return closed;
  }
  void send(std::string_view bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes)); }

 private:
  boost::asio::io_context io_;
  tcp::socket socket_;
};

}  // namespace collsim::status::testing
