// peer-shape: irregular-loop-and-recursion-templates (Li, Wu, Becchi) PageRank
//
// Pull-style PageRank in the shape the templates paper evaluates (its
// reference [7], Duong et al.'s GPU PageRank; also one of the CTE paper's
// three graph applications): one thread per vertex, an inner loop over the
// vertex's in-edges collecting each source's rank divided by its out-degree
// (the irregular nested loop of the paper's Figure 1(a)), then the damped
// update. Written here, in that style. Ranks are fixed point (64-bit
// integers, 2^40 = rank 1.0), so the sum does not depend on the order the
// rewrites add in, and every variant agrees bit for bit; the damping and the
// division are done the same way by the serial reference, which the program
// checks after a fixed number of iterations.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes lwb_pagerank.cu
#include "peer_shapes.h"
#include <nestor/templates.cuh>

#define PR_ONE (1ull << 40)
#define PR_ITERATIONS 10

// Damping 0.85 as 85/100 of the collected rank plus (1 - 0.85) / n.
__host__ __device__ inline unsigned long long pr_damped(unsigned long long collected, unsigned n) {
  return collected / 100 * 85 + (PR_ONE / 100 * 15) / n;
}

__global__ void pagerank_contrib(unsigned n, const unsigned *out_degree, const unsigned long long *rank,
                                 unsigned long long *contrib) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) contrib[v] = out_degree[v] ? rank[v] / out_degree[v] : 0;
}

// The body of 'pagerank_pull' for the dbuf-global template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void pagerank_pull_nestor_body(unsigned n, const unsigned *in_start, const unsigned *in_source, const unsigned long long *contrib, unsigned long long *next_rank, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned long long sum = 0;
    // dbuf-global ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
    // trip count is 64 or more, or hands back its block-computed reduction.
    if (nestor_phase.defer(in_start[v], in_start[v + 1])) return;
    if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<unsigned long long>());
    else
      for (unsigned e = in_start[v]; e < in_start[v + 1]; ++e) // peer-site: pull_loop
        sum += contrib[in_source[e]];
    next_rank[v] = pr_damped(sum, n);
  }
}

__global__ void pagerank_pull(unsigned n, const unsigned *in_start, const unsigned *in_source,
                              const unsigned long long *contrib, unsigned long long *next_rank, nestor::tmpl::launch_state nestor_ls = {}) {
  // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): the thread-mapped
  // pass delays rows with 64 or more iterations to a global buffer; a second, block-mapped launch
  // reduces each and finishes its row (nestor::tmpl::launch_templates at the launch).
  nestor::tmpl::dispatch<unsigned long long>(nestor_ls, [=](unsigned int e) { return contrib[in_source[e]]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    pagerank_pull_nestor_body(n, in_start, in_source, contrib, next_rank, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

static std::vector<unsigned long long> serial_pagerank(const graph::csr &in, const std::vector<unsigned> &out_degree) {
  const unsigned n = in.vertices;
  std::vector<unsigned long long> rank(n, PR_ONE / n), contrib(n);
  for (int it = 0; it < PR_ITERATIONS; ++it) {
    for (unsigned v = 0; v < n; ++v) contrib[v] = out_degree[v] ? rank[v] / out_degree[v] : 0;
    for (unsigned v = 0; v < n; ++v) {
      unsigned long long sum = 0;
      for (unsigned e = in.offsets[v]; e < in.offsets[v + 1]; ++e) sum += contrib[in.targets[e]];
      rank[v] = pr_damped(sum, n);
    }
  }
  return rank;
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g, in;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
    in = peer::transposed(g);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "lwb_pagerank: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  std::vector<unsigned> out_degree(n);
  for (unsigned v = 0; v < n; ++v) out_degree[v] = g.degree(v);
  unsigned *d_in_start = peer::to_device(in.offsets), *d_in_source = peer::to_device(in.targets);
  unsigned *d_out_degree = peer::to_device(out_degree);
  const std::vector<unsigned long long> initial(n, PR_ONE / n);
  unsigned long long *d_rank = peer::to_device(initial), *d_contrib = peer::to_device(initial);
  const unsigned blocks = (n + 191) / 192;
  const double ms = peer::timed(
      opt.reps,
      [&] {
        PEER_CHECK(cudaMemcpy(d_rank, initial.data(), n * sizeof(unsigned long long), cudaMemcpyHostToDevice));
      },
      [&] {
        for (int it = 0; it < PR_ITERATIONS; ++it) {
          pagerank_contrib<<<blocks, 192>>>(n, d_out_degree, d_rank, d_contrib);
          nestor::tmpl::launch_templates(false, blocks, 192, 0, 64, [&](dim3 nestor_g, dim3 nestor_b, size_t nestor_sh, const nestor::tmpl::launch_state &nestor_ls) {
            pagerank_pull<<<nestor_g, nestor_b, nestor_sh>>>(n, d_in_start, d_in_source, d_contrib, d_rank, nestor_ls);
          });
        }
      });
  const std::vector<unsigned long long> rank = peer::from_device(d_rank, n);
  if (!peer::matches("lwb_pagerank", rank, serial_pagerank(in, out_degree))) return 1;
  return peer::finish("lwb_pagerank", opt, g, ms, rank);
}
