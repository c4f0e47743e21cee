// GPU tests of the parts of dp.cuh that need no pool: the parent search over
// scanned block counts (find_record), child-side disaggregation
// (agg_child_locate) on a hand-built batch, the serial form of a launch
// (serial_for_each) against a real launch, and launch-configuration arithmetic.
#include <nestor/dp.cuh>
#include <nestor/gpu_test.cuh>

#include <cstdint>
#include <random>
#include <vector>

#include "check.cuh"

namespace dp = nestor::dp;

// ---- find_record over random block counts -----------------------------------

__global__ void search_kernel(const unsigned* block_end, unsigned count, unsigned total, unsigned* found) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < total) found[b] = dp::find_record(block_end, count, b);
}

static void test_find_record_random() {
  std::mt19937 rng(12345);
  for (int round = 0; round < 4; ++round) {
    const unsigned count = round == 0 ? 1 : 1000u * round * round + 17;
    std::vector<unsigned> counts(count), block_end(count);
    unsigned total = 0;
    for (unsigned i = 0; i < count; ++i) {
      // Zero counts make empty ranges, which the search must skip; a few large
      // counts give long ranges.
      const unsigned r = rng() % 100;
      counts[i] = r < 20 ? 0 : (r < 95 ? 1 + rng() % 8 : 1 + rng() % 500);
      total += counts[i];
      block_end[i] = total;
    }
    if (total == 0) continue;
    // Host reference: owner of every block by walking the ranges.
    std::vector<unsigned> expected(total);
    for (unsigned i = 0, b = 0; i < count; ++i)
      for (unsigned k = 0; k < counts[i]; ++k) expected[b++] = i;

    unsigned *d_end, *d_found;
    NESTOR_CUDA_CHECK(cudaMalloc(&d_end, count * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaMalloc(&d_found, total * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaMemcpy(d_end, block_end.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
    search_kernel<<<(total + 255) / 256, 256>>>(d_end, count, total, d_found);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    std::vector<unsigned> found(total);
    NESTOR_CUDA_CHECK(cudaMemcpy(found.data(), d_found, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned mismatches = 0;
    for (unsigned b = 0; b < total; ++b) mismatches += found[b] != expected[b];
    CHECK_EQ(mismatches, 0u);
    // The host build of the same function agrees, and a block past the end maps to `count`.
    CHECK_EQ(dp::find_record(block_end.data(), count, total - 1), expected[total - 1]);
    CHECK_EQ(dp::find_record(block_end.data(), count, total), count);
    NESTOR_CUDA_CHECK(cudaFree(d_end));
    NESTOR_CUDA_CHECK(cudaFree(d_found));
  }
  CHECK_EQ(dp::find_record(nullptr, 0, 0), 0u);
}

// ---- agg_child_locate on a hand-built batch -----------------------------------

struct probe_args {
  unsigned first;  // this launch's first slot in the coverage array
};

// Every active thread marks (launch, virtual block, virtual thread) once; the
// block-level count (with a barrier that inactive threads must reach too)
// proves that inactive threads skip the body but not the barrier.
__global__ void locate_child(dp::agg_batch<probe_args> batch, unsigned* cover, unsigned* block_counts,
                             unsigned* bad) {
  __shared__ unsigned active_in_block;
  const dp::agg_child<probe_args> c = dp::agg_child_locate(batch);
  if (threadIdx.x == 0) active_in_block = 0;
  __syncthreads();
  if (c.active) {
    const unsigned threads = c.blockDim.x * c.blockDim.y * c.blockDim.z;
    const unsigned vblock = c.blockIdx.x + c.gridDim.x * (c.blockIdx.y + c.gridDim.y * c.blockIdx.z);
    const unsigned vthread = c.threadIdx.x + c.blockDim.x * (c.threadIdx.y + c.blockDim.y * c.threadIdx.z);
    if (c.blockIdx.x >= c.gridDim.x || c.blockIdx.y >= c.gridDim.y || c.blockIdx.z >= c.gridDim.z ||
        c.threadIdx.x >= c.blockDim.x || c.threadIdx.y >= c.blockDim.y || c.threadIdx.z >= c.blockDim.z)
      atomicAdd(bad, 1u);
    atomicAdd(&cover[c.args->first + vblock * threads + vthread], 1u);
    atomicAdd(&active_in_block, 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0) block_counts[blockIdx.x] = active_in_block;
}

static void test_child_locate() {
  const dim3 grids[] = {dim3(3, 1, 1), dim3(2, 2, 1), dim3(1, 1, 1), dim3(2, 3, 2), dim3(5, 1, 1)};
  const dim3 blocks[] = {dim3(32, 1, 1), dim3(16, 4, 1), dim3(100, 1, 1), dim3(8, 2, 3), dim3(1, 1, 1)};
  const unsigned n = 5;
  std::vector<dp::agg_record<probe_args>> recs(n);
  std::vector<unsigned> block_end(n), expected_block_threads;
  unsigned blocks_total = 0, cover_total = 0, max_threads = 0;
  for (unsigned i = 0; i < n; ++i) {
    recs[i] = {probe_args{cover_total}, grids[i], blocks[i]};
    const unsigned nb = static_cast<unsigned>(dp::volume(grids[i]));
    const unsigned nt = static_cast<unsigned>(dp::volume(blocks[i]));
    blocks_total += nb;
    block_end[i] = blocks_total;
    cover_total += nb * nt;
    max_threads = nt > max_threads ? nt : max_threads;
    for (unsigned k = 0; k < nb; ++k) expected_block_threads.push_back(nt);
  }
  dp::agg_record<probe_args>* d_recs;
  unsigned *d_end, *d_cover, *d_counts, *d_bad;
  NESTOR_CUDA_CHECK(cudaMalloc(&d_recs, n * sizeof(recs[0])));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_end, n * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_cover, cover_total * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_counts, blocks_total * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_bad, sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(d_recs, recs.data(), n * sizeof(recs[0]), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(d_end, block_end.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemset(d_cover, 0, cover_total * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(unsigned)));
  locate_child<<<blocks_total, max_threads>>>(dp::agg_batch<probe_args>{d_recs, d_end, n}, d_cover, d_counts, d_bad);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> cover(cover_total), counts(blocks_total);
  unsigned bad = 0;
  NESTOR_CUDA_CHECK(cudaMemcpy(cover.data(), d_cover, cover_total * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(counts.data(), d_counts, blocks_total * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned not_once = 0, wrong_count = 0;
  for (unsigned v : cover) not_once += v != 1;
  for (unsigned b = 0; b < blocks_total; ++b) wrong_count += counts[b] != expected_block_threads[b];
  CHECK_EQ(not_once, 0u);     // every original thread ran exactly once
  CHECK_EQ(wrong_count, 0u);  // each block ran exactly its launch's threads
  CHECK_EQ(bad, 0u);          // virtual indices stay inside the original shapes
  cudaFree(d_recs);
  cudaFree(d_end);
  cudaFree(d_cover);
  cudaFree(d_counts);
  cudaFree(d_bad);
}

// ---- serial_for_each against a real launch -------------------------------------

__host__ __device__ inline unsigned child_value(dim3 g, dim3 b, dim3 bi, dim3 ti) {
  return 1 + bi.x + 3 * bi.y + 7 * bi.z + 11 * ti.x + 13 * ti.y + 17 * ti.z + 19 * g.x + 23 * b.y;
}
__host__ __device__ inline unsigned linear_slot(dim3 g, dim3 b, dim3 bi, dim3 ti) {
  const unsigned blk = bi.x + g.x * (bi.y + g.y * bi.z);
  return blk * (b.x * b.y * b.z) + ti.x + b.x * (ti.y + b.y * ti.z);
}

__global__ void real_child(unsigned* out) {
  const unsigned slot = linear_slot(gridDim, blockDim, blockIdx, threadIdx);
  if (threadIdx.y == 1) return;  // a `return` must end only this thread
  out[slot] = child_value(gridDim, blockDim, blockIdx, threadIdx);
}

__global__ void serial_parent(dim3 g, dim3 b, unsigned* out, unsigned* iterations) {
  dp::serial_for_each(g, b, [&](const dp::serial_ctx& c) {
    atomicAdd(iterations, 1u);
    const unsigned slot = linear_slot(c.gridDim, c.blockDim, c.blockIdx, c.threadIdx);
    if (c.threadIdx.y == 1) return;
    out[slot] = child_value(c.gridDim, c.blockDim, c.blockIdx, c.threadIdx);
  });
}

static void test_serial_for_each() {
  const dim3 g(3, 2, 2), b(4, 3, 2);
  const unsigned n = static_cast<unsigned>(dp::volume(g) * dp::volume(b));
  unsigned *d_real, *d_serial, *d_iter;
  NESTOR_CUDA_CHECK(cudaMalloc(&d_real, n * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_serial, n * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_iter, sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_real, 0, n * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_serial, 0, n * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_iter, 0, sizeof(unsigned)));
  real_child<<<g, b>>>(d_real);
  serial_parent<<<1, 1>>>(g, b, d_serial, d_iter);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> real(n), serial(n);
  unsigned iterations = 0;
  NESTOR_CUDA_CHECK(cudaMemcpy(real.data(), d_real, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(serial.data(), d_serial, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(&iterations, d_iter, sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned written = 0, differ = 0;
  for (unsigned i = 0; i < n; ++i) {
    differ += real[i] != serial[i];
    written += real[i] != 0;
  }
  CHECK_EQ(differ, 0u);
  CHECK_EQ(iterations, n);              // every virtual thread visited, even those that return
  CHECK_EQ(written, n - n / b.y);       // threadIdx.y == 1 wrote nothing
  cudaFree(d_real);
  cudaFree(d_serial);
  cudaFree(d_iter);

  // The host build visits the same threads in hardware order.
  unsigned expect_slot = 0, bad_order = 0;
  dp::serial_for_each(g, b, [&](const dp::serial_ctx& c) {
    bad_order += linear_slot(c.gridDim, c.blockDim, c.blockIdx, c.threadIdx) != expect_slot++;
  });
  CHECK_EQ(bad_order, 0u);
  CHECK_EQ(expect_slot, n);
}

static void test_arithmetic() {
  CHECK_EQ(dp::ceil_div(0, 32), 0u);
  CHECK_EQ(dp::ceil_div(1, 32), 1u);
  CHECK_EQ(dp::ceil_div(64, 32), 2u);
  CHECK_EQ(dp::ceil_div(65, 32), 3u);
  CHECK_EQ(dp::ceil_div(5, 0), 0u);
  CHECK_EQ(dp::ceil_div(0xffffffffull, 1), 0xffffffffu);
  const dim3 c = dp::coarsen_x(dim3(9, 5, 2), 4);
  CHECK(c.x == 3 && c.y == 5 && c.z == 2);
  const dim3 d = dp::coarsen_xyz(dim3(9, 5, 2), 4);
  CHECK(d.x == 3 && d.y == 2 && d.z == 1);
  CHECK_EQ(dp::volume(dim3(65535, 65535, 64)), 65535ull * 65535ull * 64ull);
  CHECK(NESTOR_THRESHOLD >= 1);
  CHECK(NESTOR_CFACTOR >= 1);
}

int main() {
  nestor::test::require_gpu_or_skip();
  test_arithmetic();
  test_find_record_random();
  test_child_locate();
  test_serial_for_each();
  return nestor_dp_test::finish("test_dp_search");
}
