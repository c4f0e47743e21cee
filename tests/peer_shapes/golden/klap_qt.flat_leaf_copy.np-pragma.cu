// peer-shape: dp-threshold-coarsen-aggregate-thesis (KLAP) QT, quadtree construction
//
// Quadtree construction in the shape of KLAP's QT application (the CUDA
// samples' dynamic-parallelism quadtree): one block per node counts its
// points per quadrant in __shared__ counters, a barrier, one thread lays out
// the four children's ranges, the block scatters the points into the other
// buffer, and one thread launches the next level: a grid of four blocks, one
// per child, until a node is deep enough or holds few points; a leaf copies
// its points to the result. Written here, in that style. Children live at
// 4 * node + 1 .. 4 * node + 4 of one array (a complete quadtree's numbering).
// The order of the points inside a leaf depends on the scatter's atomics, so
// the result is every node's range and every leaf's points sorted.
//
// --flat selects the hand-written non-nested version: the same block per
// node, one host launch per level.
// The program checks every node's range and every leaf's points against a
// serial construction.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I tests/peer_shapes klap_qt.cu -lcudadevrt
#include <algorithm>

#include "peer_shapes.h"

#define QT_BLOCK 128

struct QtNode {
  unsigned begin, end;  // points [begin, end) of the point arrays
  int x0, y0, x1, y1;   // bounding box [x0, x1) x [y0, y1)
};

__host__ __device__ inline unsigned qt_quadrant(const QtNode &node, int x, int y) {
  int mx = node.x0 + (node.x1 - node.x0) / 2, my = node.y0 + (node.y1 - node.y0) / 2;
  return (x >= mx ? 1u : 0u) + (y >= my ? 2u : 0u);
}

__host__ __device__ inline QtNode qt_child(const QtNode &node, unsigned q, unsigned begin, unsigned end) {
  int mx = node.x0 + (node.x1 - node.x0) / 2, my = node.y0 + (node.y1 - node.y0) / 2;
  QtNode c;
  c.begin = begin;
  c.end = end;
  c.x0 = q & 1 ? mx : node.x0;
  c.x1 = q & 1 ? node.x1 : mx;
  c.y0 = q & 2 ? my : node.y0;
  c.y1 = q & 2 ? node.y1 : my;
  return c;
}

__global__ void qt_build(QtNode *nodes, unsigned first, int *in_x, int *in_y, int *out_x, int *out_y,
                         int *leaf_x, int *leaf_y, int depth, int max_depth, unsigned min_points) {
  __shared__ unsigned counts[4], cursor[4];
  const unsigned id = first + blockIdx.x;
  const QtNode node = nodes[id];
  const unsigned n = node.end - node.begin;
  if (depth >= max_depth || n <= min_points) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) { // peer-site: leaf_copy
      leaf_x[node.begin + i] = in_x[node.begin + i];
      leaf_y[node.begin + i] = in_y[node.begin + i];
    }
    return;
  }
  if (threadIdx.x < 4) counts[threadIdx.x] = 0;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) // peer-site: count_loop
    atomicAdd(&counts[qt_quadrant(node, in_x[node.begin + i], in_y[node.begin + i])], 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned begin = node.begin;
    for (unsigned q = 0; q < 4; ++q) {
      cursor[q] = begin;
      nodes[4 * id + 1 + q] = qt_child(node, q, begin, begin + counts[q]);
      begin += counts[q];
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
    int x = in_x[node.begin + i], y = in_y[node.begin + i];
    unsigned at = atomicAdd(&cursor[qt_quadrant(node, x, y)], 1u);
    out_x[at] = x;
    out_y[at] = y;
  }
  __syncthreads();
  if (threadIdx.x == 0)
    qt_build<<<4, QT_BLOCK>>>(nodes, 4 * id + 1, out_x, out_y, in_x, in_y, leaf_x, leaf_y, depth + 1, max_depth, min_points); // peer-site: child_launch
}

// The non-nested version (--flat): the same node's work, one level per host launch.
__global__ void qt_build_level(QtNode *nodes, unsigned first, const int *in_x, const int *in_y, int *out_x,
                               int *out_y, int *leaf_x, int *leaf_y, int depth, int max_depth, unsigned min_points) {
  __shared__ unsigned counts[4], cursor[4];
  const unsigned id = first + blockIdx.x;
  const QtNode node = nodes[id];
  const unsigned n = node.end - node.begin;
  if (n == 0 && node.x0 == node.x1) return;  // no such node: an ancestor was a leaf
  if (depth >= max_depth || n <= min_points) {
    #pragma np parallel for
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) { // peer-site: flat_leaf_copy --flat
      leaf_x[node.begin + i] = in_x[node.begin + i];
      leaf_y[node.begin + i] = in_y[node.begin + i];
    }
    return;
  }
  if (threadIdx.x < 4) counts[threadIdx.x] = 0;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) // peer-site: flat_count_loop --flat
    atomicAdd(&counts[qt_quadrant(node, in_x[node.begin + i], in_y[node.begin + i])], 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned begin = node.begin;
    for (unsigned q = 0; q < 4; ++q) {
      cursor[q] = begin;
      nodes[4 * id + 1 + q] = qt_child(node, q, begin, begin + counts[q]);
      begin += counts[q];
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
    int x = in_x[node.begin + i], y = in_y[node.begin + i];
    unsigned at = atomicAdd(&cursor[qt_quadrant(node, x, y)], 1u);
    out_x[at] = x;
    out_y[at] = y;
  }
}

int main(int argc, char **argv) {
  const bool flat = peer::take_switch(argc, argv, "--flat");
  graph::options opt;
  try {
    opt = graph::parse_options(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "klap_qt: %s\n%s  --vertices N: the number of points; --degree D: the most points of a leaf\n"
                 "  --flat  the non-nested version\n", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = opt.vertices, min_points = opt.degree;
  const int max_depth = 6, side = 1 << 16;
  const unsigned node_count = ((1u << (2 * (max_depth + 1))) - 1) / 3;  // every node of a depth-6 quadtree
  // Points clustered around a few centres, so that the tree is uneven.
  graph::rng r(opt.seed);
  std::vector<int> xs(n), ys(n);
  for (unsigned i = 0; i < n; ++i) {
    const int cx = int(r.below(4)) * side / 4 + side / 8, cy = int(r.below(4)) * side / 4 + side / 8;
    const int spread = r.below(2) ? side / 64 : side / 8;
    xs[i] = std::clamp(cx + int(r.below(2 * spread)) - spread, 0, side - 1);
    ys[i] = std::clamp(cy + int(r.below(2 * spread)) - spread, 0, side - 1);
  }
  std::vector<QtNode> nodes(node_count, QtNode{0, 0, 0, 0, 0, 0});
  nodes[0] = QtNode{0, n, 0, 0, side, side};
  PEER_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, node_count + 4096));
  QtNode *d_nodes = peer::to_device(nodes);
  int *d_x[2] = {peer::to_device(xs), peer::to_device(xs)}, *d_y[2] = {peer::to_device(ys), peer::to_device(ys)};
  int *d_leaf_x = peer::to_device(xs), *d_leaf_y = peer::to_device(ys);
  const double ms = peer::timed(
      opt.reps,
      [&] {
        PEER_CHECK(cudaMemcpy(d_nodes, nodes.data(), node_count * sizeof(QtNode), cudaMemcpyHostToDevice));
        PEER_CHECK(cudaMemcpy(d_x[0], xs.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        PEER_CHECK(cudaMemcpy(d_y[0], ys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
      },
      [&] {
        if (!flat) {
          qt_build<<<1, QT_BLOCK>>>(d_nodes, 0, d_x[0], d_y[0], d_x[1], d_y[1], d_leaf_x, d_leaf_y, 0, max_depth,
                                    min_points);
          return;
        }
        for (int depth = 0; depth <= max_depth; ++depth) {
          const unsigned first = ((1u << (2 * depth)) - 1) / 3;
          qt_build_level<<<1u << (2 * depth), QT_BLOCK>>>(d_nodes, first, d_x[depth % 2], d_y[depth % 2],
                                                          d_x[(depth + 1) % 2], d_y[(depth + 1) % 2], d_leaf_x,
                                                          d_leaf_y, depth, max_depth, min_points);
        }
      });
  const std::vector<QtNode> got_nodes = peer::from_device(d_nodes, node_count);
  std::vector<int> got_x = peer::from_device(d_leaf_x, n), got_y = peer::from_device(d_leaf_y, n);

  // The serial construction: the same ranges (points counted per quadrant in
  // quadrant order), each leaf's points as a sorted list.
  std::vector<QtNode> want_nodes(node_count, QtNode{0, 0, 0, 0, 0, 0});
  want_nodes[0] = nodes[0];
  std::vector<int> want_x(n), want_y(n);
  std::vector<std::pair<unsigned, std::vector<std::pair<int, int>>>> stack;
  std::vector<std::pair<int, int>> all(n);
  for (unsigned i = 0; i < n; ++i) all[i] = {xs[i], ys[i]};
  stack.push_back({0, all});
  std::vector<int> depth(node_count, 0);
  std::vector<std::pair<unsigned, unsigned>> leaves;
  while (!stack.empty()) {
    auto [id, pts] = std::move(stack.back());
    stack.pop_back();
    const QtNode node = want_nodes[id];
    if (depth[id] >= max_depth || pts.size() <= min_points) {
      std::sort(pts.begin(), pts.end());
      for (size_t i = 0; i < pts.size(); ++i) {
        want_x[node.begin + i] = pts[i].first;
        want_y[node.begin + i] = pts[i].second;
      }
      leaves.push_back({node.begin, node.end});
      continue;
    }
    std::vector<std::pair<int, int>> part[4];
    for (auto p : pts) part[qt_quadrant(node, p.first, p.second)].push_back(p);
    unsigned begin = node.begin;
    for (unsigned q = 0; q < 4; ++q) {
      const unsigned child = 4 * id + 1 + q;
      want_nodes[child] = qt_child(node, q, begin, begin + unsigned(part[q].size()));
      depth[child] = depth[id] + 1;
      begin += unsigned(part[q].size());
      stack.push_back({child, std::move(part[q])});
    }
  }
  // The device's leaves, sorted the same way.
  for (auto [b, e] : leaves) {
    std::vector<std::pair<int, int>> pts;
    for (unsigned i = b; i < e; ++i) pts.push_back({got_x[i], got_y[i]});
    std::sort(pts.begin(), pts.end());
    for (unsigned i = b; i < e; ++i) {
      got_x[i] = pts[i - b].first;
      got_y[i] = pts[i - b].second;
    }
  }
  // The result: every node's range and box, then every point.
  std::vector<long long> result, expect;
  auto add_nodes = [&](const std::vector<QtNode> &from, std::vector<long long> &to) {
    for (const QtNode &q : from)
      for (long long f : {(long long)q.begin, (long long)q.end, (long long)q.x0, (long long)q.y0, (long long)q.x1,
                          (long long)q.y1})
        to.push_back(f);
  };
  add_nodes(got_nodes, result);
  add_nodes(want_nodes, expect);
  for (unsigned i = 0; i < n; ++i) {
    result.push_back(got_x[i]);
    result.push_back(got_y[i]);
    expect.push_back(want_x[i]);
    expect.push_back(want_y[i]);
  }
  if (!peer::matches("klap_qt", result, expect)) return 1;
  std::printf("klap_qt: %u points, %zu leaves\n", n, leaves.size());
  graph::csr shape;  // for the RESULT line: points as vertices
  shape.vertices = n;
  return peer::finish(flat ? "klap_qt_flat" : "klap_qt", opt, shape, ms, result);
}
