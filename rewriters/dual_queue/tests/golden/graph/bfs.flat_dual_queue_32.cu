// BFS, flat (no dynamic parallelism): the bench's no-CDP reference. One thread
// per vertex of the current level loops over its neighbours. Same command line,
// output file and RESULT line as examples/graph/bfs.cu, whose results it must
// match exactly; it makes no device launches.
//
// Build: nvcc -arch=sm_90 -std=c++17 bfs.cu
#include <climits>
#include <cstdio>
#include <vector>

#include "graph.h" // examples/graph (-I, as for the CDP programs)
#include <nestor/templates.cuh>

#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (expr);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// The body of 'bfs_flat' for the dual-queue template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void bfs_flat_nestor_body(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n, unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < n && levels[gid] == curr) {
    // dual-queue ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
    // trip count is 32 or more; the block-mapped pass then runs its iterations, and the replay skips it.
    if (nestor_phase.defer(offsets[gid], offsets[gid + 1])) return;
    if (!nestor_phase.has_result())
      for (unsigned e = offsets[gid]; e < offsets[gid + 1]; ++e) {
        unsigned v = targets[e];
        if (levels[v] == UINT_MAX) {
          levels[v] = curr + 1;
          *changed = 1;
        }
      }
  }
}

__global__ void bfs_flat(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n,
                         unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors, nestor::tmpl::launch_state nestor_ls = {}) {
  // dual-queue, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(b)): a first pass
  // queues each row as small or large; a thread-mapped pass runs the small ones and a
  // block-mapped pass the large ones (nestor::tmpl::launch_templates at the launch).
  nestor::tmpl::dispatch<int>(nestor_ls, [=](unsigned int e) {
    {
      unsigned v = targets[e];
      if (levels[v] == UINT_MAX) {
        levels[v] = curr + 1;
        *changed = 1;
      }
    }
    return 0;
  }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    bfs_flat_nestor_body(levels, offsets, targets, n, curr, changed, launches, launch_errors, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

int main(int argc, char** argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bfs: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;

  unsigned *d_offsets, *d_targets, *d_levels, *d_errors;
  int* d_changed;
  unsigned long long* d_launches;
  CUDA_CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_targets, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_levels, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_launches, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_errors, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_targets, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_errors, 0, sizeof(unsigned)));

  std::vector<unsigned> levels(n, UINT_MAX);
  levels[0] = 0;  // source: vertex 0, the hub
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  unsigned long long launches = 0;
  unsigned depth = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemcpy(d_levels, levels.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_launches, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaEventRecord(start));
    unsigned curr = 0;
    int changed = 1;
    while (changed) {
      CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(int)));
      nestor::tmpl::launch_templates(true, (n + 255) / 256, 256, 0, 32, [&](dim3 nestor_g, dim3 nestor_b, size_t nestor_sh, const nestor::tmpl::launch_state &nestor_ls) {
        bfs_flat<<<nestor_g, nestor_b, nestor_sh>>>(d_levels, d_offsets, d_targets, n, curr, d_changed, d_launches, d_errors, nestor_ls);
      });
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
      ++curr;
    }
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    depth = curr;
    if (rep == 0) CUDA_CHECK(cudaMemcpy(&launches, d_launches, sizeof launches, cudaMemcpyDeviceToHost));
  }
  unsigned errors = 0;
  CUDA_CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  if (errors) {
    std::fprintf(stderr, "bfs: %u device-side launches failed\n", errors);
    return 1;
  }
  CUDA_CHECK(cudaMemcpy(levels.data(), d_levels, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, levels);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bfs: %s\n", e.what());
    return 2;
  }
  std::printf("bfs: %u levels\n", depth);
  graph::print_result_line("bfs", opt, g, graph::median(times), launches);
  return 0;
}
