#pragma once
// What the network carries for the application above it (the GOAL executor), whatever model
// carries it (packets, flows): a message's header, given when the message is sent and handed
// back when it is delivered and when its sending ends. The network never reads it.

#include <cstdint>

namespace collsim::net {

using HostIndex = std::uint32_t;
using FlowId = std::uint32_t;  // a message's number at its sender (0, 1, ... per host)

// The messages of MPI's and NCCL's point-to-point protocol: an eager message carries its data;
// a rendezvous sends a request, the receiver answers clear-to-send once a receive matches, and
// the data follows.
enum class MessageKind : std::uint8_t { Eager, Request, ClearToSend, Data };

struct MessageHeader {
  // Eager and Request: the schedule's tag. ClearToSend and Data: the request's FlowId at the
  // rank that sent it.
  std::uint32_t tag = 0;
  // The sending and the receiving rank, each as its index among the ranks of its host.
  std::uint32_t sender_slot : 12 = 0;
  std::uint32_t receiver_slot : 12 = 0;
  MessageKind kind : 8 = MessageKind::Eager;
};
static_assert(sizeof(MessageHeader) == 8);

// Ranks a host can run: what a slot holds.
inline constexpr std::uint32_t kMaxRanksPerHost = 1u << 12;

}  // namespace collsim::net
