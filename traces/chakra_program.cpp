// All ranks' Chakra nodes as one replay program: nodes in dependency order, skipped nodes
// (metadata, host-side collectives) bridged over, collectives matched across their groups.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <unordered_map>

#include "collsim/common/input_error.hpp"
#include "collsim/traces/chakra_reader.hpp"

namespace collsim::traces {
namespace {

TraceOrigin node_origin(const ChakraRankTrace& t, const ChakraNode& n) {
  return {t.file, 0, n.offset, "node id " + std::to_string(n.id) + (n.name.empty() ? "" : " '" + n.name + "'")};
}

[[noreturn]] void fail(const ChakraRankTrace& t, const ChakraNode& n, const std::string& detail) {
  throw node_origin(t, n).error(detail);
}

// Chakra's CollectiveCommType.
std::optional<collectives::Collective> collective_of(std::uint32_t comm_type) {
  switch (comm_type) {
    case 0: return collectives::Collective::Allreduce;
    case 1: return collectives::Collective::Reduce;
    case 2: return collectives::Collective::Allgather;
    case 5: return collectives::Collective::Broadcast;
    case 6: return collectives::Collective::AllToAll;
    case 7:
    case 8: return collectives::Collective::ReduceScatter;  // REDUCE_SCATTER, REDUCE_SCATTER_BLOCK
    case 9: return collectives::Collective::Barrier;
    default: return std::nullopt;  // 3 GATHER, 4 SCATTER: no algorithm lowers them yet
  }
}

// Node indices in an order where every node follows its dependencies; among ready nodes the
// one earliest in the file first, so the order is the file's wherever the file allows.
std::vector<std::uint32_t> dependency_order(const ChakraRankTrace& t, const std::vector<std::vector<std::uint32_t>>& deps) {
  const std::size_t n = t.nodes.size();
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::vector<std::uint32_t>> dependents(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    waiting[i] = static_cast<std::uint32_t>(deps[i].size());
    for (std::uint32_t d : deps[i]) dependents[d].push_back(i);
  }
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<std::uint32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::uint32_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::uint32_t d : dependents[i])
      if (--waiting[d] == 0) ready.push(d);
  }
  if (order.size() != n)
    for (std::uint32_t i = 0; i < n; ++i)
      if (waiting[i] > 0) fail(t, t.nodes[i], "is part of a dependency cycle (its dependencies can never all finish)");
  return order;
}

struct GroupedCall {
  std::string group;             // the process group's key
  std::uint32_t task;            // in the rank's task list
  const ChakraNode* node;
  collectives::Collective collective;
  std::uint64_t bytes;
};

struct RankBuild {
  std::vector<ReplayTask> tasks;
  std::vector<GroupedCall> calls;
};

class ProgramBuilder {
 public:
  ProgramBuilder(const std::vector<ChakraRankTrace>& ranks, const CommGroups& groups, const ChakraOptions& options)
      : traces_(ranks), groups_(groups), options_(options) {
    all_.resize(ranks.size());
    for (std::uint32_t r = 0; r < ranks.size(); ++r) all_[r] = r;
  }

  ReplayProgram build() {
    ReplayProgram p;
    p.num_ranks = static_cast<std::uint32_t>(traces_.size());
    std::vector<RankBuild> built;
    for (std::uint32_t r = 0; r < traces_.size(); ++r) built.push_back(build_rank(r, p.max_tag));
    match_collectives(built, p);
    for (RankBuild& b : built) p.ranks.push_back(std::move(b.tasks));
    return p;
  }

 private:
  const std::vector<goal::RankId>& group_of(const ChakraRankTrace& t, const ChakraNode& n, std::string& key) const {
    const auto it = groups_.groups.find(n.pg_name);
    if (it != groups_.groups.end()) {
      key = n.pg_name;
      return it->second;
    }
    if (n.pg_name.empty() || n.pg_name == "0") {
      key = "0";
      return all_;
    }
    fail(t, n,
         "process group '" + n.pg_name + "' is not defined" +
             (groups_.file.empty() ? " (give its members with --comm-groups FILE: {\"" + n.pg_name + "\": [ranks...]})"
                                   : " in " + groups_.file));
  }

  ReplayTask compute_task(const ChakraNode& n) const {
    ReplayTask task;
    task.kind = ReplayTask::Kind::Compute;
    task.ns = n.duration_micros * 1000;  // bounded by the caller
    const ComputeModel& m = options_.compute;
    if (m.roofline && (n.has_num_ops || n.has_tensor_size)) {
      double ns = 0.0;
      if (n.has_num_ops && m.flops_per_ns > 0) ns = static_cast<double>(n.num_ops) / m.flops_per_ns;
      if (n.has_tensor_size && m.bytes_per_ns > 0) ns = std::max(ns, static_cast<double>(n.tensor_size) / m.bytes_per_ns);
      task.ns = static_cast<std::uint64_t>(std::ceil(ns));
    }
    return task;
  }

  RankBuild build_rank(std::uint32_t r, std::uint32_t& max_tag) const {
    const ChakraRankTrace& t = traces_[r];
    std::unordered_map<std::uint64_t, std::uint32_t> index_of;
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
      const auto [it, inserted] = index_of.emplace(t.nodes[i].id, i);
      if (!inserted)
        fail(t, t.nodes[i], "the id is used twice (also by the node at byte " + std::to_string(t.nodes[it->second].offset) + ")");
    }
    std::vector<std::vector<std::uint32_t>> deps(t.nodes.size());
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
      const ChakraNode& n = t.nodes[i];
      auto add = [&](std::uint64_t id, const char* kind) {
        const auto it = index_of.find(id);
        if (it == index_of.end())
          fail(t, n, std::string("depends (") + kind + ") on node id " + std::to_string(id) + ", which is not in the file");
        if (it->second == i) fail(t, n, "depends on itself");
        deps[i].push_back(it->second);
      };
      for (std::uint64_t id : n.data_deps) add(id, "data_deps");
      if (options_.ctrl_deps)
        for (std::uint64_t id : n.ctrl_deps) add(id, "ctrl_deps");
      std::sort(deps[i].begin(), deps[i].end());
      deps[i].erase(std::unique(deps[i].begin(), deps[i].end()), deps[i].end());
    }

    RankBuild b;
    // What a node stands for in the task list: its own task, or (skipped) what it depended on.
    std::vector<std::vector<std::uint32_t>> resolved(t.nodes.size());
    for (std::uint32_t i : dependency_order(t, deps)) {
      const ChakraNode& n = t.nodes[i];
      std::vector<std::uint32_t> before;
      for (std::uint32_t d : deps[i]) before.insert(before.end(), resolved[d].begin(), resolved[d].end());
      std::sort(before.begin(), before.end());
      before.erase(std::unique(before.begin(), before.end()), before.end());

      ReplayTask task;
      switch (n.type) {
        case ChakraNodeType::Invalid:
        case ChakraNodeType::Metadata:
          resolved[i] = std::move(before);
          continue;
        case ChakraNodeType::MemLoad:
        case ChakraNodeType::MemStore:
        case ChakraNodeType::Comp:
          if (n.duration_micros > goal::kMaxSize / 1000) fail(t, n, "duration_micros is too large");
          task = compute_task(n);
          break;
        case ChakraNodeType::CommSend:
        case ChakraNodeType::CommRecv: {
          const bool send = n.type == ChakraNodeType::CommSend;
          // comm_type on a send/recv means nothing (some writers put 5/6 there): not read.
          if (!n.has_comm_size) fail(t, n, "a send/recv node needs a comm_size attribute");
          if (n.comm_size > goal::kMaxSize) fail(t, n, "comm_size is too large");
          if (send ? !n.has_comm_dst : !n.has_comm_src)
            fail(t, n, std::string("a ") + (send ? "send node needs a comm_dst" : "recv node needs a comm_src") + " attribute");
          task.kind = send ? ReplayTask::Kind::Send : ReplayTask::Kind::Recv;
          task.peer = send ? n.comm_dst : n.comm_src;
          if (task.peer >= traces_.size())
            fail(t, n, "peer rank " + std::to_string(task.peer) + " is not among the " + std::to_string(traces_.size()) + " ranks");
          task.bytes = n.comm_size;
          task.tag = n.comm_tag;
          max_tag = std::max(max_tag, task.tag);
          break;
        }
        case ChakraNodeType::CommColl: {
          // PyTorch-derived traces carry the host-side call (is_cpu_op) next to the GPU kernel
          // node that has the type and size: the kernel node stands for the collective.
          if (n.is_cpu_op) {
            resolved[i] = std::move(before);
            continue;
          }
          if (!n.has_comm_type) fail(t, n, "a collective node needs a comm_type attribute");
          const auto c = collective_of(n.comm_type);
          if (!c)
            fail(t, n, "comm_type " + std::to_string(n.comm_type) +
                           (n.comm_type == 3 ? " (GATHER)" : n.comm_type == 4 ? " (SCATTER)" : "") + " cannot be replayed" +
                           " (supported: 0 ALL_REDUCE, 1 REDUCE, 2 ALL_GATHER, 5 BROADCAST, 6 ALL_TO_ALL, 7/8 REDUCE_SCATTER, 9 BARRIER)");
          if (!n.has_comm_size && *c != collectives::Collective::Barrier) fail(t, n, "a collective node needs a comm_size attribute");
          std::string key;
          const std::vector<goal::RankId>& group = group_of(t, n, key);
          if (std::find(group.begin(), group.end(), r) == group.end())
            fail(t, n, "rank " + std::to_string(r) + " is not a member of its process group '" + key + "'");
          if (n.comm_size > goal::kMaxSize / group.size()) fail(t, n, "comm_size is too large");
          task.kind = ReplayTask::Kind::Collective;
          // comm_size is the per-rank input; an all-gather's size (as nccl-tests counts it) is
          // its output, comm_size x ranks.
          const std::uint64_t bytes = *c == collectives::Collective::Allgather ? n.comm_size * group.size() : n.comm_size;
          b.calls.push_back({key, static_cast<std::uint32_t>(b.tasks.size()), &n, *c, bytes});
          break;
        }
      }
      for (std::uint32_t d : before) {
        // A receive waits for an earlier send only to start after it: its data does not depend
        // on that send, and waiting for the send to finish would deadlock a ring in which every
        // rank sends first once messages go by rendezvous (and adds an ACK's round trip when
        // eager, which a GPU's send into the peer's buffer does not wait for).
        if (task.kind == ReplayTask::Kind::Recv && b.tasks[d].kind == ReplayTask::Kind::Send)
          task.after_start.push_back(d);
        else
          task.after.push_back(d);
      }
      resolved[i] = {static_cast<std::uint32_t>(b.tasks.size())};
      b.tasks.push_back(std::move(task));
    }
    return b;
  }

  void match_collectives(std::vector<RankBuild>& built, ReplayProgram& p) const {
    // Per rank and group: how many of that group's collectives the rank has met so far.
    std::map<std::pair<std::string, std::uint32_t>, std::uint32_t> seen;
    // Per group: the program's collective index of its k-th collective.
    std::map<std::string, std::vector<std::uint32_t>> of_group;
    for (std::uint32_t r = 0; r < built.size(); ++r) {
      for (const GroupedCall& call : built[r].calls) {
        const std::uint32_t k = seen[{call.group, r}]++;
        std::vector<std::uint32_t>& list = of_group[call.group];
        const ChakraRankTrace& t = traces_[r];
        if (k == list.size()) {
          std::string key;
          const std::vector<goal::RankId>& group = group_of(t, *call.node, key);
          const goal::RankId lowest = *std::min_element(group.begin(), group.end());
          if (lowest != r)
            fail(t, *call.node,
                 "is collective #" + std::to_string(k + 1) + " of process group '" + call.group + "' on rank " +
                     std::to_string(r) + ", but rank " + std::to_string(lowest) + " has only " +
                     std::to_string(k) + " collective(s) on that group (unmatched collective)");
          CollectiveCall c;
          c.collective = call.collective;
          c.bytes = call.bytes;
          c.root = call.node->root;
          if (collectives::has_root(c.collective) && c.root >= group.size())
            fail(t, *call.node, "root " + std::to_string(c.root) + " is not a member index of its group");
          c.group = group;
          c.origin = node_origin(t, *call.node);
          list.push_back(static_cast<std::uint32_t>(p.collectives.size()));
          p.collectives.push_back(std::move(c));
        }
        const CollectiveCall& c = p.collectives[list[k]];
        if (c.collective != call.collective || c.bytes != call.bytes)
          fail(t, *call.node,
               "collective #" + std::to_string(k + 1) + " of process group '" + call.group + "' is " +
                   std::string(collectives::to_string(call.collective)) + " of " + std::to_string(call.bytes) + " B here but " +
                   std::string(collectives::to_string(c.collective)) + " of " + std::to_string(c.bytes) + " B at " + c.origin.text());
        built[r].tasks[call.task].collective = list[k];
      }
    }
    // Every member must have every collective of its groups.
    for (const auto& [group, list] : of_group)
      for (std::uint32_t index : list) {
        const CollectiveCall& c = p.collectives[index];
        for (goal::RankId m : c.group) {
          const auto it = seen.find({group, m});
          const std::uint32_t has = it == seen.end() ? 0 : it->second;
          if (has < list.size() && list[has] == index)
            throw InputError::in_file(traces_[m].file,
                                      "rank " + std::to_string(m) + " has " + std::to_string(has) +
                                          " collective(s) on process group '" + group + "', but " + c.origin.text() +
                                          " is collective #" + std::to_string(has + 1) +
                                          " of that group (unmatched collective)");
        }
      }
  }

  const std::vector<ChakraRankTrace>& traces_;
  const CommGroups& groups_;
  const ChakraOptions& options_;
  std::vector<goal::RankId> all_;
};

}  // namespace

ReplayProgram chakra_program(const std::vector<ChakraRankTrace>& ranks, const CommGroups& groups, const ChakraOptions& options) {
  if (ranks.empty()) throw InputError::in_file("(no files)", "no Chakra rank traces given");
  ReplayProgram p = ProgramBuilder(ranks, groups, options).build();
  // "dir/x.{0..7}.et" when the files share a prefix, as they do when found by chakra_rank_files.
  const std::string& first = ranks.front().file;
  const std::size_t dot = first.rfind(".0.et");
  const std::string files = dot != std::string::npos && ranks.size() > 1
                                ? first.substr(0, dot) + ".{0.." + std::to_string(ranks.size() - 1) + "}" + first.substr(dot + 2)
                                : first + (ranks.size() > 1 ? " ..." : "");
  p.description = "chakra ET " + files + ", " + std::to_string(ranks.size()) + " rank(s), " +
                  std::to_string(p.collectives.size()) + " collective(s)";
  return p;
}

}  // namespace collsim::traces
