#pragma once
// Typed event handlers. An LP class lists the member functions that events may call:
//
//   class Router : public pdes::LogicalProcess {
//    public:
//     void on_packet(const Packet& p);   // payload: any trivially copyable type <= 48 bytes
//     void on_timer();                   // or none
//     using Handlers = pdes::Handlers<&Router::on_packet, &Router::on_timer>;  // after them
//   };
//
// and events name the member function itself: schedule<&Router::on_packet>(target, delay, p).
// The event carries the function's index in that list (the same on every rank) and a tag
// of the class, which the receiving engine checks against the target LP's class.

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "collsim/pdes/event.hpp"

namespace collsim::pdes {

class LogicalProcess;

template <auto... Methods>
struct Handlers {};

namespace detail {

using Trampoline = void (*)(LogicalProcess&, const std::byte* payload);

template <auto Method>
struct MethodTraits;
template <typename C, typename P, void (C::*Method)(const P&)>
struct MethodTraits<Method> {
  using Class = C;
  using Payload = P;
};
template <typename C, void (C::*Method)()>
struct MethodTraits<Method> {
  using Class = C;
  using Payload = void;
};

template <auto Method>
void invoke(LogicalProcess& lp, const std::byte* payload) {
  using Traits = MethodTraits<Method>;
  auto& self = static_cast<typename Traits::Class&>(lp);
  if constexpr (std::is_void_v<typename Traits::Payload>) {
    (self.*Method)();
  } else {
    typename Traits::Payload value;
    std::memcpy(&value, payload, sizeof value);
    (self.*Method)(value);
  }
}

template <auto V>
struct Constant {};

template <auto Method, auto... Methods>
constexpr int index_in(Handlers<Methods...>) {
  constexpr bool matches[] = {std::is_same_v<Constant<Method>, Constant<Methods>>..., false};
  for (int i = 0; i < static_cast<int>(sizeof...(Methods)); ++i)
    if (matches[i]) return i;
  return -1;
}

template <auto... Methods>
constexpr Trampoline trampolines_of[] = {&invoke<Methods>...};

template <auto... Methods>
constexpr const Trampoline* table_of(Handlers<Methods...>) {
  return trampolines_of<Methods...>;
}
template <auto... Methods>
constexpr std::uint8_t count_of(Handlers<Methods...>) {
  return sizeof...(Methods);
}

constexpr std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// A tag for class T from its name as the compiler spells it: equal in every process
// running the same program.
template <typename T>
consteval std::uint32_t class_tag_of() {
  const std::uint32_t h = fnv1a(__PRETTY_FUNCTION__);
  return (h ^ (h >> kLpClassBits)) & ((1u << kLpClassBits) - 1);  // what EventBody::lp_class holds
}
template <typename T>
inline constexpr std::uint32_t class_tag = class_tag_of<T>();

}  // namespace detail

// What an LP class must provide to receive events.
template <typename T>
concept HasHandlers = requires { typename T::Handlers; };

// Whether `event` calls Method (of the class the event is for): for an LP reading its own
// pending events (LogicalProcess::output_bound).
template <auto Method>
bool calls(const EventBody& event) {
  using Class = typename detail::MethodTraits<Method>::Class;
  constexpr int index = detail::index_in<Method>(typename Class::Handlers{});
  static_assert(index >= 0, "the method is not in its class's Handlers list");
  return event.handler == static_cast<std::uint32_t>(index);
}
// The payload of an event that calls Method.
template <auto Method>
typename detail::MethodTraits<Method>::Payload payload_of(const EventBody& event) {
  typename detail::MethodTraits<Method>::Payload value;
  std::memcpy(&value, event.payload, sizeof value);
  return value;
}

}  // namespace collsim::pdes
