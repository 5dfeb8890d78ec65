#include "host_executor.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "schedule_ops.hpp"
#include "streamed_ops.hpp"

namespace collsim::exec {

using goal::LocalOp;
using goal::OpKind;

template <typename Store>
HostExecutor<Store>::HostExecutor(Store& store, const Placement& placement, const PacketHostParams& params,
                                  std::uint32_t host, bool record_flows)
    : store_(store),
      placement_(placement),
      params_(params),
      host_(host),
      record_flows_(record_flows),
      scale_up_(params.scale_up, host) {
  const auto& on = placement.ranks_on[host];
  if (on.size() > net::kMaxRanksPerHost)
    throw std::invalid_argument("a host runs at most " + std::to_string(net::kMaxRanksPerHost) + " ranks; host " +
                                std::to_string(host) + " has " + std::to_string(on.size()));
  ranks_.resize(on.size());
  for (std::size_t s = 0; s < on.size(); ++s) {
    ranks_[s].rank = on[s];
    store_.hold(on[s]);
  }
}

template <typename Store>
void HostExecutor<Store>::start(net::Host& host) {
  track_ = host.promises_matter();
  if (track_) frontier_.resize(ranks_.size());
  for (std::uint32_t slot = 0; slot < ranks_.size(); ++slot)
    store_.initially_ready(ranks_[slot].rank, [&](LocalOp op) { became_ready(slot, op); });
  drain(host);
}

// Ready ops are handled here, not from inside the callbacks that made them ready, so that long
// chains of ops starting at the same instant do not recurse.
template <typename Store>
void HostExecutor<Store>::drain(net::Host& host) {
  if (draining_) return;
  draining_ = true;
  for (std::size_t k = 0; k < ready_.size(); ++k) run_ready(host, ready_[k].slot, ready_[k].op);
  ready_.clear();
  draining_ = false;
}

template <typename Store>
void HostExecutor<Store>::run_ready(net::Host& host, std::uint32_t slot, LocalOp op) {
  const OpInfo info = store_.op(ranks_[slot].rank, op);
  if (info.kind != OpKind::Recv) {
    want_cpu(host, slot, op);
    return;
  }
  // Posting a receive costs nothing; the cpu is charged when its message has arrived.
  const std::uint32_t tag = store_.tag(ranks_[slot].rank, op);
  start_op(host, slot, op);
  track(slot, op, OpFrontier::Stage::Waiting);
  if (auto m = ranks_[slot].match.post(info.peer, tag, op)) matched(host, slot, op, *m);
}

template <typename Store>
void HostExecutor<Store>::want_cpu(net::Host& host, std::uint32_t slot, LocalOp op) {
  if (ranks_[slot].cpus.take(store_.op(ranks_[slot].rank, op).cpu, op)) use_cpu(host, slot, op);
}

template <typename Store>
void HostExecutor<Store>::use_cpu(net::Host& host, std::uint32_t slot, LocalOp op) {
  const OpInfo info = store_.op(ranks_[slot].rank, op);
  std::int64_t busy_ps = 0;
  switch (info.kind) {
    case OpKind::Calc:
      busy_ps = static_cast<std::int64_t>(info.size) * 1000;
      if (params_.compute)
        busy_ps = (params_.compute->calc_end(ranks_[slot].rank, ranks_[slot].calcs++, host.time(), SimTime::ps(busy_ps)) -
                   host.time())
                      .picoseconds();
      start_op(host, slot, op);
      break;
    case OpKind::Send:
      busy_ps = host_overhead_ps(params_, info.size);
      start_op(host, slot, op);
      break;
    case OpKind::Recv: busy_ps = host_overhead_ps(params_, ranks_[slot].recv_bytes.at(op)); break;
  }
  track(slot, op, OpFrontier::Stage::Running, host.time().picoseconds() + busy_ps);
  set_timer(host, busy_ps, HostTimer{HostTimer::Kind::Cpu, slot, op});
}

template <typename Store>
void HostExecutor<Store>::on_timer(net::Host& host, std::uint64_t timer) {
  const HostTimer t = timers_.take(timer);
  if (t.kind != HostTimer::Kind::Cpu) return scale_up_timer(host, t);
  RankRuntime& rt = ranks_[t.slot];
  const OpInfo info = store_.op(rt.rank, t.op);
  switch (info.kind) {
    case OpKind::Calc:
    case OpKind::Recv: finish_op(host, t.slot, t.op); break;
    case OpKind::Send: transmit(host, t.slot, t.op); break;
  }
  if (const std::optional<LocalOp> next = rt.cpus.pass(info.cpu)) use_cpu(host, t.slot, *next);
  drain(host);
}

template <typename Store>
void HostExecutor<Store>::start_op(net::Host& host, std::uint32_t slot, LocalOp op) {
  store_.start(ranks_[slot].rank, op, static_cast<std::uint64_t>(host.time().picoseconds()),
               [&](LocalOp d) { became_ready(slot, d); });
}

template <typename Store>
void HostExecutor<Store>::finish_op(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  const std::int64_t now = host.time().picoseconds();
  if (track_) frontier_[slot].remove(op);
  rt.finish_ps = std::max(rt.finish_ps, now);
  ++rt.ops_done;
  const OpInfo info = store_.op(rt.rank, op);  // finishing may retire the op
  if (info.kind == OpKind::Send) {
    ++rt.messages;
    rt.bytes += info.size;
  } else if (info.kind == OpKind::Recv) {
    rt.recv_bytes.erase(op);
  }
  store_.finish(rt.rank, op, static_cast<std::uint64_t>(now), [&](LocalOp d) { became_ready(slot, d); });
}

template <typename Store>
void HostExecutor<Store>::transmit(net::Host& host, std::uint32_t slot, LocalOp op) {
  RankRuntime& rt = ranks_[slot];
  const OpInfo info = store_.op(rt.rank, op);
  const std::uint32_t tag = store_.tag(rt.rank, op);
  const goal::RankId dst = info.peer;
  const std::uint32_t dst_host = placement_.host_of[dst];
  const std::uint32_t dst_slot = placement_.slot_of(dst);
  if (dst_host == host_) {
    // Ranks on one host exchange through memory: the message is there at once.
    finish_op(host, slot, op);
    arrive(host, dst_slot, Arrival{rt.rank, Kind::Eager, tag, info.size, 0, 0});
    return;
  }
  track(slot, op, OpFrontier::Stage::Waiting);
  const net::QueuePair qp = message_queue_pair(slot, dst, tag, info.nic);
  if (info.size <= params_.eager_limit_bytes) {
    const net::FlowId flow = host.start_flow(dst_host, info.size, 0, header(Kind::Eager, tag, slot, dst_slot), info.nic, qp);
    sending_.set(flow, OpRef{slot, op});
  } else {
    const net::FlowId request =
        host.start_flow(dst_host, params_.control_bytes, 0, header(Kind::Request, tag, slot, dst_slot), info.nic, qp);
    requests_.set(request, OpRef{slot, op});
  }
}

template <typename Store>
void HostExecutor<Store>::arrive(net::Host& host, std::uint32_t slot, const Arrival& a) {
  if (auto recv = ranks_[slot].match.arrive(a.sender, a.tag, a)) matched(host, slot, *recv, a);
}

template <typename Store>
void HostExecutor<Store>::matched(net::Host& host, std::uint32_t slot, LocalOp recv, const Arrival& a) {
  RankRuntime& rt = ranks_[slot];
  const OpInfo info = store_.op(rt.rank, recv);
  if (a.kind == Kind::Eager) {
    rt.recv_bytes.set(recv, a.bytes);
    want_cpu(host, slot, recv);
    return;
  }
  // A request: its size does not travel with it; the receive's own stands for it until the
  // data brings the real one (they are equal in every schedule the lowering makes).
  rt.recv_bytes.set(recv, info.size);
  awaiting_data_.set(request_key(a.src_host, a.flow), OpRef{slot, recv});
  host.start_flow(a.src_host, params_.control_bytes, 0,
                  header(Kind::ClearToSend, a.flow, slot, placement_.slot_of(a.sender)), info.nic,
                  message_queue_pair(slot, a.sender, a.tag, info.nic));
}

template <typename Store>
void HostExecutor<Store>::on_delivered(net::Host& host, const net::FlowEnd& end) {
  const net::MessageHeader& h = end.header;
  if (record_flows_ && (h.kind == Kind::Eager || h.kind == Kind::Data))
    flow_arrivals_.push_back({end.src, end.flow, end.end.picoseconds()});
  switch (h.kind) {
    case Kind::Eager:
    case Kind::Request: {
      const goal::RankId sender = placement_.ranks_on[end.src][h.sender_slot];
      arrive(host, h.receiver_slot, Arrival{sender, h.kind, h.tag, end.bytes, end.src, end.flow});
      break;
    }
    case Kind::ClearToSend: {
      // We are the sender: the header names our request.
      const OpRef send = requests_.take(h.tag);
      send_data(host, send.slot, send.op, end.src, h.tag);
      break;
    }
    case Kind::Data: {
      const OpRef recv = awaiting_data_.take(request_key(end.src, h.tag));
      RankRuntime& rt = ranks_[recv.slot];
      if (scale_up_.reaches(end.src)) {
        // A notice: the data comes in over our port from now, after what it is taking in.
        const std::int64_t now = host.time().picoseconds();
        const std::int64_t in = scale_up_.arrive(now, rt.recv_bytes.at(recv.op));
        set_timer(host, in - now, HostTimer{HostTimer::Kind::DataIn, recv.slot, recv.op});
        break;
      }
      rt.recv_bytes.set(recv.op, end.bytes);
      want_cpu(host, recv.slot, recv.op);
      break;
    }
  }
  drain(host);
}

template <typename Store>
void HostExecutor<Store>::send_data(net::Host& host, std::uint32_t slot, LocalOp op, std::uint32_t dst_host,
                                    net::FlowId request) {
  const OpInfo info = store_.op(ranks_[slot].rank, op);
  const std::uint32_t tag = store_.tag(ranks_[slot].rank, op);
  if (!scale_up_.reaches(dst_host)) {
    const net::FlowId flow = host.start_flow(dst_host, info.size, 0,
                                             header(Kind::Data, request, slot, placement_.slot_of(info.peer)), info.nic,
                                             message_queue_pair(slot, info.peer, tag, info.nic));
    sending_.set(flow, OpRef{slot, op});
    return;
  }
  // The notice goes as the data starts leaving.
  const std::int64_t now = host.time().picoseconds();
  const ScaleUpPort::Departure d = scale_up_.depart(now, info.size);
  // Its notice is still to be sent: what a promise must count.
  track(slot, op, OpFrontier::Stage::Running, d.start_ps);
  set_timer(host, d.done_ps - now, HostTimer{HostTimer::Kind::SendDone, slot, op});
  const HostTimer notice{HostTimer::Kind::NoticeStart, slot, op, request};
  if (d.start_ps == now) {
    scale_up_timer(host, notice);
  } else {
    set_timer(host, d.start_ps - now, notice);
  }
}

template <typename Store>
void HostExecutor<Store>::scale_up_timer(net::Host& host, const HostTimer& t) {
  switch (t.kind) {
    case HostTimer::Kind::NoticeStart: {
      track(t.slot, t.op, OpFrontier::Stage::Waiting);
      const OpInfo info = store_.op(ranks_[t.slot].rank, t.op);
      host.start_flow(placement_.host_of[info.peer], params_.control_bytes, 0,
                      header(Kind::Data, t.request, t.slot, placement_.slot_of(info.peer)), info.nic,
                      message_queue_pair(t.slot, info.peer, store_.tag(ranks_[t.slot].rank, t.op), info.nic));
      return;
    }
    case HostTimer::Kind::SendDone: finish_op(host, t.slot, t.op); break;
    case HostTimer::Kind::DataIn: want_cpu(host, t.slot, t.op); break;
    case HostTimer::Kind::Cpu: return;
  }
  drain(host);
}

template <typename Store>
void HostExecutor<Store>::on_acked(net::Host& host, const net::FlowEnd& end) {
  const Kind kind = end.header.kind;
  if (kind != Kind::Eager && kind != Kind::Data) return;
  if (kind == Kind::Data && scale_up_.reaches(end.dst)) return;  // a notice: SendDone finishes the send
  if (record_flows_) flow_starts_.push_back({end.src, end.dst, end.flow, end.bytes, end.start.picoseconds()});
  const OpRef send = sending_.take(end.flow);
  finish_op(host, send.slot, send.op);
  drain(host);
}

template <typename Store>
bool HostExecutor<Store>::beyond(const net::Host& host, goal::RankId peer) const {
  const std::uint32_t peer_host = placement_.host_of[peer];
  return peer_host != host_ && !host.sealed_toward(peer_host);
}

template <typename Store>
bool HostExecutor<Store>::open(const net::Host& host, const OpInfo& info) const {
  if (info.kind == OpKind::Calc) return false;
  return (info.kind == OpKind::Recv && info.peer == goal::kAnySource) || beyond(host, info.peer);
}

template <typename Store>
SimTime HostExecutor<Store>::earliest_open_send(const net::Host& host, SimTime floor, SimTime cap) const {
  if (!track_) return floor;
  using Stage = OpFrontier::Stage;
  const std::int64_t lo = floor.picoseconds(), limit = cap.picoseconds();
  // A calc lasts at least its duration in the schedule, unless compute may vary (noise can
  // shorten it).
  const auto least_ps = [&](const OpInfo& info) -> std::int64_t {
    return info.kind == OpKind::Calc && !params_.compute ? static_cast<std::int64_t>(info.size) * 1000 : 0;
  };
  // Never visits more than this many ops per rank: the earliest time not yet settled is a
  // bound too.
  constexpr std::size_t kMostVisits = 1u << 15;
  std::int64_t best = limit;
  using Item = std::pair<std::int64_t, LocalOp>;  // when it may start at the earliest, op
  std::vector<Item> heap;
  const auto push = [&](std::int64_t t, LocalOp op) {
    if (t >= best) return;
    heap.emplace_back(t, op);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  const auto open_peer = [&](goal::RankId peer) { return beyond(host, peer); };
  for (std::uint32_t slot = 0; slot < ranks_.size() && best > lo; ++slot) {
    const goal::RankId rank = ranks_[slot].rank;
    heap.clear();
    const auto release = [&](LocalOp op, std::int64_t done, std::int64_t started, bool started_already) {
      store_.for_each_dependent(
          rank, op, [&](LocalOp d) { push(done, d); },
          [&](LocalOp d) {
            if (!started_already) push(started, d);
          });
    };
    for (const OpFrontier::Entry& e : frontier_[slot].entries()) {
      const OpInfo info = store_.op(rank, e.op);
      const bool talks_out = open(host, info);
      if (store_.may_gain_open_dependents(rank, e.op, open_peer) || (talks_out && e.stage == Stage::Ready)) {
        best = std::min(best, lo);
        break;
      }
      if (talks_out && e.stage == Stage::Running && info.kind == OpKind::Send) best = std::min(best, std::max(lo, e.done_ps));
      switch (e.stage) {
        case Stage::Ready: release(e.op, lo + least_ps(info), lo, false); break;
        case Stage::Running: release(e.op, std::max(lo, e.done_ps), lo, true); break;
        case Stage::Waiting: release(e.op, lo, lo, true); break;
      }
    }
    common::FlatMap<bool> seen(64);
    std::size_t visits = 0;
    while (!heap.empty() && heap.front().first < best) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      const auto [t, op] = heap.back();
      heap.pop_back();
      if (!seen.try_emplace(op, true).second) continue;
      const OpInfo info = store_.op(rank, op);
      if (open(host, info) || store_.may_gain_open_dependents(rank, op, open_peer) || ++visits > kMostVisits) {
        best = std::min(best, t);
        break;
      }
      release(op, t + least_ps(info), t, false);
    }
  }
  return SimTime::ps(std::max(best, lo));
}

// --- after the run ------------------------------------------------------------------------

template <typename Store>
std::uint64_t HostExecutor<Store>::ops_done() const {
  std::uint64_t n = 0;
  for (const RankRuntime& rt : ranks_) n += rt.ops_done;
  return n;
}

template <typename Store>
void HostExecutor<Store>::summarise(std::vector<RankSummary>& out) const {
  for (const RankRuntime& rt : ranks_)
    out.push_back({rt.rank, store_.complete(rt.rank) ? 1u : 0u, rt.finish_ps, rt.ops_done, rt.messages, rt.bytes});
}

template <typename Store>
std::string HostExecutor<Store>::why_unfinished(const RankRuntime& rt, LocalOp i, const goal::Op& op,
                                                OpState state) const {
  switch (state) {
    case OpState::Waiting: return store_.waiting_for(rt.rank, i);
    case OpState::Ready: return "waits for cpu " + std::to_string(op.cpu);
    case OpState::Started:
      if (op.kind == OpKind::Recv)
        return rt.recv_bytes.contains(i) ? "matched; waits for the data or the cpu" : "posted; no matching message arrived";
      if (op.kind == OpKind::Send)
        return op.size > params_.eager_limit_bytes ? "waits for clear-to-send or for its data to be acknowledged"
                                                   : "waits for its data to be acknowledged";
      return "running";
    case OpState::Finished: break;
  }
  return "finished";
}

template <typename Store>
void HostExecutor<Store>::report_leftovers(std::vector<std::string>& blocked, std::vector<std::string>& unmatched) {
  for (const RankRuntime& rt : ranks_) {
    store_.for_each_unfinished(rt.rank, [&](LocalOp i, const goal::Op& op, OpState state) {
      blocked.push_back("rank " + std::to_string(rt.rank) + " " + describe_op(i, op) + ": " +
                        why_unfinished(rt, i, op, state));
    });
    if (const std::uint64_t never = store_.never_reached(rt.rank))
      blocked.push_back("rank " + std::to_string(rt.rank) + ": " + std::to_string(never) +
                        " more op(s) never reached (their prerequisites never finished)");
    // By source and tag (each key's messages in arrival order), not in the hash table's order.
    std::vector<std::tuple<std::uint32_t, std::uint32_t, const Arrival*>> left;
    rt.match.for_each_unexpected(
        [&](std::uint32_t source, std::uint32_t tag, const Arrival& a) { left.emplace_back(source, tag, &a); });
    std::stable_sort(left.begin(), left.end(), [](const auto& x, const auto& y) {
      return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y));
    });
    for (const auto& [source, tag, a] : left)
      unmatched.push_back("rank " + std::to_string(rt.rank) + ": message from rank " + std::to_string(source) +
                          " tag " + std::to_string(tag) + " (" +
                          (a->kind == Kind::Eager ? std::to_string(a->bytes) + " bytes, eager" : std::string("rendezvous")) +
                          ") was never received");
  }
}

template class HostExecutor<ScheduleOps>;
template class HostExecutor<StreamedOps>;

}  // namespace collsim::exec
