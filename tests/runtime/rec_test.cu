// Recursion worklist (nestor/rec.cuh, rec-flat): on seeded trees (a root with
// no children, a chain, a star wider than the largest grid of one level, random
// trees with leaves and hubs) a level kernel visits every (node, child) pair
// and pushes children that have children. Checked: every non-root node is
// visited exactly once, from its parent (owner() and the scan), the levels'
// sizes equal the internal nodes per depth, and a post-order pass deepest level
// first computes every subtree size exactly (non-atomic sums: a pass that ran
// before the level below it was done gives wrong counts). owner() is also
// checked alone on scans with zero-length runs.
#include <nestor/rec.cuh>
#include "runtime_test_util.cuh"

#include <algorithm>
#include <cstring>

using namespace nestor;

__global__ void visit_level(const unsigned *off, const unsigned *kids, unsigned *visits, unsigned *parent_seen,
                            const unsigned *frontier, const unsigned *first, unsigned nodes, unsigned pairs, unsigned *next,
                            unsigned *next_count) {
  for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += gridDim.x * blockDim.x) {
    const unsigned f = rec::owner(first, nodes, p);
    const unsigned node = frontier[f];
    const unsigned child = kids[off[node] + (p - first[f])];
    atomicAdd(&visits[child], 1u);
    parent_seen[child] = node;
    if (off[child + 1] > off[child]) rec::push(next, next_count, child);
  }
}

__global__ void sum_children(const unsigned *off, const unsigned *kids, unsigned *size, const unsigned *frontier, unsigned nodes) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < nodes; i += gridDim.x * blockDim.x) {
    const unsigned n = frontier[i];
    unsigned s = 1;
    for (unsigned c = off[n]; c < off[n + 1]; ++c) s += size[kids[c]];
    size[n] = s;
  }
}

__global__ void owners(const unsigned *first, unsigned nodes, unsigned pairs, unsigned *out) {
  for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += gridDim.x * blockDim.x)
    out[p] = rec::owner(first, nodes, p);
}

struct host_tree {
  std::vector<unsigned> off{0}, kids, parent{~0u}, depth{0};
};

host_tree make(const char *kind, unsigned n, std::mt19937_64 &rng) {
  host_tree t;
  for (unsigned v = 0; v < t.parent.size(); ++v) {
    unsigned want = 0, room = n - unsigned(t.parent.size());
    if (!std::strcmp(kind, "chain")) want = 1;
    else if (!std::strcmp(kind, "star")) want = v == 0 ? room : 0;
    else if (!std::strcmp(kind, "random")) want = rng() % 3 == 0 ? unsigned(rng() % (rng() % 8 == 0 ? 600 : 6)) : 0;
    if (v == 0 && !std::strcmp(kind, "random")) want = 5;
    want = std::min(want, room);
    for (unsigned k = 0; k < want; ++k) {
      t.kids.push_back(unsigned(t.parent.size()));
      t.parent.push_back(v);
      t.depth.push_back(t.depth[v] + 1);
    }
    t.off.push_back(unsigned(t.kids.size()));
  }
  return t;
}

template <class T> T *upload(const std::vector<T> &v) {
  T *d = nullptr;
  NESTOR_CUDA_CHECK(cudaMalloc(&d, (v.size() + 1) * sizeof(T)));
  if (!v.empty()) NESTOR_CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(12);
  struct tcase { const char *kind; unsigned n; };
  for (tcase c : {tcase{"leaf", 1}, tcase{"chain", 300}, tcase{"star", 70001}, tcase{"random", 5000}, tcase{"random", 200000}}) {
    host_tree t = make(c.kind, c.n, rng);
    const unsigned n = unsigned(t.parent.size());
    unsigned *off = upload(t.off), *kids = upload(t.kids), *visits = upload(std::vector<unsigned>(n, 0)),
             *seen = upload(std::vector<unsigned>(n, ~0u)), *size = upload(std::vector<unsigned>(n, 1)); // a leaf is a subtree of one
    for (int run = 0; run < 2; ++run) { // the second run reuses the cached buffers
      NESTOR_CUDA_CHECK(cudaMemset(visits, 0, n * sizeof(unsigned)));
      rec::level_worklist<unsigned> wl(0u);
      while (wl.expand(off)) {
        visit_level<<<wl.blocks(), wl.block_size>>>(off, kids, visits, seen, wl.frontier(), wl.first(), wl.nodes(), wl.pairs(),
                                                    wl.next(), wl.next_count());
        wl.advance();
      }
      // Internal nodes per depth (the root is level 0 whatever its degree).
      std::vector<unsigned> want_sizes{1};
      for (unsigned v = 1; v < n; ++v)
        if (t.off[v + 1] > t.off[v]) {
          if (want_sizes.size() <= t.depth[v]) want_sizes.resize(t.depth[v] + 1, 0);
          ++want_sizes[t.depth[v]];
        }
      NESTOR_EXPECT(ck, wl.levels(), want_sizes.size(), std::string(c.kind) + " levels");
      for (size_t L = 0; L < wl.levels() && L < want_sizes.size(); ++L)
        NESTOR_EXPECT(ck, wl.level_size(L), want_sizes[L], std::string(c.kind) + " level " + std::to_string(L) + " size");
      for (size_t L = wl.levels(); L-- > 0;)
        sum_children<<<wl.blocks_for(wl.level_size(L)), wl.block_size>>>(off, kids, size, wl.level_nodes(L), wl.level_size(L));
      NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<unsigned> got_visits(n), got_seen(n), got_size(n), want_size(n, 1);
      NESTOR_CUDA_CHECK(cudaMemcpy(got_visits.data(), visits, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
      NESTOR_CUDA_CHECK(cudaMemcpy(got_seen.data(), seen, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
      NESTOR_CUDA_CHECK(cudaMemcpy(got_size.data(), size, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
      for (unsigned v = n; v-- > 1;) want_size[t.parent[v]] += want_size[v];
      for (unsigned v = 0; v < n; ++v) {
        NESTOR_EXPECT(ck, got_visits[v], v == 0 ? 0u : 1u, std::string(c.kind) + " visits of " + std::to_string(v));
        if (v > 0) NESTOR_EXPECT(ck, got_seen[v], t.parent[v], std::string(c.kind) + " parent of " + std::to_string(v));
        if (t.off[v + 1] > t.off[v] || v == 0)
          NESTOR_EXPECT(ck, got_size[v], want_size[v], std::string(c.kind) + " subtree of " + std::to_string(v));
      }
    }
    cudaFree(off), cudaFree(kids), cudaFree(visits), cudaFree(seen), cudaFree(size);
  }
  // owner() alone: runs of length 0..4, leading and trailing empty runs.
  for (unsigned nodes : {1u, 2u, 33u, 1000u}) {
    std::vector<unsigned> first{0};
    for (unsigned i = 0; i < nodes; ++i) first.push_back(first.back() + unsigned(rng() % 5) * (i % 7 != 3));
    const unsigned pairs = first.back();
    unsigned *d_first = upload(first), *d_out = upload(std::vector<unsigned>(pairs + 1, 0));
    owners<<<(pairs + 255) / 256 + 1, 256>>>(d_first, nodes, pairs, d_out);
    std::vector<unsigned> got(pairs + 1);
    NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), d_out, (pairs + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned p = 0; p < pairs; ++p) {
      const unsigned f = got[p];
      NESTOR_EXPECT_TRUE(ck, f < nodes && first[f] <= p && p < first[f + 1],
                         "owner of pair " + std::to_string(p) + " of " + std::to_string(nodes) + " is " + std::to_string(f));
    }
    cudaFree(d_first), cudaFree(d_out);
  }
  return ck.finish("runtime_rec_test");
}
