// The standard topologies and their bisection bandwidth in closed form.
//
// Bisection bandwidth here is the capacity (one direction) of the smallest cut that splits the
// hosts into two halves, switches going to either side. Each derivation below gives a cut (an
// upper bound) and, where it can, a matching lower bound: if the hosts of one half can all send
// to distinct hosts of the other half at rate r at once, every balanced cut carries at least
// (H/2)*r, so a cut of exactly that capacity is the smallest.

#include "collsim/topo/generators.hpp"

#include <algorithm>
#include <limits>
#include <string>


namespace collsim::topo {

namespace {

using u64 = std::uint64_t;
using u128 = collsim::detail::uint128;

std::string str(u128 v) {
  if (v > std::numeric_limits<u64>::max()) return "more than 18446744073709551615";
  return std::to_string(static_cast<u64>(v));
}

// Refuses sizes that are almost certainly typos before allocating anything.
void check_size(const char* parameter, u128 nodes, u128 links) {
  if (nodes > kMaxGeneratedNodes || links > kMaxGeneratedLinks)
    throw ParameterError(parameter, "these parameters give " + str(nodes) + " nodes and " + str(links) +
                                        " links; at most " + str(kMaxGeneratedNodes) + " nodes and " +
                                        str(kMaxGeneratedLinks) + " links are supported");
}

void check_ports(const char* parameter, u128 ports) {
  if (ports > 0xFFFF)
    throw ParameterError(parameter, "these parameters give a node with " + str(ports) +
                                        " ports; at most 65535 are supported");
}

void check_link(const char* parameter, const LinkSpec& l) {
  if (l.bandwidth.bps() <= 0) throw ParameterError(parameter, std::string(parameter) + " has no bandwidth");
  if (l.latency < SimTime::zero())
    throw ParameterError(parameter, std::string(parameter) + " has a negative latency");
}

void check_at_least(const char* parameter, std::uint32_t value, std::uint32_t min) {
  if (value < min)
    throw ParameterError(parameter, std::string(parameter) + " must be at least " + std::to_string(min) + ", found " +
                                        std::to_string(value));
}

void check_hosts(const char* parameter, u128 hosts) {
  if (hosts < 2)
    throw ParameterError(parameter, "these parameters give " + str(hosts) + " host" + (hosts == 1 ? "" : "s") +
                                        "; a topology needs at least 2");
}

// count * bandwidth in bit/s, saturating at 2^63-1.
u128 times(u128 count, Bandwidth bw) { return count * static_cast<u64>(bw.bps()); }
std::int64_t clamp_bps(u128 v) {
  constexpr auto kMax = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(std::min(v, kMax));
}

LinkId link(Topology& t, NodeId a, NodeId b, const LinkSpec& l, LinkMedium medium = LinkMedium::Network) {
  return t.add_link(a, b, l.bandwidth, l.latency, medium);
}

void add_hosts(Topology& t, u64 count) {
  for (u64 h = 0; h < count; ++h)
    t.add_node("h" + std::to_string(h), NodeKind::Host, {}, static_cast<std::uint32_t>(h));
}

}  // namespace

Topology make_fat_tree(const FatTreeParams& p) {
  if (p.k < 2 || p.k % 2 != 0)
    throw ParameterError("k", "k must be even and at least 2, found " + std::to_string(p.k));
  check_at_least("oversubscription", p.oversubscription, 1);
  const u64 k = p.k;
  const u64 half = k / 2;
  const u128 per_edge = static_cast<u128>(p.oversubscription) * half;  // hosts per edge switch
  const u128 hosts = static_cast<u128>(k) * half * per_edge;           // o*k^3/4
  // Nodes: hosts + k*k/2 edge + k*k/2 aggregation + (k/2)^2 core; links: one per host,
  // k*(k/2)^2 edge-aggregation, k*(k/2)^2 aggregation-core.
  check_size("k", hosts + k * half * 2 + half * half, hosts + static_cast<u128>(2) * k * half * half);
  check_ports("oversubscription", per_edge + half);
  check_ports("k", k);
  const LinkSpec host_link = p.host_link.value_or(p.link);
  check_link("link", p.link);
  check_link("host_link", host_link);

  Topology t;
  t.set_kind("fat_tree");
  t.set_name("fat_tree_k" + std::to_string(k));
  add_hosts(t, static_cast<u64>(hosts));
  const auto first_edge = static_cast<NodeId>(hosts);
  const auto first_agg = static_cast<NodeId>(first_edge + k * half);
  const auto first_core = static_cast<NodeId>(first_agg + k * half);
  for (u64 pod = 0; pod < k; ++pod)
    for (u64 e = 0; e < half; ++e)
      t.add_node("pod" + std::to_string(pod) + "_edge" + std::to_string(e), NodeKind::Switch, p.switch_params);
  for (u64 pod = 0; pod < k; ++pod)
    for (u64 a = 0; a < half; ++a)
      t.add_node("pod" + std::to_string(pod) + "_agg" + std::to_string(a), NodeKind::Switch, p.switch_params);
  for (u64 c = 0; c < half * half; ++c) t.add_node("core" + std::to_string(c), NodeKind::Switch, p.switch_params);

  for (u64 h = 0; h < static_cast<u64>(hosts); ++h)
    link(t, static_cast<NodeId>(h), static_cast<NodeId>(first_edge + h / static_cast<u64>(per_edge)), host_link);
  for (u64 pod = 0; pod < k; ++pod)
    for (u64 e = 0; e < half; ++e)
      for (u64 a = 0; a < half; ++a)
        link(t, static_cast<NodeId>(first_edge + pod * half + e), static_cast<NodeId>(first_agg + pod * half + a), p.link);
  for (u64 pod = 0; pod < k; ++pod)
    for (u64 a = 0; a < half; ++a)
      for (u64 i = 0; i < half; ++i)
        link(t, static_cast<NodeId>(first_agg + pod * half + a), static_cast<NodeId>(first_core + a * half + i), p.link);

  // Bisection. Upper bounds: isolate half of the hosts (H/2 host links), or put half of the pods
  // on each side (cuts the k/2 core links of each of the k/2 aggregation switches of k/2 pods:
  // k^3/8 links = (H/2)/o). Lower bound: a matching across any balanced cut can run at
  // r = min(host_bw, link_bw/o) per host, each edge switch spreading its traffic evenly over its
  // k/2 aggregation switches and each of those over its k/2 cores: an edge switch sends at most
  // o*k/2*r <= k/2*link_bw, so no link carries more than link_bw, and symmetrically downwards.
  // (H/2)*r equals the smaller of the two cuts, so it is exact.
  const u128 host_cut = times(hosts / 2, host_link.bandwidth);
  const u128 pod_cut = times(static_cast<u128>(k) * k * k / 8, p.link.bandwidth);
  t.set_closed_form_bisection({clamp_bps(std::min(host_cut, pod_cut)), true, "min(H/2*host_bw, k^3/8*link_bw)"});
  return t;
}

Topology make_leaf_spine(const LeafSpineParams& p) {
  check_at_least("leaves", p.leaves, 1);
  check_at_least("hosts_per_leaf", p.hosts_per_leaf, 1);
  check_at_least("uplinks_per_spine", p.uplinks_per_spine, 1);
  if (p.leaves > 1) check_at_least("spines", p.spines, 1);
  const u64 L = p.leaves, S = p.spines, n = p.hosts_per_leaf, u = p.uplinks_per_spine;
  const u128 hosts = static_cast<u128>(L) * n;
  check_hosts("hosts_per_leaf", hosts);
  check_size("leaves", hosts + L + S, hosts + static_cast<u128>(L) * S * u);
  check_ports("hosts_per_leaf", static_cast<u128>(n) + static_cast<u128>(S) * u);
  check_ports("leaves", static_cast<u128>(L) * u);
  const LinkSpec host_link = p.host_link.value_or(p.link);
  check_link("link", p.link);
  check_link("host_link", host_link);

  Topology t;
  t.set_kind("leaf_spine");
  t.set_name("leaf_spine_" + std::to_string(L) + "x" + std::to_string(n) + "_s" + std::to_string(S));
  add_hosts(t, static_cast<u64>(hosts));
  const auto first_leaf = static_cast<NodeId>(hosts);
  const auto first_spine = static_cast<NodeId>(first_leaf + L);
  for (u64 l = 0; l < L; ++l) t.add_node("leaf" + std::to_string(l), NodeKind::Switch, p.switch_params);
  for (u64 s = 0; s < S; ++s) t.add_node("spine" + std::to_string(s), NodeKind::Switch, p.switch_params);
  for (u64 h = 0; h < static_cast<u64>(hosts); ++h)
    link(t, static_cast<NodeId>(h), static_cast<NodeId>(first_leaf + h / n), host_link);
  for (u64 l = 0; l < L; ++l)
    for (u64 s = 0; s < S; ++s)
      for (u64 m = 0; m < u; ++m) link(t, static_cast<NodeId>(first_leaf + l), static_cast<NodeId>(first_spine + s), p.link);

  // Bisection, exact: j*min(n*host_bw, U) + r*host_bw with U = S*u*link_bw (a leaf's uplinks),
  // j = floor(L/2) whole leaves on side B and r = floor(L*n/2) - j*n hosts of one more leaf.
  // Why: fix the side of every switch. A host away from its leaf costs host_bw; a leaf costs
  // the bandwidth to the spines on the other side (beta per leaf on side A, U-beta on side B).
  // A leaf's cost as a function of how many of its hosts are on side B is the minimum of two
  // linear functions (leaf on A: beta + y*host_bw; on B: U-beta + (n-y)*host_bw), so concave, and
  // a sum of concave functions over {sum y = H/2, 0 <= y <= n} is smallest at a vertex: j leaves
  // with y = n, one with y = r, the rest y = 0. For that vertex the cost is
  // j*[min(beta + n*hbw, U-beta) + min(beta, U-beta + n*hbw)] + min(beta + r*hbw, U-beta + (n-r)*hbw),
  // and the bracket is >= min(n*hbw, U) and the last term >= r*hbw (as r <= n-r) for every
  // beta, with equality at beta = 0 (all spines on side A).
  const u128 U = times(static_cast<u128>(S) * u, p.link.bandwidth);
  const u128 j = L / 2;
  const u128 r = hosts / 2 - j * n;
  const u128 bis = j * std::min(times(n, host_link.bandwidth), U) + times(r, host_link.bandwidth);
  t.set_closed_form_bisection(
      {clamp_bps(bis), true, "floor(L/2)*min(n*host_bw, S*u*link_bw) + (floor(L*n/2) - floor(L/2)*n)*host_bw"});
  return t;
}

Topology make_rail(const RailParams& p) {
  check_at_least("servers", p.servers, 1);
  check_at_least("gpus_per_server", p.gpus_per_server, 1);
  check_at_least("uplinks_per_spine", p.uplinks_per_spine, 1);
  const u64 N = p.servers, G = p.gpus_per_server, u = p.uplinks_per_spine, S = p.spines;
  const u64 P = p.servers_per_leaf == 0 ? N : std::min<u64>(p.servers_per_leaf, N);
  const u64 Lr = (N + P - 1) / P;  // leaves per rail
  const u128 hosts = static_cast<u128>(N) * G;
  check_hosts("gpus_per_server", hosts);
  // Paths do not pass through GPUs: without spines, GPUs on different rails (or under different
  // leaves of a rail) of different servers cannot reach each other.
  if (S == 0 && N > 1 && G * Lr > 1)
    throw ParameterError("spines", "spines must be at least 1: without spines, GPUs of different servers on different "
                                   "rails or leaves cannot reach each other (paths do not pass through GPUs)");
  check_size("servers", hosts + N + static_cast<u128>(G) * Lr + S,
             2 * hosts + static_cast<u128>(G) * Lr * S * u);
  check_ports("gpus_per_server", G);
  check_ports("servers_per_leaf", static_cast<u128>(P) + static_cast<u128>(S) * u);
  check_ports("servers", static_cast<u128>(G) * Lr * u);
  check_link("nvlink", p.nvlink);
  check_link("nic", p.nic);
  check_link("fabric_link", p.fabric_link);

  Topology t;
  t.set_kind("rail");
  t.set_name("rail_" + std::to_string(N) + "x" + std::to_string(G));
  for (u64 s = 0; s < N; ++s)
    for (u64 g = 0; g < G; ++g)
      t.add_node("s" + std::to_string(s) + "g" + std::to_string(g), NodeKind::Host, {}, static_cast<std::uint32_t>(s));
  const auto first_nvs = static_cast<NodeId>(hosts);
  const auto first_leaf = static_cast<NodeId>(first_nvs + N);
  const auto first_spine = static_cast<NodeId>(first_leaf + G * Lr);
  for (u64 s = 0; s < N; ++s) t.add_node("nvs" + std::to_string(s), NodeKind::NvSwitch, p.nvswitch_params);
  for (u64 g = 0; g < G; ++g)
    for (u64 l = 0; l < Lr; ++l)
      t.add_node("rail" + std::to_string(g) + "leaf" + std::to_string(l), NodeKind::Switch, p.switch_params);
  for (u64 j = 0; j < S; ++j) t.add_node("spine" + std::to_string(j), NodeKind::Switch, p.switch_params);
  for (u64 s = 0; s < N; ++s)
    for (u64 g = 0; g < G; ++g)
      link(t, static_cast<NodeId>(s * G + g), static_cast<NodeId>(first_nvs + s), p.nvlink, LinkMedium::NvLink);
  for (u64 s = 0; s < N; ++s)
    for (u64 g = 0; g < G; ++g)
      link(t, static_cast<NodeId>(s * G + g), static_cast<NodeId>(first_leaf + g * Lr + s / P), p.nic);
  for (u64 g = 0; g < G; ++g)
    for (u64 l = 0; l < Lr; ++l)
      for (u64 j = 0; j < S; ++j)
        for (u64 m = 0; m < u; ++m)
          link(t, static_cast<NodeId>(first_leaf + g * Lr + l), static_cast<NodeId>(first_spine + j), p.fabric_link);

  // Bisection. The cut (N even): servers go whole, with their NVSwitch and GPUs, N/2 to side B:
  // j = floor(N/2 / P) whole leaves of each rail with their servers (each leaf costs the cheaper of
  // its uplinks U = S*u*fabric_bw and its servers' NIC links P*nic_bw) and rem = N/2 - j*P more
  // servers, whose NIC links are cut: G*(j*min(P*nic_bw, U) + rem*nic_bw).
  // Lower bound: any matching of GPUs can run at r = min(nic_bw, nvlink_bw*G/(2(G-1)), U/P (only
  // with more than one leaf per rail)): each GPU spreads its traffic evenly over the G GPUs of
  // its server (through the NVSwitch), each of those sends it on its rail to the GPU of the same
  // rail in the destination server, which passes it on through that server's NVSwitch. A NIC then
  // carries r, an NVLink direction 2r(G-1)/G (own traffic plus transit), a leaf's uplinks P*r.
  // Exact when the cut equals (H/2)*r, which holds in the usual case (N even, NVLink at least
  // 2(G-1)/G times as fast as the NIC, leaves not oversubscribed or an even number of them per
  // rail); otherwise the cut is reported as an upper bound.
  if (N % 2 == 0) {
    const u128 U = times(static_cast<u128>(S) * u, p.fabric_link.bandwidth);
    const u128 j = (N / 2) / P;
    const u128 rem = N / 2 - j * P;
    const u128 cut = G * (j * std::min(times(P, p.nic.bandwidth), U) + times(rem, p.nic.bandwidth));
    const u128 half = hosts / 2;
    bool exact = cut <= times(half, p.nic.bandwidth);
    if (G > 1) exact = exact && cut * 2 * (G - 1) <= times(half * G, p.nvlink.bandwidth);
    if (Lr > 1) exact = exact && cut * P <= half * U;
    t.set_closed_form_bisection({clamp_bps(cut), exact,
                                 "G*(j*min(P*nic_bw, S*u*fabric_bw) + (N/2 - j*P)*nic_bw), j = floor(N/2/P): "
                                 "servers split in halves"});
  }
  return t;
}

Topology make_dragonfly(const DragonflyParams& p) {
  check_at_least("groups", p.groups, 1);
  check_at_least("routers_per_group", p.routers_per_group, 1);
  check_at_least("hosts_per_router", p.hosts_per_router, 1);
  const u64 g = p.groups, a = p.routers_per_group, hp = p.hosts_per_router, h = p.global_links_per_router;
  if (g > 1) check_at_least("global_links_per_router", p.global_links_per_router, 1);
  if (g > 1 && g > a * h + 1)
    throw ParameterError("groups", "groups = " + std::to_string(g) + " leaves pairs of groups without a global link: " +
                                       std::to_string(a) + " routers with " + std::to_string(h) +
                                       " global links each reach at most " + std::to_string(a * h + 1) + " groups");
  const u128 hosts = static_cast<u128>(g) * a * hp;
  check_hosts("hosts_per_router", hosts);
  check_size("groups", hosts + static_cast<u128>(g) * a,
             hosts + static_cast<u128>(g) * a * (a - 1) / 2 + static_cast<u128>(g) * a * h / 2);
  check_ports("routers_per_group", static_cast<u128>(hp) + (a - 1) + h);
  const LinkSpec host_link = p.host_link.value_or(p.link);
  const LinkSpec local_link = p.local_link.value_or(p.link);
  const LinkSpec global_link = p.global_link.value_or(p.link);
  check_link("host_link", host_link);
  check_link("local_link", local_link);
  check_link("global_link", global_link);

  Topology t;
  t.set_kind("dragonfly");
  t.set_name("dragonfly_" + std::to_string(g) + "x" + std::to_string(a) + "x" + std::to_string(hp));
  add_hosts(t, static_cast<u64>(hosts));
  const auto first_router = static_cast<NodeId>(hosts);
  auto router = [&](u64 group, u64 r) { return static_cast<NodeId>(first_router + group * a + r); };
  for (u64 i = 0; i < g; ++i)
    for (u64 r = 0; r < a; ++r)
      t.add_node("g" + std::to_string(i) + "r" + std::to_string(r), NodeKind::Switch, p.switch_params);
  for (u64 x = 0; x < static_cast<u64>(hosts); ++x)
    link(t, static_cast<NodeId>(x), static_cast<NodeId>(first_router + x / hp), host_link);
  for (u64 i = 0; i < g; ++i)
    for (u64 r1 = 0; r1 < a; ++r1)
      for (u64 r2 = r1 + 1; r2 < a; ++r2) link(t, router(i, r1), router(i, r2), local_link);
  u128 split_links = 0;  // global links between groups [0, g/2) and [g/2, g)
  if (g > 1) {
    const u64 ports = a * h;
    for (u64 i = 0; i < g; ++i)
      for (u64 q = 0; q < ports; ++q) {
        const u64 offset = q % (g - 1);
        const u64 copy = q / (g - 1);
        const u64 j = (i + 1 + offset) % g;
        const u64 q2 = copy * (g - 1) + (g - 2 - offset);
        if (q2 >= ports || j < i) continue;  // partner port missing, or added from group j
        link(t, router(i, q / h), router(j, q2 / h), global_link);
        if ((i < g / 2) != (j < g / 2)) ++split_links;
      }
  }
  t.set_dragonfly({static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(hp)});

  // Bisection: no closed form for the smallest cut in general (it may split groups). Upper
  // bound: the better of isolating half of the hosts and, with an even number of groups, putting
  // half of the groups on each side (cuts the global links between the halves; (g/2)^2 of them
  // when each pair of groups has one). compute_metrics() also tries METIS.
  u128 cut = times(hosts / 2, host_link.bandwidth);
  std::string formula = "H/2*host_bw";
  if (g > 1 && g % 2 == 0) {
    cut = std::min(cut, times(split_links, global_link.bandwidth));
    formula = "min(H/2*host_bw, global links between group halves*global_bw)";
  }
  t.set_closed_form_bisection({clamp_bps(cut), false, formula});
  return t;
}

Topology make_torus(const TorusParams& p) {
  if (p.dims.size() < 2 || p.dims.size() > 3)
    throw ParameterError("dims", "dims must have 2 or 3 entries, found " + std::to_string(p.dims.size()));
  for (std::uint32_t d : p.dims)
    if (d < 2) throw ParameterError("dims", "every dimension must be at least 2, found " + std::to_string(d));
  check_at_least("hosts_per_switch", p.hosts_per_switch, 1);
  u128 n128 = 1;
  for (std::uint32_t d : p.dims) n128 *= d;
  check_size("dims", n128 * (1 + static_cast<u128>(p.hosts_per_switch)),
             n128 * (p.hosts_per_switch + static_cast<u128>(p.dims.size())));
  check_ports("hosts_per_switch", static_cast<u128>(p.hosts_per_switch) + 2 * p.dims.size());
  const LinkSpec host_link = p.host_link.value_or(p.link);
  check_link("link", p.link);
  check_link("host_link", host_link);
  const auto N = static_cast<u64>(n128);
  const u64 hp = p.hosts_per_switch;
  const u64 hosts = N * hp;

  Topology t;
  t.set_kind("torus");
  std::string shape;
  for (std::size_t k = 0; k < p.dims.size(); ++k) shape += (k ? "x" : "") + std::to_string(p.dims[k]);
  t.set_name("torus_" + shape);
  add_hosts(t, hosts);
  const auto first_switch = static_cast<NodeId>(hosts);
  std::vector<u64> x(p.dims.size());
  auto coords = [&](u64 i) {
    for (std::size_t k = 0; k < p.dims.size(); ++k) {
      x[k] = i % p.dims[k];
      i /= p.dims[k];
    }
  };
  auto index = [&](const std::vector<u64>& c) {
    u64 i = 0;
    for (std::size_t k = p.dims.size(); k-- > 0;) i = i * p.dims[k] + c[k];
    return i;
  };
  for (u64 i = 0; i < N; ++i) {
    coords(i);
    std::string name = "sw";
    for (std::size_t k = 0; k < x.size(); ++k) name += (k ? "_" : "") + std::to_string(x[k]);
    t.add_node(std::move(name), NodeKind::Switch, p.switch_params);
  }
  for (u64 h = 0; h < hosts; ++h) link(t, static_cast<NodeId>(h), static_cast<NodeId>(first_switch + h / hp), host_link);
  for (u64 i = 0; i < N; ++i)
    for (std::size_t k = 0; k < p.dims.size(); ++k) {
      coords(i);
      if (p.dims[k] == 2 && x[k] == 1) continue;  // the single link of a size-2 ring, added from x = 0
      x[k] = (x[k] + 1) % p.dims[k];
      link(t, static_cast<NodeId>(first_switch + i), static_cast<NodeId>(first_switch + index(x)), p.link);
    }
  t.set_torus({p.dims});

  // Bisection. Cut across the largest dimension d: every ring along it is cut twice (2N/d
  // links; a ring of size 2 is a single link, N/2), or isolate half of the hosts (H/2 host
  // links). Exact when d is even: the edge-isoperimetric (Cheeger) constant of such a torus is
  // W/(N/2) (every set of m <= N/2 switches has at least m*W/(N/2) links leaving it), so a cut
  // with m switches on its smaller side and hosts moved away from their switches to balance it
  // costs at least (2m/N)*W*link_bw + (1-2m/N)*(H/2)*host_bw >= min(W*link_bw, H/2*host_bw).
  // With d odd no balanced cut across d exists; then the cut across the largest even dimension
  // (if any) is an upper bound, and compute_metrics() also tries METIS.
  const std::uint32_t d_max = *std::max_element(p.dims.begin(), p.dims.end());
  std::uint32_t d_even = 0;
  for (std::uint32_t d : p.dims)
    if (d % 2 == 0) d_even = std::max(d_even, d);
  u128 cut = times(hosts / 2, host_link.bandwidth);
  if (d_even > 0) {
    const u128 W = d_even == 2 ? N / 2 : 2 * N / d_even;
    cut = std::min(cut, times(W, p.link.bandwidth));
  }
  t.set_closed_form_bisection({clamp_bps(cut), d_max % 2 == 0,
                               "min(H/2*host_bw, W*link_bw), W = 2N/d (N/2 if d = 2) links across the largest even "
                               "dimension d"});
  return t;
}

}  // namespace collsim::topo
