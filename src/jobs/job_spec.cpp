#include "collsim/jobs/job_spec.hpp"

#include <array>
#include <string_view>

#include "collsim/common/input_error.hpp"
#include "collsim/config/yaml_map.hpp"

namespace collsim::jobs {

namespace {

constexpr std::array<std::string_view, 2> kTopKeys = {"topology", "jobs"};
constexpr std::array<std::string_view, 7> kJobKeys = {"name",       "workload", "schedule", "trace",
                                                     "collective", "gpus",     "start"};
constexpr std::array<std::string_view, 5> kCollectiveKeys = {"coll", "bytes", "algo", "channels", "repeat"};
constexpr std::array<std::string_view, 4> kGpuKeys = {"nodes", "policy", "count", "seed"};

std::uint32_t whole(const config::Reader& r, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) r.fail(n, what + " must be a whole number, not " + config::describe(n));
  const std::string& s = n.Scalar();
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    r.fail(n, what + " must be a whole number, not '" + s + "'");
  return static_cast<std::uint32_t>(std::stoul(s));
}

GpuRequest read_gpus(const config::Reader& r, const YAML::Node& n) {
  GpuRequest g;
  if (n.IsSequence()) {
    g.policy = GpuPolicy::List;
    for (const YAML::Node& h : n) g.hosts.push_back(whole(r, h, "a GPU of 'gpus'"));
    if (g.hosts.empty()) r.fail(n, "'gpus' lists no GPU");
    return g;
  }
  const config::Map m(r, n, "'gpus'", "a list of GPUs such as [0, 1, 2, 3], or a map such as {nodes: 0-3} or "
                                      "{policy: packed, count: 16}");
  m.allow_only(kGpuKeys, {}, "'gpus'");
  if (const config::Field* f = m.find("nodes")) {
    if (m.find("policy")) r.fail(f->key_node, "'gpus' takes nodes or a policy, not both");
    g.policy = GpuPolicy::Nodes;
    const std::string text = config::scalar(r, *f, "a range of nodes such as 0-3");
    const auto dash = text.find('-');
    auto number = [&](const std::string& s) {
      if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        r.fail(f->value, "'nodes' must be a node or a range such as 0-3, not '" + text + "'");
      return static_cast<std::uint32_t>(std::stoul(s));
    };
    g.first_node = number(dash == std::string::npos ? text : text.substr(0, dash));
    g.last_node = dash == std::string::npos ? g.first_node : number(text.substr(dash + 1));
    if (g.last_node < g.first_node) r.fail(f->value, "'nodes' must go up (0-3), not '" + text + "'");
    return g;
  }
  if (const config::Field* f = m.find("policy")) {
    const std::string p = config::scalar(r, *f, "packed, spread or random");
    if (p == "packed") g.policy = GpuPolicy::Packed;
    else if (p == "spread") g.policy = GpuPolicy::Spread;
    else if (p == "random") g.policy = GpuPolicy::Random;
    else r.fail(f->value, "unknown policy '" + p + "' (packed, spread, random)");
  }
  if (const config::Field* f = m.find("count")) g.count = whole(r, f->value, "'count'");
  if (const config::Field* f = m.find("seed")) g.seed = whole(r, f->value, "'seed'");
  return g;
}

CollectiveJob read_collective(const config::Reader& r, const YAML::Node& n) {
  const config::Map m(r, n, "'collective'", "a map such as {coll: allreduce, bytes: 64MiB}");
  m.allow_only(kCollectiveKeys, {}, "'collective'");
  CollectiveJob c;
  const config::Field& coll = m.require("coll", "the collective to run (allreduce, allgather, ...)");
  const std::string name = config::scalar(r, coll, "a collective");
  const auto which = collectives::collective_from_name(name);
  if (!which) r.fail(coll.value, "unknown collective '" + name + "'");
  c.collective = *which;
  c.bytes = config::read_bytes(r, m.require("bytes", "its size (nccl-tests' size, e.g. 64MiB)"));
  if (const config::Field* f = m.find("algo")) c.algorithm = config::scalar(r, *f, "an algorithm name or auto");
  if (const config::Field* f = m.find("channels")) c.channels = whole(r, f->value, "'channels'");
  if (const config::Field* f = m.find("repeat")) c.repeat = whole(r, f->value, "'repeat'");
  if (c.channels == 0) r.fail(n, "'channels' must be at least 1");
  if (c.repeat == 0) r.fail(n, "'repeat' must be at least 1");
  return c;
}

}  // namespace

JobsFile load_jobs_file(const std::string& path) {
  const YAML::Node root = config::parse_file(path);
  const config::Reader r(path);
  const config::Map top(r, root, "the jobs file", "a map with 'jobs' (a list) and optionally 'topology'");
  top.allow_only(kTopKeys, {}, "the jobs file");
  JobsFile out;
  out.path = path;
  if (const config::Field* f = top.find("topology")) out.topology = config::scalar(r, *f, "a topology file or preset");
  const config::Field& list = top.require("jobs", "the list of jobs");
  if (!list.value.IsSequence() || list.value.size() == 0)
    r.fail(list.value, "'jobs' must be a non-empty list of jobs, not " + config::describe(list.value));
  for (std::size_t i = 0; i < list.value.size(); ++i) {
    const YAML::Node& n = list.value[i];
    const config::Map m(r, n, "job " + std::to_string(i), "a map such as {workload: gpt3_1.3b, gpus: {nodes: 0-1}}");
    m.allow_only(kJobKeys, {}, "a job");
    JobSpec j;
    j.line = static_cast<std::uint64_t>(n.Mark().line) + 1;
    j.name = "job" + std::to_string(i);
    if (const config::Field* f = m.find("name")) j.name = config::scalar(r, *f, "a name");
    int kinds = 0;
    if (const config::Field* f = m.find("workload")) {
      j.kind = JobKind::Workload;
      j.file = config::scalar(r, *f, "a workload file or preset");
      ++kinds;
    }
    if (const config::Field* f = m.find("schedule")) {
      j.kind = JobKind::Schedule;
      j.file = config::scalar(r, *f, "a GOAL file");
      ++kinds;
    }
    if (const config::Field* f = m.find("trace")) {
      j.kind = JobKind::Trace;
      if (f->value.IsSequence()) {
        for (const YAML::Node& p : f->value) {
          if (!p.IsScalar()) r.fail(p, "a trace file must be a path, not " + config::describe(p));
          j.traces.push_back(p.Scalar());
        }
      } else {
        j.traces.push_back(config::scalar(r, *f, "a trace file or a list of them"));
      }
      if (j.traces.empty()) r.fail(f->value, "'trace' names no file");
      ++kinds;
    }
    if (const config::Field* f = m.find("collective")) {
      j.kind = JobKind::Collective;
      j.collective = read_collective(r, f->value);
      ++kinds;
    }
    if (kinds != 1) r.fail(n, "job '" + j.name + "' must name exactly one of workload, schedule, trace and collective");
    if (const config::Field* f = m.find("gpus")) j.gpus = read_gpus(r, f->value);
    if (const config::Field* f = m.find("start")) j.start = config::read_duration(r, *f);
    if (j.kind == JobKind::Collective && j.gpus.policy != GpuPolicy::List && j.gpus.policy != GpuPolicy::Nodes &&
        j.gpus.count == 0)
      r.fail(n, "job '" + j.name + "': a collective needs its GPUs: a list, nodes, or a policy with a count");
    for (const JobSpec& other : out.jobs)
      if (other.name == j.name) r.fail(n, "two jobs are named '" + j.name + "'");
    out.jobs.push_back(std::move(j));
  }
  return out;
}

}  // namespace collsim::jobs
