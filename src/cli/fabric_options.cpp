#include "fabric_options.hpp"

#include <yaml-cpp/yaml.h>

#include <iostream>

#include "collsim/common/input_error.hpp"
#include "collsim/exec/host_params.hpp"
#include "collsim/exec/loggops_params.hpp"
#include "duration_option.hpp"

namespace collsim::cli {

void FabricCliOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--params", params_file, "YAML file of fabric parameters (name: value); see --help-params")
      ->check(CLI::ExistingFile);
  cmd.add_option("--set", set, "Set one fabric parameter, e.g. --set mtu_bytes=1KiB (repeatable)");
  cmd.add_option("--cc", cc, "Congestion control: none, dcqcn, swift");
  cmd.add_option("--routing", routing, "Routing: ecmp, spray, adaptive, dimension-order, minimal, valiant, ugal, rail (the GOAL op's nic picks among equal paths)");
  cmd.add_flag("--lossy", lossy, "Tail drop and retransmission instead of PFC");
  cmd.add_option("--partition", partition, "Placement of devices over MPI ranks: metis, block, round-robin, random")
      ->capture_default_str();
  cmd.add_option("--queue", queue, kQueueOptionHelp)->capture_default_str();
  cmd.add_option("--end", end, "Stop at this simulated time (default: when everything is done)");
  cmd.add_option("--seed", seed, "Seed of the fabric's random streams")
      ->capture_default_str()
      ->check(whole_number(UINT64_MAX));
  cmd.add_option("--link-speed", link_speed,
                 "From TIME on, the link between two nodes runs at BANDWIDTH (a degraded or repaired link; "
                 "several give a flapping one): pod0_agg2:pod0_edge2@1ms=50Gbps; repeatable")
      ->type_name("A:B@TIME=BW");
  cmd.add_option("--link-down", link_down,
                 "The link between two nodes fails at TIME (and comes back at TIME2): what is on it or queued "
                 "for it is lost, and routes move off it after --reconvergence; repeatable")
      ->type_name("A:B@TIME[..TIME2]");
  cmd.add_option("--switch-down", switch_down, "Every link of a switch fails at TIME (and comes back at TIME2); repeatable")
      ->type_name("SWITCH@TIME[..TIME2]");
  cmd.add_option("--reconvergence", reconvergence,
                 "After a link fails or comes back, how long until every switch routes around it (the switch at "
                 "the dead link stops using it at once); default 1ms")
      ->type_name("DURATION");
  cmd.add_flag_callback(
      "--help-params",
      [] {
        std::cout << "Fabric parameters (--set name=value, or a --params YAML file of name: value):\n"
                  << net::fabric_parameters().help(net::FabricParams{})
                  << "\nHost costs in packet mode (--host-set name=value):\n"
                  << exec::host_parameters().help(exec::PacketHostParams{})
                  << "\nLogGOPS parameters (--network loggops; --loggops-set name=value):\n"
                  << exec::loggops_parameters().help(exec::LogGOPSParams{});
        throw CLI::Success();
      },
      "List every fabric, host-cost and LogGOPS parameter with its unit, default and meaning");
}

namespace {
void apply(net::FabricParams& p, const std::string& name, const std::string& value, const std::string& where) {
  try {
    net::set_fabric_param(p, name, value);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError(where, e.what());
  }
}
}  // namespace

net::FabricParams FabricCliOptions::params(net::FabricParams base) const {
  net::FabricParams p = base;
  p.seed = seed;
  if (!params_file.empty()) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(params_file);
    } catch (const YAML::Exception& e) {
      throw InputError::at_text(params_file, e.mark.line + 1, e.mark.column + 1, e.msg);
    }
    if (!root.IsMap()) throw InputError::in_file(params_file, "expected a mapping of parameter: value");
    for (const auto& kv : root) {
      const std::string name = kv.first.as<std::string>();
      try {
        net::set_fabric_param(p, name, kv.second.as<std::string>());
      } catch (const std::exception& e) {
        throw InputError::at_text(params_file, kv.first.Mark().line + 1, kv.first.Mark().column + 1, e.what());
      }
    }
  }
  if (!cc.empty()) apply(p, "cc", cc, "--cc");
  if (!routing.empty()) apply(p, "routing", routing, "--routing");
  if (lossy) p.lossless = false;
  for (const std::string& s : set) {
    const auto [name, value] = parse_assignment_option("--set", s);
    // --set would win whatever the order: both given is a contradiction, not a choice.
    const char* flag = name == "cc" && !cc.empty()              ? "--cc"
                       : name == "routing" && !routing.empty()  ? "--routing"
                       : name == "lossless" && lossy            ? "--lossy"
                                                                : nullptr;
    if (flag) throw CLI::ValidationError("--set", s + " and " + flag + " both set " + name + ": give one");
    apply(p, name, value, "--set");
  }
  try {
    net::validate(p);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError(e.what());  // the message already says "fabric parameters: "
  }
  return p;
}

std::string FabricCliOptions::first_given() const {
  if (!params_file.empty()) return "--params";
  if (!set.empty()) return "--set";
  if (!cc.empty()) return "--cc";
  if (!routing.empty()) return "--routing";
  if (lossy) return "--lossy";
  if (!end.empty()) return "--end";
  if (seed != FabricCliOptions{}.seed) return "--seed";
  if (!link_speed.empty()) return "--link-speed";
  if (!link_down.empty()) return "--link-down";
  if (!switch_down.empty()) return "--switch-down";
  if (!reconvergence.empty()) return "--reconvergence";
  return "";
}

std::vector<net::LinkChange> FabricCliOptions::link_changes(const topo::Topology& topology) const {
  std::vector<net::LinkChange> out;
  for (const std::string& text : link_speed) {
    try {
      out.push_back(net::parse_link_change(text, topology));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--link-speed", e.what());
    }
  }
  return out;
}

std::vector<net::LinkFault> FabricCliOptions::link_faults(const topo::Topology& topology) const {
  std::vector<net::LinkFault> out;
  const auto parse_all = [&](const std::vector<std::string>& texts, const char* option, auto parse) {
    for (const std::string& text : texts) {
      try {
        out.push_back(parse(text, topology));
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError(option, e.what());
      }
    }
  };
  parse_all(link_down, "--link-down", net::parse_link_fault);
  parse_all(switch_down, "--switch-down", net::parse_switch_fault);
  return out;
}

net::FabricOptions FabricCliOptions::options() const {
  net::FabricOptions o;
  if (!reconvergence.empty()) o.reconvergence = parse_duration_option("--reconvergence", reconvergence);
  o.partition = parse_partition_option(partition);
  o.queue = parse_queue_option(queue);
  if (!end.empty()) o.end_time = parse_duration_option("--end", end);
  return o;
}

}  // namespace collsim::cli
