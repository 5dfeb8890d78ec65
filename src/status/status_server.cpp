#include "collsim/status/status_server.hpp"

#include <cctype>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/system_error.hpp>

#include "status_connection.hpp"

namespace collsim::status {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

std::string endpoint_text(const asio::ip::address& address, std::uint16_t port) {
  const auto host = address.to_string();
  return (address.is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

asio::ip::address parse_address(const std::string& text, std::uint16_t port) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(text, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + text + ":" + std::to_string(port) +
                             ": not an IP address (expected e.g. 127.0.0.1, 0.0.0.0 or ::1)");
  }
  return address;
}

}  // namespace

// Everything that lives on the server's thread. Members are destroyed in reverse order: the
// thread is joined first (in ~StatusServer), then the acceptor, then the io_context, whose
// destruction frees the connections still pending; they use `limits` and `open_connections`,
// which therefore come first.
class StatusServer::Running {
 public:
  Running(StatusBoard& board, const std::string& bind_address, std::uint16_t port, ServerLimits limits)
      : board_(board), limits_(limits) {
    const auto address = parse_address(bind_address, port);
    const tcp::endpoint endpoint(address, port);
    boost::system::error_code ec;
    acceptor_.open(endpoint.protocol(), ec);
    // Lets a restarted run take its port back while old connections sit in TIME_WAIT; a port
    // another process listens on is still refused.
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      auto why = ec.message();
      if (!why.empty()) why.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(why.front())));
      throw std::runtime_error("cannot listen on " + endpoint_text(address, port) + ": " + why);
    }
    local_ = acceptor_.local_endpoint();
    accept();
    thread_ = std::thread([this] { serve(); });
  }

  void stop() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  std::uint16_t port() const { return local_.port(); }
  std::string address() const { return endpoint_text(local_.address(), local_.port()); }

 private:
  void serve() {
    // One bad request must not end the server: a handler that throws is dropped with its
    // connection (its shared_ptr goes with the handler) and serving goes on.
    for (;;) {
      try {
        io_.run();
        return;
      } catch (const std::exception&) {
        continue;
      }
    }
  }

  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors or similar: wait a little rather than spin on the error.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](const boost::system::error_code& wait_ec) {
          if (!wait_ec) accept();
        });
        return;
      }
      if (open_connections_ < limits_.max_connections) {
        std::make_shared<StatusConnection>(std::move(socket), board_, limits_, open_connections_)->start();
      }  // else: `socket` goes out of scope and closes
      accept();
    });
  }

  StatusBoard& board_;
  const ServerLimits limits_;
  std::size_t open_connections_ = 0;
  asio::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  asio::steady_timer retry_{io_};
  tcp::endpoint local_;
  std::thread thread_;
};

StatusServer::StatusServer(StatusBoard& board, std::string bind_address, std::uint16_t port, ServerLimits limits)
    : running_(std::make_unique<Running>(board, bind_address, port, limits)) {}

StatusServer::~StatusServer() { running_->stop(); }

std::uint16_t StatusServer::port() const { return running_->port(); }

std::string StatusServer::address() const { return running_->address(); }

}  // namespace collsim::status
