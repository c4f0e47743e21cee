// Single-source shortest paths (Bellman-Ford with an active set) with dynamic
// parallelism, the naive CDP form that Nestor's rewrites take as input: one
// parent thread per active vertex launches one child grid over its CSR
// neighbour range. The range is viewed as rows of SSSP_ROW neighbours, and the
// child grid is two-dimensional (dim3, thesis Fig. 3.2 form (f)), computed in
// intermediate variables with the float-ceil forms (d) and (e) and the
// modulo form (c).
// The host iterates until no distance changes (CDP2 has no device-side sync).
//
// dist[v] = shortest distance from vertex 0 with integer weights (atomicMin, so
// the result does not depend on the order of relaxations); 4294967295 when
// unreachable.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 sssp.cu -lcudadevrt
#include <climits>
#include <cmath>
#include <cstdio>
#include <vector>

#include "graph.h"
#include <nestor/delayed_launches.cuh>

#define SSSP_ROW 64
#define SSSP_BX 32
#define SSSP_BY 4

#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (expr);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void sssp_child(const unsigned* targets, const unsigned* weights, unsigned first, unsigned degree,
                           unsigned dist_v, unsigned* dist, int* next_active, int* changed) {
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned k = row * SSSP_ROW + col;
  if (col < SSSP_ROW && k < degree) {
    unsigned u = targets[first + k];
    unsigned nd = dist_v + weights[first + k];
    if (nd < atomicMin(&dist[u], nd)) {
      next_active[u] = 1;
      *changed = 1;
    }
  }
}

// sssp_child with its thread identity as parameters (dbuf-shared-launch): run by the parent thread
// or by the parent's block for delayed launches.
__device__ __forceinline__ void sssp_child_nestor_thread(const unsigned* targets, const unsigned* weights, unsigned first, unsigned degree, unsigned dist_v, unsigned* dist, int* next_active, int* changed, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned k = row * SSSP_ROW + col;
  if (col < SSSP_ROW && k < degree) {
    unsigned u = targets[first + k];
    unsigned nd = dist_v + weights[first + k];
    if (nd < atomicMin(&dist[u], nd)) {
      next_active[u] = 1;
      *changed = 1;
    }
  }
}

// A delayed launch of sssp_child: its arguments and configuration.
struct sssp_child_nestor_launch {
  const unsigned* targets;
  const unsigned* weights;
  unsigned first;
  unsigned degree;
  unsigned dist_v;
  unsigned* dist;
  int* next_active;
  int* changed;
  dim3 nestor_grid, nestor_block;
};

// The body of sssp_parent for dbuf-shared-launch: a large launch is held in nestor_held, which
// sssp_parent's block runs after every thread has left this body.
__device__ __forceinline__ void sssp_parent_nestor_body(const unsigned* offsets, const unsigned* targets, const unsigned* weights, unsigned n, unsigned* dist, const int* active, int* next_active, int* changed, unsigned long long* launches, unsigned* launch_errors, nestor::tmpl::held_launch<sssp_child_nestor_launch> &nestor_held) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && active[v]) {
    unsigned first = offsets[v];
    unsigned degree = offsets[v + 1] - first;
    if (degree > 0) {
      unsigned dist_v = dist[v];
      unsigned cols = degree < SSSP_ROW ? degree : SSSP_ROW;
      unsigned rows = (unsigned)ceil(degree / (float)SSSP_ROW);
      unsigned grid_x = (unsigned)ceil((float)cols / SSSP_BX);
      unsigned grid_y = rows / SSSP_BY + ((rows % SSSP_BY == 0) ? 0 : 1);
      dim3 grid(grid_x, grid_y);
      dim3 block(SSSP_BX, SSSP_BY);
      {
        // dbuf-shared, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
        // fewer than 64 threads runs in this thread; a larger one is held, and this block runs it after
        // the parent body (CDP2 gives no earlier guarantee either).
        const dim3 nestor_grid(grid), nestor_block(block);
        atomicAdd(launches, 1ull);
        sssp_child_nestor_launch nestor_item;
        nestor_item.targets = targets;
        nestor_item.weights = weights;
        nestor_item.first = first;
        nestor_item.degree = degree;
        nestor_item.dist_v = dist_v;
        nestor_item.dist = dist;
        nestor_item.next_active = next_active;
        nestor_item.changed = changed;
        nestor_item.nestor_grid = nestor_grid;
        nestor_item.nestor_block = nestor_block;
        if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
             (unsigned long long)(cols * rows) < 64ull) ||
            !nestor_held.hold(nestor_item))
          nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
              [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
            sssp_child_nestor_thread(targets, weights, first, degree, dist_v, dist, next_active, changed, nestor_t, nestor_b, nestor_bd, nestor_gd);
          });
      }
    }
  }
}

__global__ void sssp_parent(const unsigned* offsets, const unsigned* targets, const unsigned* weights, unsigned n,
                            unsigned* dist, const int* active, int* next_active, int* changed,
                            unsigned long long* launches, unsigned* launch_errors) {
  // dbuf-shared, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(b)): the body runs launches of sssp_child
  // below 64 threads in their thread and holds larger ones; then the whole block runs the held launches,
  // one after another, its threads striding over each launch's child threads (a buffer in shared
  // memory, an overflow on the device heap). No dynamic parallelism is left.
  nestor::tmpl::held_launch<sssp_child_nestor_launch> nestor_held;
  sssp_parent_nestor_body(offsets, targets, weights, n, dist, active, next_active, changed, launches, launch_errors, nestor_held);
  nestor::tmpl::dbuf_shared_launches(nestor_held, [](const sssp_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    sssp_child_nestor_thread(a.targets, a.weights, a.first, a.degree, a.dist_v, a.dist, a.next_active, a.changed, t, b, bd, gd);
  });
}

int main(int argc, char** argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sssp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n + 4096));

  unsigned *d_offsets, *d_targets, *d_weights, *d_dist, *d_errors;
  int *d_active, *d_next, *d_changed;
  unsigned long long* d_launches;
  CUDA_CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_targets, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_weights, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_dist, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_active, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_next, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_launches, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_errors, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_targets, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_weights, g.weights.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_errors, 0, sizeof(unsigned)));

  std::vector<unsigned> dist(n, UINT_MAX);
  std::vector<int> active(n, 0);
  dist[0] = 0;  // source: vertex 0, the hub
  active[0] = 1;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  unsigned long long launches = 0;
  unsigned iterations = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemcpy(d_dist, dist.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_active, active.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_launches, 0, sizeof(unsigned long long)));
    int *cur = d_active, *next = d_next;
    CUDA_CHECK(cudaEventRecord(start));
    int changed = 1;
    unsigned it = 0;
    while (changed) {
      CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(int)));
      CUDA_CHECK(cudaMemset(next, 0, n * sizeof(int)));
      sssp_parent<<<(n + 255) / 256, 256>>>(d_offsets, d_targets, d_weights, n, d_dist, cur, next, d_changed,
                                            d_launches, d_errors);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
      std::swap(cur, next);
      ++it;
    }
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    iterations = it;
    if (rep == 0) CUDA_CHECK(cudaMemcpy(&launches, d_launches, sizeof launches, cudaMemcpyDeviceToHost));
  }
  unsigned errors = 0;
  CUDA_CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  if (errors) {
    std::fprintf(stderr, "sssp: %u device-side launches failed\n", errors);
    return 1;
  }
  CUDA_CHECK(cudaMemcpy(dist.data(), d_dist, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, dist);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sssp: %s\n", e.what());
    return 2;
  }
  std::printf("sssp: %u iterations (last rep)\n", iterations);
  graph::print_result_line("sssp", opt, g, graph::median(times), launches);
  return 0;
}
