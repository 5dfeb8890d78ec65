// The YAML topology reader. Every value is checked where it stands, so each error names the
// file, the line and column of the offending key or value, and what was expected there.

#include "collsim/topo/loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <span>
#include <sstream>
#include <string_view>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/logging/logging.hpp"
#include "collsim/config/yaml_map.hpp"
#include "collsim/topo/generators.hpp"

namespace collsim::topo {

namespace {

using namespace config;

constexpr std::string_view kKinds[] = {"fat_tree", "leaf_spine", "rail", "dragonfly", "torus", "explicit"};
constexpr std::string_view kCommonKeys[] = {"name", "kind", "link", "switch"};
constexpr std::string_view kFatTreeKeys[] = {"k", "oversubscription", "host_link"};
constexpr std::string_view kLeafSpineKeys[] = {"leaves", "spines", "hosts_per_leaf", "uplinks_per_spine", "host_link"};
constexpr std::string_view kRailKeys[] = {"servers", "gpus_per_server", "servers_per_leaf", "spines", "uplinks_per_spine",
                                          "nvlink",  "nic",             "fabric_link",      "nvswitch"};
constexpr std::string_view kDragonflyKeys[] = {"groups",    "routers_per_group", "hosts_per_router", "global_links_per_router",
                                               "host_link", "local_link",        "global_link"};
constexpr std::string_view kTorusKeys[] = {"dims", "hosts_per_switch", "host_link"};
constexpr std::string_view kExplicitKeys[] = {"nodes", "links"};
constexpr std::string_view kLinkKeys[] = {"bandwidth", "latency"};
constexpr std::string_view kSwitchKeys[] = {"latency", "buffer", "shared_buffer"};
constexpr std::string_view kHostNodeKeys[] = {"name", "kind", "server"};
constexpr std::string_view kSwitchNodeKeys[] = {"name", "kind", "latency", "buffer", "shared_buffer"};
constexpr std::string_view kLinkEntryKeys[] = {"a", "b", "bandwidth", "latency", "medium"};

// Keys a kind allows besides kCommonKeys.
Keys kind_keys(std::string_view kind) {
  if (kind == "fat_tree") return kFatTreeKeys;
  if (kind == "leaf_spine") return kLeafSpineKeys;
  if (kind == "rail") return kRailKeys;
  if (kind == "dragonfly") return kDragonflyKeys;
  if (kind == "torus") return kTorusKeys;
  return kExplicitKeys;
}

// {bandwidth, latency}; a missing value comes from `fallback` (the file's `link`).
LinkSpec read_link(const Reader& r, const Field& f, const std::optional<LinkSpec>& fallback) {
  const Map m(r, f.value, "'" + f.key + "'", "a map such as {bandwidth: 100Gbps, latency: 1us}");
  m.allow_only(kLinkKeys, {}, "");
  LinkSpec spec;
  const std::string why = "no default 'link' to take it from";
  if (const Field* b = m.find("bandwidth"))
    spec.bandwidth = read_bandwidth(r, *b);
  else if (fallback)
    spec.bandwidth = fallback->bandwidth;
  else
    m.require("bandwidth", why);
  if (const Field* l = m.find("latency"))
    spec.latency = read_duration(r, *l);
  else if (fallback)
    spec.latency = fallback->latency;
  else
    m.require("latency", why);
  return spec;
}

// Switch parameters: each key overrides `base`.
void read_switch_keys(const Reader& r, const Map& m, SwitchParams& p) {
  if (const Field* f = m.find("latency")) p.latency = read_duration(r, *f);
  if (const Field* f = m.find("buffer")) p.buffer_bytes = read_bytes(r, *f);
  if (const Field* f = m.find("shared_buffer")) p.shared_buffer = read_bool(r, *f);
}

SwitchParams read_switch(const Reader& r, const Field& f, SwitchParams base) {
  const Map m(r, f.value, "'" + f.key + "'", "a map such as {latency: 0ns, buffer: 32MiB, shared_buffer: true}");
  m.allow_only(kSwitchKeys, {}, "");
  read_switch_keys(r, m, base);
  return base;
}

struct Context {
  const Reader& r;
  const Map& top;
  std::string kind;
  std::optional<LinkSpec> link;  // the file's `link`
  SwitchParams switch_params;

  std::uint32_t count(std::string_view key) const { return read_count(r, top.require(key, "required for kind " + kind)); }
  std::uint32_t count_or(std::string_view key, std::uint32_t dflt) const {
    const Field* f = top.find(key);
    return f ? read_count(r, *f) : dflt;
  }
  // A link kind with its own key; missing values come from `link`; missing entirely: `link`.
  LinkSpec link_or_default(std::string_view key) const {
    if (const Field* f = top.find(key)) return read_link(r, *f, link);
    if (link) return *link;
    top.require(key, "or a default 'link'");
    return {};
  }
  std::optional<LinkSpec> optional_link(std::string_view key) const {
    if (const Field* f = top.find(key)) return read_link(r, *f, link);
    return std::nullopt;
  }
  LinkSpec required_link(std::string_view key) const {
    return read_link(r, top.require(key, "required for kind " + kind), link);
  }
  LinkSpec default_link() const {
    if (!link) top.require("link", "the bandwidth and latency of the " + kind + "'s links");
    return *link;
  }
};

Topology build_fat_tree(const Context& c) {
  FatTreeParams p;
  p.k = c.count("k");
  p.oversubscription = c.count_or("oversubscription", 1);
  p.link = c.default_link();
  p.host_link = c.optional_link("host_link");
  p.switch_params = c.switch_params;
  return make_fat_tree(p);
}

Topology build_leaf_spine(const Context& c) {
  LeafSpineParams p;
  p.leaves = c.count("leaves");
  p.spines = c.count("spines");
  p.hosts_per_leaf = c.count("hosts_per_leaf");
  p.uplinks_per_spine = c.count_or("uplinks_per_spine", 1);
  p.link = c.default_link();
  p.host_link = c.optional_link("host_link");
  p.switch_params = c.switch_params;
  return make_leaf_spine(p);
}

Topology build_rail(const Context& c) {
  RailParams p;
  p.servers = c.count("servers");
  p.gpus_per_server = c.count("gpus_per_server");
  p.servers_per_leaf = c.count_or("servers_per_leaf", 0);
  if (const Field* f = c.top.find("servers_per_leaf"); f && p.servers_per_leaf == 0)
    c.r.fail(f->value, "servers_per_leaf must be at least 1, found 0 (leave it out to put all servers on one leaf)");
  p.spines = c.count("spines");
  p.uplinks_per_spine = c.count_or("uplinks_per_spine", 1);
  p.nvlink = c.required_link("nvlink");
  p.nic = c.required_link("nic");
  if (p.spines > 0) p.fabric_link = c.link_or_default("fabric_link");
  p.switch_params = c.switch_params;
  p.nvswitch_params = c.switch_params;
  if (const Field* f = c.top.find("nvswitch")) p.nvswitch_params = read_switch(c.r, *f, c.switch_params);
  return make_rail(p);
}

Topology build_dragonfly(const Context& c) {
  DragonflyParams p;
  p.groups = c.count("groups");
  p.routers_per_group = c.count("routers_per_group");
  p.hosts_per_router = c.count("hosts_per_router");
  p.global_links_per_router = c.count("global_links_per_router");
  p.host_link = c.link_or_default("host_link");
  p.local_link = c.link_or_default("local_link");
  p.global_link = c.link_or_default("global_link");
  p.switch_params = c.switch_params;
  return make_dragonfly(p);
}

Topology build_torus(const Context& c) {
  TorusParams p;
  const Field& dims = c.top.require("dims", "required for kind torus, e.g. dims: [4, 4, 4]");
  if (!dims.value.IsSequence())
    c.r.fail(dims.value, "key 'dims': expected a list of 2 or 3 sizes such as [4, 4, 4], found " + describe(dims.value));
  p.dims.clear();
  for (const YAML::Node& d : dims.value) p.dims.push_back(read_count(c.r, Field{"dims", dims.key_node, d}));
  p.hosts_per_switch = c.count_or("hosts_per_switch", 1);
  p.link = c.default_link();
  p.host_link = c.optional_link("host_link");
  p.switch_params = c.switch_params;
  return make_torus(p);
}

LinkMedium read_medium(const Reader& r, const Field& f) {
  const std::string s = scalar(r, f, "network, nvlink or pcie");
  if (s == "network") return LinkMedium::Network;
  if (s == "nvlink") return LinkMedium::NvLink;
  if (s == "pcie") return LinkMedium::Pcie;
  r.fail(f.value, "key 'medium': unknown medium '" + s + "' (expected network, nvlink or pcie)");
}

// explicit: `nodes` and `links` as lists. node_at receives where each node is defined.
Topology build_explicit(const Context& c, std::vector<YAML::Mark>& node_at) {
  const Reader& r = c.r;
  Topology t;
  const Field& nodes = c.top.require("nodes", "required for kind explicit, e.g. nodes: [{name: h0, kind: host}]");
  if (!nodes.value.IsSequence())
    r.fail(nodes.value, "key 'nodes': expected a list of nodes such as [{name: h0, kind: host}], found " +
                            describe(nodes.value));
  std::size_t i = 0;
  for (const YAML::Node& entry : nodes.value) {
    const Map m(r, entry, "node " + std::to_string(i++) + " of 'nodes'", "a map such as {name: h0, kind: host}");
    const Field& name_f = m.require("name", "");
    const std::string name = read_string(r, name_f);
    const Field& kind_f = m.require("kind", "host, switch or nvswitch");
    const std::string kind = scalar(r, kind_f, "host, switch or nvswitch");
    if (const auto existing = t.find(name))
      r.fail(name_f.value, "node '" + name + "' is defined twice (first on line " +
                               std::to_string(node_at[*existing].line + 1) + ")");
    if (kind == "host") {
      m.allow_only(kHostNodeKeys, {}, " (a host)");
      const Field* server = m.find("server");
      t.add_node(name, NodeKind::Host, {}, server ? read_count(r, *server) : t.num_hosts());
    } else if (kind == "switch" || kind == "nvswitch") {
      m.allow_only(kSwitchNodeKeys, {}, " (a " + kind + ")");
      SwitchParams p = c.switch_params;
      read_switch_keys(r, m, p);
      t.add_node(name, kind == "switch" ? NodeKind::Switch : NodeKind::NvSwitch, p);
    } else {
      r.fail(kind_f.value, "unknown node kind '" + kind + "' (expected host, switch or nvswitch)");
    }
    node_at.push_back(entry.Mark());
  }

  const Field& links = c.top.require("links", "required for kind explicit, e.g. links: [{a: h0, b: s0}]");
  if (!links.value.IsSequence())
    r.fail(links.value, "key 'links': expected a list of links such as [{a: h0, b: s0, bandwidth: 100Gbps}], found " +
                            describe(links.value));
  i = 0;
  for (const YAML::Node& entry : links.value) {
    const Map m(r, entry, "link " + std::to_string(i++) + " of 'links'", "a map such as {a: h0, b: s0}");
    m.allow_only(kLinkEntryKeys, {}, "");
    NodeId end[2] = {0, 0};
    std::string names[2];
    for (int e = 0; e < 2; ++e) {
      const Field& f = m.require(e == 0 ? "a" : "b", "the nodes a link joins");
      names[e] = read_string(r, f);
      const auto id = t.find(names[e]);
      if (!id)
        r.fail(f.value, "dangling port: link end '" + names[e] + "' is not a node defined in 'nodes'");
      end[e] = *id;
    }
    if (end[0] == end[1]) r.fail(entry, "self-loop: link from '" + names[0] + "' to itself");
    const std::string why = "no default 'link' to take it from";
    const Field* bw = m.find("bandwidth");
    const Field* lat = m.find("latency");
    if (!bw && !c.link) m.require("bandwidth", why);
    if (!lat && !c.link) m.require("latency", why);
    const Bandwidth bandwidth = bw ? read_bandwidth(r, *bw) : c.link->bandwidth;
    const SimTime latency = lat ? read_duration(r, *lat) : c.link->latency;
    const Field* medium = m.find("medium");
    try {
      t.add_link(end[0], end[1], bandwidth, latency, medium ? read_medium(r, *medium) : LinkMedium::Network);
    } catch (const std::invalid_argument& e) {
      r.fail(entry, e.what());
    }
  }
  return t;
}

Topology parse_document(const Reader& r, const YAML::Node& root, const std::string& default_name) {
  if (!root.IsDefined() || root.IsNull())
    r.fail(YAML::Mark::null_mark(), "expected a topology (a map with at least 'kind'), found an empty file");
  const Map top(r, root, "the topology", "a map with at least 'kind'");
  const Field& kind_f = top.require("kind", "one of fat_tree, leaf_spine, rail, dragonfly, torus, explicit");
  const std::string kind = scalar(r, kind_f, "a kind");
  if (std::find(std::begin(kKinds), std::end(kKinds), kind) == std::end(kKinds))
    r.fail(kind_f.value,
           "unknown kind '" + kind + "' (expected fat_tree, leaf_spine, rail, dragonfly, torus or explicit)");
  top.allow_only(kCommonKeys, kind_keys(kind), " of kind " + kind);

  Context c{r, top, kind, std::nullopt, SwitchParams{}};
  if (const Field* f = top.find("link")) c.link = read_link(r, *f, std::nullopt);
  if (const Field* f = top.find("switch")) c.switch_params = read_switch(r, *f, SwitchParams{});
  std::string name = default_name;
  if (const Field* f = top.find("name")) name = read_string(r, *f);

  Topology t;
  std::vector<YAML::Mark> node_at;
  try {
    if (kind == "fat_tree")
      t = build_fat_tree(c);
    else if (kind == "leaf_spine")
      t = build_leaf_spine(c);
    else if (kind == "rail")
      t = build_rail(c);
    else if (kind == "dragonfly")
      t = build_dragonfly(c);
    else if (kind == "torus")
      t = build_torus(c);
    else
      t = build_explicit(c, node_at);
  } catch (const ParameterError& e) {
    const Field* f = top.find(e.parameter());
    r.fail(f ? f->value : kind_f.value, e.what());
  }
  t.set_name(name);

  if (const auto problem = check_topology(t)) {
    YAML::Mark at = kind_f.value.Mark();
    if (kind == "explicit") {
      if (problem->kind == TopologyProblem::Kind::TooFewHosts)
        at = top.require("nodes", "").key_node.Mark();
      else
        at = node_at[problem->kind == TopologyProblem::Kind::DisconnectedHosts ? problem->other : problem->node];
    }
    r.fail(at, problem->message);
  }
  return t;
}

}  // namespace

Topology parse_topology(const std::string& yaml_text, const std::string& file_name) {
  const Reader r(file_name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    r.fail(e.mark, "not valid YAML: " + e.msg);
  }
  try {
    return parse_document(r, root, std::filesystem::path(file_name).stem().string());
  } catch (const YAML::Exception& e) {
    r.fail(e.mark, e.msg);
  }
}

Topology load_topology(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::in_file(path, std::string("cannot open the topology file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError::in_file(path, "cannot read the topology file");
  Topology t = parse_topology(text.str(), path);
  logging::logger("topo").debug("loaded {}: '{}' ({}), {} hosts, {} switches, {} links", path, t.name(), t.kind(),
                                t.num_hosts(), t.num_switches(), t.links().size());
  return t;
}

}  // namespace collsim::topo
