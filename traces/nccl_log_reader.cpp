// NCCL INFO logs -> replay program: communicators from init lines, calls matched across ranks.

#include "collsim/traces/nccl_log_reader.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>
#include <unordered_map>

#include "collsim/logging/logging.hpp"

#include "nccl_log_line.hpp"

namespace collsim::traces {
namespace {

struct InitRecord {
  NcclInitLine init;
  TraceOrigin origin;
  std::string device;   // host:pid [cudaDev]
  std::string host, pid, dev;
};

struct CallRecord {
  NcclCallLine call;
  TraceOrigin origin;
  std::string process;  // host:pid
  std::string dev;      // cudaDev of the line's prefix
  std::optional<std::int64_t> time_ns;
  std::uint32_t init = kNoIndex;
};

struct Communicator {
  std::string comm_id;
  std::uint32_t nranks = 0;
  std::vector<std::uint32_t> init_of_rank;   // comm rank -> init record
  std::vector<goal::RankId> global;          // comm rank -> global rank
};

std::optional<collectives::Collective> collective_of(const std::string& op) {
  if (op == "AllReduce") return collectives::Collective::Allreduce;
  if (op == "AllGather") return collectives::Collective::Allgather;
  if (op == "ReduceScatter") return collectives::Collective::ReduceScatter;
  if (op == "Broadcast") return collectives::Collective::Broadcast;
  if (op == "Reduce") return collectives::Collective::Reduce;
  if (op == "AlltoAll") return collectives::Collective::AllToAll;
  return std::nullopt;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

class LogReader {
 public:
  explicit LogReader(const NcclLogOptions& options) : options_(options) {}

  void read(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw InputError::in_file(file, "cannot open the log");
    std::string text;
    std::uint64_t line = 0;
    while (std::getline(in, text)) {
      ++line;
      const std::optional<NcclLine> l = parse_nccl_line(text, file, line);
      if (!l) continue;
      const std::string process = l->host + ":" + l->pid;
      if (l->init) {
        latest_[process + " " + l->init->comm] = static_cast<std::uint32_t>(inits_.size());
        inits_.push_back({*l->init, {file, line, 0, "comm " + l->init->comm + " init"},
                          process + " [" + l->device + "]", l->host, l->pid, l->device});
      } else {
        const auto it = latest_.find(process + " " + l->call->comm);
        calls_.push_back({*l->call, {file, line, 0, l->call->op + " opCount " + hex(l->call->op_count)}, process, l->device,
                          l->time_ns, it == latest_.end() ? kNoIndex : it->second});
      }
    }
  }

  ReplayProgram finish(std::size_t files) {
    resolve_calls();
    build_communicators();
    assign_global_ranks();
    ReplayProgram p;
    p.num_ranks = static_cast<std::uint32_t>(device_rank_.size());
    p.ranks.resize(p.num_ranks);
    match_collectives(p);
    match_transfers(p);
    build_tasks(p);
    p.description = "NCCL log, " + std::to_string(p.num_ranks) + " rank(s), " + std::to_string(comms_.size()) +
                    " communicator(s), " + std::to_string(calls_.size()) + " call(s) from " + std::to_string(files) + " file(s)";
    return p;
  }

 private:
  // With NCCL_DEBUG_SUBSYS=COLL alone there are no init lines. One communicator per device,
  // each as large as the job, can only be the job's world: its ranks are taken in
  // (host, pid, cudaDev) order, as they are when no communicator spans every device.
  void infer_world_communicator() {
    std::map<std::string, const CallRecord*> comm_of_device;  // "host:pid [dev]" -> a call on its comm
    for (const CallRecord& c : calls_) {
      const auto [it, created] = comm_of_device.emplace(c.process + " [" + c.dev + "]", &c);
      if (!created && it->second->call.comm != c.call.comm) return;
    }
    for (const auto& [device, c] : comm_of_device)
      if (c->call.nranks != comm_of_device.size()) return;
    std::vector<const CallRecord*> devices;
    for (const auto& [device, c] : comm_of_device) devices.push_back(c);
    auto key = [](const CallRecord* c) {
      const std::size_t colon = c->process.rfind(':');
      const std::string pid = c->process.substr(colon + 1);
      return std::make_tuple(c->process.substr(0, colon), pid.size(), pid, c->dev.size(), c->dev);
    };
    std::sort(devices.begin(), devices.end(), [&](const CallRecord* a, const CallRecord* b) { return key(a) < key(b); });
    for (std::uint32_t r = 0; r < devices.size(); ++r) {
      const CallRecord& c = *devices[r];
      const std::size_t colon = c.process.rfind(':');
      latest_[c.process + " " + c.call.comm] = static_cast<std::uint32_t>(inits_.size());
      inits_.push_back({{c.call.comm, r, static_cast<std::uint32_t>(devices.size()), "(inferred world)"},
                        c.origin,
                        c.process + " [" + c.dev + "]",
                        c.process.substr(0, colon),
                        c.process.substr(colon + 1),
                        c.dev});
    }
  }

  void resolve_calls() {
    if (calls_.empty()) throw InputError::in_file(inits_.empty() ? "(logs)" : inits_.front().origin.file,
                                                  "no NCCL calls found (log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL)");
    if (inits_.empty()) infer_world_communicator();
    for (CallRecord& c : calls_) {
      if (c.init != kNoIndex) continue;
      const auto it = latest_.find(c.process + " " + c.call.comm);
      if (it == latest_.end())
        throw c.origin.error("communicator " + c.call.comm + " of process " + c.process +
                             " has no 'Init COMPLETE' line in the logs (log with NCCL_DEBUG_SUBSYS=INIT,COLL)");
      c.init = it->second;
    }
  }

  void build_communicators() {
    std::map<std::string, std::uint32_t> by_id;
    init_comm_.resize(inits_.size());
    for (std::uint32_t i = 0; i < inits_.size(); ++i) {
      const InitRecord& r = inits_[i];
      const auto [it, created] = by_id.emplace(r.init.comm_id, static_cast<std::uint32_t>(comms_.size()));
      if (created) comms_.push_back({r.init.comm_id, r.init.nranks, std::vector<std::uint32_t>(r.init.nranks, kNoIndex), {}});
      Communicator& c = comms_[it->second];
      if (r.init.nranks != c.nranks)
        throw r.origin.error("nranks " + std::to_string(r.init.nranks) + " differs from the " + std::to_string(c.nranks) +
                             " of another init line of commId " + c.comm_id);
      if (c.init_of_rank[r.init.rank] != kNoIndex)
        throw r.origin.error("rank " + std::to_string(r.init.rank) + " of commId " + c.comm_id + " is also initialised at " +
                             inits_[c.init_of_rank[r.init.rank]].origin.text());
      c.init_of_rank[r.init.rank] = i;
      init_comm_[i] = it->second;
    }
    for (const Communicator& c : comms_)
      for (std::uint32_t r = 0; r < c.nranks; ++r)
        if (c.init_of_rank[r] == kNoIndex) {
          const std::uint32_t some = *std::find_if(c.init_of_rank.begin(), c.init_of_rank.end(),
                                                   [](std::uint32_t v) { return v != kNoIndex; });
          throw inits_[some].origin.error("commId " + c.comm_id + " has " + std::to_string(c.nranks) + " ranks but rank " +
                                          std::to_string(r) + " has no init line in the logs (are all ranks' logs given?)");
        }
  }

  // The ranks of a communicator over every device, else devices in (host, pid, cudaDev) order.
  void assign_global_ranks() {
    std::vector<std::uint32_t> first_init;  // one init record per device
    std::map<std::string, std::uint32_t> seen;
    for (std::uint32_t i = 0; i < inits_.size(); ++i)
      if (seen.emplace(inits_[i].device, i).second) first_init.push_back(i);
    for (const Communicator& c : comms_) {
      if (c.nranks != first_init.size()) continue;
      std::map<std::string, goal::RankId> ranks;
      for (std::uint32_t r = 0; r < c.nranks; ++r) ranks.emplace(inits_[c.init_of_rank[r]].device, r);
      if (ranks.size() != first_init.size()) continue;
      device_rank_ = std::move(ranks);
      break;
    }
    if (device_rank_.empty()) {
      auto key = [&](std::uint32_t i) {
        const InitRecord& r = inits_[i];
        return std::make_tuple(r.host, r.pid.size(), r.pid, r.dev.size(), r.dev);
      };
      std::sort(first_init.begin(), first_init.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
      for (std::uint32_t k = 0; k < first_init.size(); ++k) device_rank_.emplace(inits_[first_init[k]].device, k);
    }
    for (Communicator& c : comms_)
      for (std::uint32_t r = 0; r < c.nranks; ++r) c.global.push_back(device_rank_.at(inits_[c.init_of_rank[r]].device));
  }

  const Communicator& comm_of(const CallRecord& c) const { return comms_[init_comm_[c.init]]; }
  std::uint32_t comm_rank(const CallRecord& c) const { return inits_[c.init].init.rank; }
  goal::RankId global_rank(const CallRecord& c) const { return comm_of(c).global[comm_rank(c)]; }

  std::uint64_t bytes_of(const CallRecord& c, std::uint64_t factor) const {
    const std::uint64_t elt = *nccl_datatype_bytes(c.call.datatype);
    if (c.call.count > goal::kMaxSize / elt / factor) throw c.origin.error("count x datatype size is too large");
    return c.call.count * elt * factor;
  }

  void match_collectives(ReplayProgram& p) {
    // (communicator, opCount, k-th call with that opCount on the member) -> call per comm rank
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>, std::uint32_t> slot_of;
    std::map<std::tuple<std::uint32_t, std::uint64_t>, std::uint32_t> occurrence;  // (init, opCount)
    std::vector<std::vector<std::uint32_t>> members;  // per slot: call per comm rank
    call_collective_.assign(calls_.size(), kNoIndex);
    for (std::uint32_t i = 0; i < calls_.size(); ++i) {
      const CallRecord& c = calls_[i];
      if (!collective_of(c.call.op)) continue;
      const std::uint32_t k = occurrence[{c.init, c.call.op_count}]++;
      const auto [it, created] = slot_of.emplace(std::make_tuple(init_comm_[c.init], c.call.op_count, k),
                                                 static_cast<std::uint32_t>(members.size()));
      if (created) members.emplace_back(comm_of(c).nranks, kNoIndex);
      members[it->second][comm_rank(c)] = i;
      call_collective_[i] = it->second;
    }
    // Slots are numbered in order of first appearance: the program's collectives follow it.
    for (std::uint32_t s = 0; s < members.size(); ++s) {
      const std::vector<std::uint32_t>& m = members[s];
      const std::uint32_t any = *std::find_if(m.begin(), m.end(), [](std::uint32_t v) { return v != kNoIndex; });
      const CallRecord& first = calls_[any];
      const Communicator& comm = comm_of(first);
      std::string missing;
      for (std::uint32_t r = 0; r < m.size(); ++r)
        if (m[r] == kNoIndex) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      if (!missing.empty())
        throw first.origin.error("unmatched opCount: communicator commId " + comm.comm_id + " has " +
                                 std::to_string(comm.nranks) + " ranks, but comm rank(s) " + missing +
                                 " never logged this call (are all ranks' logs given, and complete?)");
      for (std::uint32_t idx : m) {
        const NcclCallLine& a = calls_[idx].call;
        if (a.op != first.call.op || a.count != first.call.count || a.datatype != first.call.datatype || a.root != first.call.root)
          throw calls_[idx].origin.error("is " + a.op + " count " + std::to_string(a.count) + " datatype " +
                                         std::to_string(a.datatype) + " root " + std::to_string(a.root) + " but the same call on " +
                                         first.origin.text() + " is " + first.call.op + " count " + std::to_string(first.call.count) +
                                         " datatype " + std::to_string(first.call.datatype) + " root " + std::to_string(first.call.root));
      }
      const collectives::Collective kind = *collective_of(first.call.op);
      const bool per_rank_count = kind == collectives::Collective::Allgather || kind == collectives::Collective::ReduceScatter ||
                                  kind == collectives::Collective::AllToAll;
      CollectiveCall call;
      call.collective = kind;
      call.bytes = bytes_of(first, per_rank_count ? comm.nranks : 1);
      call.root = first.call.root;
      if (collectives::has_root(kind) && call.root >= comm.nranks)
        throw first.origin.error("root " + std::to_string(call.root) + " is not a rank of the communicator");
      call.group = comm.global;
      call.origin = calls_[m[0]].origin;
      p.collectives.push_back(std::move(call));
    }
  }

  void match_transfers(ReplayProgram& p) {
    // (communicator, sender comm rank, receiver comm rank) -> sends / recvs in order
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>>
        pairs;
    call_transfer_.assign(calls_.size(), kNoIndex);
    for (std::uint32_t i = 0; i < calls_.size(); ++i) {
      const CallRecord& c = calls_[i];
      const bool send = c.call.op == "Send";
      if (!send && c.call.op != "Recv") continue;
      if (c.call.root >= comm_of(c).nranks)
        throw c.origin.error("peer " + std::to_string(c.call.root) + " is not a rank of the communicator (nranks " +
                             std::to_string(comm_of(c).nranks) + ")");
      const std::uint32_t me = comm_rank(c);
      auto& lists = pairs[{init_comm_[c.init], send ? me : c.call.root, send ? c.call.root : me}];
      (send ? lists.first : lists.second).push_back(i);
    }
    for (const auto& [key, lists] : pairs) {
      const auto& [sends, recvs] = lists;
      for (std::size_t k = 0; k < std::max(sends.size(), recvs.size()); ++k) {
        if (k >= sends.size() || k >= recvs.size()) {
          const CallRecord& c = calls_[k < sends.size() ? sends[k] : recvs[k]];
          throw c.origin.error(std::string("has no matching ") + (k < sends.size() ? "Recv" : "Send") + " on comm rank " +
                               std::to_string(c.call.root) + " (message #" + std::to_string(k + 1) + " between these ranks)");
        }
        const CallRecord& s = calls_[sends[k]];
        const CallRecord& r = calls_[recvs[k]];
        if (bytes_of(s, 1) != bytes_of(r, 1))
          throw r.origin.error("receives " + std::to_string(bytes_of(r, 1)) + " bytes but the matching Send at " +
                               s.origin.text() + " sends " + std::to_string(bytes_of(s, 1)));
        call_transfer_[sends[k]] = call_transfer_[recvs[k]] = static_cast<std::uint32_t>(p.transfers.size());
        p.transfers.push_back({global_rank(s), global_rank(r), bytes_of(s, 1), s.origin});
      }
    }
  }

  void build_tasks(ReplayProgram& p) {
    std::optional<std::int64_t> t0;
    if (options_.timestamps)
      for (const CallRecord& c : calls_)
        if (c.time_ns && (!t0 || *c.time_ns < *t0)) t0 = c.time_ns;
    struct HostClock {
      std::optional<std::int64_t> last;
      std::uint32_t task = kNoIndex;
    };
    std::vector<HostClock> host(p.num_ranks);
    struct Stream {
      std::tuple<std::uint32_t, std::uint64_t> group{kNoIndex, 0};  // (init, opCount) of the open group
      std::vector<std::uint32_t> before;  // tasks of the previous group
      std::vector<std::uint32_t> open;    // tasks of the open group
    };
    std::map<std::pair<goal::RankId, std::string>, Stream> streams;
    for (std::uint32_t i = 0; i < calls_.size(); ++i) {
      const CallRecord& c = calls_[i];
      const goal::RankId r = global_rank(c);
      std::vector<ReplayTask>& tasks = p.ranks[r];
      ReplayTask task;
      // The host issued this call at its timestamp: a compute gap since the previous call
      // (since the job's first call for the first) holds it back at least that long.
      if (t0 && c.time_ns) {
        HostClock& h = host[r];
        ReplayTask gap;
        gap.ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *c.time_ns - h.last.value_or(*t0)));
        if (h.task != kNoIndex) gap.after.push_back(h.task);
        h.last = c.time_ns;
        h.task = static_cast<std::uint32_t>(tasks.size());
        tasks.push_back(std::move(gap));
        task.after.push_back(h.task);
      }
      // Calls on one stream run in order; calls of one group (one opCount on one
      // communicator, issued back to back) run together.
      Stream& s = streams[{r, c.call.stream}];
      const auto group = std::make_tuple(c.init, c.call.op_count);
      if (group != s.group) {
        s.before = std::move(s.open);
        s.open.clear();
        s.group = group;
      }
      for (std::uint32_t b : s.before) task.after.push_back(b);  // (insert() trips GCC 12's -Wstringop-overflow)
      if (call_collective_[i] != kNoIndex) {
        task.kind = ReplayTask::Kind::Collective;
        task.collective = call_collective_[i];
      } else {
        const bool send = c.call.op == "Send";
        task.kind = send ? ReplayTask::Kind::Send : ReplayTask::Kind::Recv;
        const Communicator& comm = comm_of(c);
        task.peer = comm.global[c.call.root];
        task.bytes = bytes_of(c, 1);
        task.tag = init_comm_[c.init];  // one tag per communicator: its messages match in order
        task.transfer = call_transfer_[i];
        p.max_tag = std::max(p.max_tag, task.tag);
      }
      s.open.push_back(static_cast<std::uint32_t>(tasks.size()));
      tasks.push_back(std::move(task));
    }
  }

  const NcclLogOptions& options_;
  std::vector<InitRecord> inits_;
  std::vector<CallRecord> calls_;
  std::unordered_map<std::string, std::uint32_t> latest_;  // "host:pid comm" -> latest init
  std::vector<std::uint32_t> init_comm_;                   // init record -> communicator
  std::vector<Communicator> comms_;
  std::map<std::string, goal::RankId> device_rank_;
  std::vector<std::uint32_t> call_collective_;
  std::vector<std::uint32_t> call_transfer_;
};

}  // namespace

ReplayProgram read_nccl_logs(const std::vector<std::string>& files, const NcclLogOptions& options) {
  LogReader reader(options);
  for (const std::string& f : files) reader.read(f);
  ReplayProgram program = reader.finish(files.size());
  logging::logger("traces").debug("read {} NCCL log file(s): {} rank(s), {} collective call(s), {} transfer(s)",
                                  files.size(), program.num_ranks, program.collectives.size(), program.transfers.size());
  return program;
}

}  // namespace collsim::traces
