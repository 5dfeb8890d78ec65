// Every kind of error in a topology file: the message says what was expected, and the
// position is the line and column of the offending key or value.

#include <gtest/gtest.h>

#include <string>

#include "topo_test_util.hpp"

namespace collsim::topo {
namespace {

using testing::expect_parse_error;

const std::string kLink = "link: {bandwidth: 100Gbps, latency: 1us}\n";

TEST(LoaderErrors, InvalidYaml) {
  expect_parse_error("kind: fat_tree\nk: [4\n", 3, 0, "not valid YAML");
}

TEST(LoaderErrors, EmptyFileAndNotAMap) {
  expect_parse_error("", 1, 1, "found an empty file");
  expect_parse_error("# only a comment\n", 1, 1, "found an empty file");
  expect_parse_error("- kind: fat_tree\n", 1, 1, "expected a map with at least 'kind' for the topology, found a list");
}

TEST(LoaderErrors, MissingKind) {
  expect_parse_error("k: 4\n" + kLink, 1, 1, "missing key 'kind' in the topology");
}

TEST(LoaderErrors, UnknownKind) {
  expect_parse_error("name: x\nkind: fattree\n", 2, 7,
                     "unknown kind 'fattree' (expected fat_tree, leaf_spine, rail, dragonfly, torus or explicit)");
}

TEST(LoaderErrors, MissingKey) {
  expect_parse_error("kind: fat_tree\n" + kLink, 1, 1, "missing key 'k' in the topology (required for kind fat_tree)");
  expect_parse_error("kind: fat_tree\nk: 4\n", 1, 1, "missing key 'link'");
  expect_parse_error("kind: torus\n" + kLink, 1, 1, "missing key 'dims'");
  expect_parse_error("kind: rail\nservers: 2\ngpus_per_server: 2\nspines: 1\n" + kLink, 1, 1, "missing key 'nvlink'");
}

TEST(LoaderErrors, UnknownKeyNamesItAndListsTheAllowedOnes) {
  expect_parse_error("kind: fat_tree\nk: 4\n" + kLink + "hosts_per_leaf: 3\n", 4, 1,
                     "unknown key 'hosts_per_leaf' in the topology of kind fat_tree (allowed: name, kind, link, "
                     "switch, k, oversubscription, host_link)");
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 100Gbps, latency: 1us, mtu: 9000}\n", 3, 42,
                     "unknown key 'mtu' in 'link' (allowed: bandwidth, latency)");
  expect_parse_error("kind: fat_tree\nk: 4\n" + kLink + "switch: {buffers: 1MiB}\n", 4, 10,
                     "unknown key 'buffers' in 'switch' (allowed: latency, buffer, shared_buffer)");
}

TEST(LoaderErrors, DuplicateKey) {
  expect_parse_error("kind: fat_tree\nk: 4\n" + kLink + "k: 8\n", 4, 1,
                     "key 'k' appears twice in the topology (first on line 2)");
}

TEST(LoaderErrors, WrongTypes) {
  expect_parse_error("kind: fat_tree\nk: [4]\n" + kLink, 2, 4, "key 'k': expected a whole number, found a list");
  expect_parse_error("kind: fat_tree\nk: four\n" + kLink, 2, 4, "key 'k': expected a whole number, found 'four'");
  expect_parse_error("kind: fat_tree\nk: 4.5\n" + kLink, 2, 4, "expected a whole number, found '4.5'");
  expect_parse_error("kind: fat_tree\nk: -4\n" + kLink, 2, 4, "expected a whole number from 0 to 4294967295, found -4");
  expect_parse_error("kind: fat_tree\nk: 4\nlink: 100Gbps\n", 3, 7,
                     "expected a map such as {bandwidth: 100Gbps, latency: 1us} for 'link', found '100Gbps'");
  expect_parse_error("kind: [fat_tree]\n", 1, 7, "key 'kind': expected a kind, found a list");
  expect_parse_error("kind: fat_tree\nk: 4\n" + kLink + "switch: {shared_buffer: maybe}\n", 4, 25,
                     "key 'shared_buffer': expected true or false, found 'maybe'");
  expect_parse_error("kind: torus\ndims: 4x4\n" + kLink, 2, 7, "key 'dims': expected a list of 2 or 3 sizes");
  expect_parse_error("kind: explicit\nnodes: {h0: host}\nlinks: []\n", 2, 8, "key 'nodes': expected a list of nodes");
}

TEST(LoaderErrors, BadUnits) {
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 100, latency: 1us}\n", 3, 19,
                     "key 'bandwidth': expected a bandwidth above zero with its unit: '100' has no unit");
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 100Gbs, latency: 1us}\n", 3, 19,
                     "'100Gbs' has an unknown unit 'bs'");
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 100Gbps, latency: 5}\n", 3, 37,
                     "key 'latency': expected a duration with its unit: '5' is not a duration: missing unit");
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 100Gbps, latency: 5 sec}\n", 3, 37,
                     "key 'latency': expected a duration with its unit");
  expect_parse_error("kind: fat_tree\nk: 4\n" + kLink + "switch: {buffer: 32Mb}\n", 4, 18,
                     "key 'buffer': expected a size with its unit: '32Mb' has an unknown unit");
}

TEST(LoaderErrors, ZeroBandwidth) {
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 0Gbps, latency: 1us}\n", 3, 19,
                     "key 'bandwidth': expected a bandwidth above zero with its unit: '0Gbps' is zero");
}

TEST(LoaderErrors, NegativeLatency) {
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 1Gbps, latency: -1us}\n", 3, 35,
                     "key 'latency': a latency cannot be negative, found '-1us'");
}

TEST(LoaderErrors, IncompleteLinkWithoutDefault) {
  expect_parse_error("kind: fat_tree\nk: 4\nlink: {bandwidth: 100Gbps}\n", 3, 7,
                     "missing key 'latency' in 'link' (no default 'link' to take it from)");
  expect_parse_error(R"(kind: explicit
nodes: [{name: a, kind: host}, {name: b, kind: host}]
links:
  - {a: a, b: b, latency: 1us}
)",
                     4, 5, "missing key 'bandwidth' in link 0 of 'links'");
}

const std::string kNodes = R"(kind: explicit
link: {bandwidth: 100Gbps, latency: 1us}
nodes:
  - {name: h0, kind: host}
  - {name: h1, kind: host}
  - {name: s0, kind: switch}
)";

TEST(LoaderErrors, DuplicateNodeName) {
  expect_parse_error(kNodes + "  - {name: h1, kind: switch}\nlinks: []\n", 7, 12,
                     "node 'h1' is defined twice (first on line 5)");
}

TEST(LoaderErrors, UnknownNodeKindAndKeys) {
  expect_parse_error(kNodes + "  - {name: r, kind: router}\nlinks: []\n", 7, 21,
                     "unknown node kind 'router' (expected host, switch or nvswitch)");
  expect_parse_error(kNodes + "  - {name: h2, kind: host, buffer: 1MiB}\nlinks: []\n", 7, 28,
                     "unknown key 'buffer' in node 3 of 'nodes' (a host) (allowed: name, kind, server)");
  expect_parse_error(kNodes + "  - {kind: host}\nlinks: []\n", 7, 5, "missing key 'name' in node 3 of 'nodes'");
}

TEST(LoaderErrors, DanglingPort) {
  expect_parse_error(kNodes + "links:\n  - {a: h0, b: s0}\n  - {a: h1, b: s9}\n", 9, 16,
                     "dangling port: link end 's9' is not a node defined in 'nodes'");
}

TEST(LoaderErrors, SelfLoop) {
  expect_parse_error(kNodes + "links:\n  - {a: h0, b: s0}\n  - {a: s0, b: s0}\n", 9, 5,
                     "self-loop: link from 's0' to itself");
}

TEST(LoaderErrors, UnknownMedium) {
  expect_parse_error(kNodes + "links:\n  - {a: h0, b: s0, medium: copper}\n", 8, 28,
                     "unknown medium 'copper' (expected network, nvlink or pcie)");
}

TEST(LoaderErrors, HostWithoutLink) {
  expect_parse_error(kNodes + "links:\n  - {a: h0, b: s0}\n", 5, 5, "host 'h1' has no link");
}

TEST(LoaderErrors, DisconnectedHosts) {
  // h0 - s0 and h1 - s1, s0 and s1 not linked.
  expect_parse_error(kNodes + "  - {name: s1, kind: switch}\nlinks:\n  - {a: h0, b: s0}\n  - {a: h1, b: s1}\n", 5, 5,
                     "disconnected hosts: 'h0' and 'h1' cannot reach each other");
  // A path through a host does not count: h0 - s0 - h1 - s1 - h2.
  expect_parse_error(R"(kind: explicit
link: {bandwidth: 100Gbps, latency: 1us}
nodes:
  - {name: h0, kind: host}
  - {name: h1, kind: host}
  - {name: h2, kind: host}
  - {name: s0, kind: switch}
  - {name: s1, kind: switch}
links:
  - {a: h0, b: s0}
  - {a: h1, b: s0}
  - {a: h1, b: s1}
  - {a: h2, b: s1}
)",
                     6, 5, "disconnected hosts: 'h0' and 'h2'");
}

TEST(LoaderErrors, FewerThanTwoHosts) {
  expect_parse_error(R"(kind: explicit
nodes: [{name: h0, kind: host}, {name: s0, kind: switch}]
links: [{a: h0, b: s0, bandwidth: 1Gbps, latency: 1us}]
)",
                     2, 1, "a topology needs at least 2 hosts, this one has 1");
  expect_parse_error("kind: leaf_spine\nleaves: 1\nspines: 0\nhosts_per_leaf: 1\n" + kLink, 4, 17,
                     "these parameters give 1 host; a topology needs at least 2");
}

TEST(LoaderErrors, GeneratorParametersOutOfRange) {
  expect_parse_error("kind: fat_tree\nk: 5\n" + kLink, 2, 4, "k must be even and at least 2, found 5");
  expect_parse_error("kind: fat_tree\nk: 0\n" + kLink, 2, 4, "k must be even and at least 2, found 0");
  expect_parse_error("kind: fat_tree\nk: 4\noversubscription: 0\n" + kLink, 3, 19,
                     "oversubscription must be at least 1, found 0");
  expect_parse_error("kind: fat_tree\nk: 1000\n" + kLink, 2, 4, "at most 16777216 nodes");
  expect_parse_error("kind: leaf_spine\nleaves: 4\nspines: 0\nhosts_per_leaf: 2\n" + kLink, 3, 9,
                     "spines must be at least 1, found 0");
  expect_parse_error("kind: torus\ndims: [4]\n" + kLink, 2, 7, "dims must have 2 or 3 entries, found 1");
  expect_parse_error("kind: torus\ndims: [4, 1]\n" + kLink, 2, 7, "every dimension must be at least 2, found 1");
  expect_parse_error("kind: dragonfly\ngroups: 10\nrouters_per_group: 4\nhosts_per_router: 2\n"
                     "global_links_per_router: 2\n" + kLink,
                     2, 9, "groups = 10 leaves pairs of groups without a global link");
  expect_parse_error("kind: rail\nservers: 2\ngpus_per_server: 2\nspines: 0\nnvlink: {bandwidth: 2400Gbps, latency: "
                     "100ns}\nnic: {bandwidth: 200Gbps, latency: 500ns}\n",
                     4, 9, "spines must be at least 1: without spines");
  expect_parse_error("kind: rail\nservers: 2\ngpus_per_server: 2\nservers_per_leaf: 0\nspines: 1\n" + kLink +
                         "nvlink: {bandwidth: 2400Gbps, latency: 100ns}\nnic: {bandwidth: 200Gbps, latency: 500ns}\n",
                     4, 19, "servers_per_leaf must be at least 1");
}

TEST(LoaderErrors, PositionsInBlockStyle) {
  expect_parse_error(R"(# a comment
kind: leaf_spine
leaves: 2
spines: 2
hosts_per_leaf: 4
link:
  bandwidth: 100Gbps
  latency: -5ns
)",
                     8, 12, "a latency cannot be negative");
}

}  // namespace
}  // namespace collsim::topo
