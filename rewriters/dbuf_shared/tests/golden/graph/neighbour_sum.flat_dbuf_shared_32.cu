// Neighbour sum, flat (no dynamic parallelism): the bench's no-CDP reference.
// One thread per vertex loops over its CSR neighbour range. Same command line,
// output file and RESULT line as examples/graph/neighbour_sum.cu, whose results
// it must match exactly; it makes no device launches.
//
// Build: nvcc -arch=sm_90 -std=c++17 neighbour_sum.cu
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

__device__ unsigned long long vertex_value(unsigned u) { return (u * 2654435761u) % 1000u + 1u; }

// The body of 'ns_flat' for the dbuf-shared template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void ns_flat_nestor_body(const unsigned* offsets, const unsigned* targets, unsigned n, unsigned long long* sums, unsigned long long* launches, unsigned* launch_errors, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned long long sum = 0;
    // dbuf-shared ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
    // trip count is 32 or more, or hands back its block-computed reduction.
    if (nestor_phase.defer(offsets[v], offsets[v + 1])) return;
    if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<unsigned long long>());
    else
      for (unsigned e = offsets[v]; e < offsets[v + 1]; ++e) sum += vertex_value(targets[e]);
    sums[v] = sum;
  }
}

__global__ void ns_flat(const unsigned* offsets, const unsigned* targets, unsigned n, unsigned long long* sums,
                        unsigned long long* launches, unsigned* launch_errors) {
  // dbuf-shared, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): rows whose loop
  // has 32 or more iterations are delayed to a per-block buffer in shared memory (256 slots, then a
  // global overflow), reduced by the whole block after the thread-mapped pass, and finished by their owner.
  nestor::tmpl::dbuf_shared<unsigned int, unsigned long long, 256>(32, [=](unsigned int e) { return vertex_value(targets[e]); }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    ns_flat_nestor_body(offsets, targets, n, sums, launches, launch_errors, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

int main(int argc, char** argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "neighbour_sum: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;

  unsigned *d_offsets, *d_targets, *d_errors;
  unsigned long long *d_sums, *d_launches;
  CUDA_CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_targets, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_sums, n * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_launches, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_errors, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_targets, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_errors, 0, sizeof(unsigned)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  unsigned long long launches = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemset(d_sums, 0, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_launches, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaEventRecord(start));
    ns_flat<<<(n + 255) / 256, 256>>>(d_offsets, d_targets, n, d_sums, d_launches, d_errors);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    if (rep == 0) CUDA_CHECK(cudaMemcpy(&launches, d_launches, sizeof launches, cudaMemcpyDeviceToHost));
  }
  unsigned errors = 0;
  CUDA_CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  if (errors) {
    std::fprintf(stderr, "neighbour_sum: %u device-side launches failed\n", errors);
    return 1;
  }
  std::vector<unsigned long long> sums(n);
  CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, sums);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "neighbour_sum: %s\n", e.what());
    return 2;
  }
  graph::print_result_line("neighbour_sum", opt, g, graph::median(times), launches);
  return 0;
}
