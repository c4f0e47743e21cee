// GPU tests of dp.cuh aggregation: warp, block and grid granularity of a
// trivial child against direct launches, slot allocation under contention, and
// overflow (requests refused and relaunched directly, nothing written past the
// pool: a guard zone after it is checked byte by byte).
#include <nestor/dp.cuh>
#include <nestor/gpu_test.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.cuh"

namespace dp = nestor::dp;

// Arguments of the trivial child: which launch it is and where its threads and
// blocks mark themselves.
struct work_args {
  unsigned id;
  unsigned first_thread;  // slot of the launch's thread 0 in `cover`
  unsigned first_block;   // slot of the launch's block 0 in `block_hits`
  unsigned* cover;        // one counter per original thread: must end at 1
  unsigned* block_hits;   // per original block: number of threads that ran in it
};

struct launch_spec {
  dim3 grid, block;
  work_args args;
};

__device__ void child_body(const work_args& a, dim3 g, dim3 b, dim3 bi, dim3 ti) {
  const unsigned vblock = bi.x + g.x * (bi.y + g.y * bi.z);
  const unsigned vthread = ti.x + b.x * (ti.y + b.y * ti.z);
  atomicAdd(&a.cover[a.first_thread + vblock * (b.x * b.y * b.z) + vthread], 1u);
}

__global__ void direct_child(work_args a) {
  __shared__ unsigned ran;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) ran = 0;
  __syncthreads();
  child_body(a, gridDim, blockDim, blockIdx, threadIdx);
  atomicAdd(&ran, 1u);
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
    atomicAdd(&a.block_hits[a.first_block + blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)], ran);
}

// Aggregated form of direct_child, written the way the rewriter emits it: the
// body is guarded by `active`, never left early, so every thread of the (larger)
// aggregated block reaches both barriers.
__global__ void aggregated_child(dp::agg_batch<work_args> batch) {
  __shared__ unsigned ran;
  const dp::agg_child<work_args> c = dp::agg_child_locate(batch);
  if (threadIdx.x == 0) ran = 0;
  __syncthreads();
  if (c.active) {
    child_body(*c.args, c.gridDim, c.blockDim, c.blockIdx, c.threadIdx);
    atomicAdd(&ran, 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(&c.args->block_hits[c.args->first_block + c.blockIdx.x +
                                  c.gridDim.x * (c.blockIdx.y + c.gridDim.y * c.blockIdx.z)],
              ran);
}

enum mode { kDirect = 0, kWarp = 1, kBlock = 2, kGrid = 3, kBlockSplit = 4 };

// Work of a data-dependent length, as a child run serially in its parent
// thread (the threshold rewrite) does before the block's aggregated launch:
// the warp reaches aggregate_block in pieces.
__device__ unsigned g_split_sink;
__device__ void serial_detour(unsigned i, const launch_spec& s) {
  unsigned acc = 0;
  const unsigned steps = 64u + (i * 2654435761u >> 22);  // up to ~1100, differs per lane
  for (unsigned k = 0; k < steps; ++k) acc = acc * 1664525u + k + s.args.id;
  if (acc == 0x12345678u) atomicAdd(&g_split_sink, 1u);  // keeps the loop
}

__device__ unsigned* g_direct_launch_errors;

__device__ void launch_direct(const launch_spec& s) {
  direct_child<<<s.grid, s.block>>>(s.args);
  if (cudaGetLastError() != cudaSuccess) atomicAdd(g_direct_launch_errors, 1u);
}

// outcome[i]: 1 = taken care of by the runtime, 0 = relaunched directly.
template <int Mode>
__global__ void parent(dp::agg_pool<work_args> pool, const launch_spec* specs, unsigned n, int* outcome) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if constexpr (Mode == kBlock || Mode == kBlockSplit) {
    // Block granularity is called by every thread of the block.
    const bool want = i < n;
    const launch_spec s = want ? specs[i] : launch_spec{dim3(0), dim3(0), {}};
    if (Mode == kBlockSplit && want && i % 3 != 0) serial_detour(i, s);
    const bool ok = dp::aggregate_block(pool, aggregated_child, want, s.grid, s.block, s.args);
    if (want) {
      if (!ok) launch_direct(s);
      outcome[i] = ok;
    }
    return;
  } else {
    if (i >= n) return;
    const launch_spec s = specs[i];
    if constexpr (Mode == kDirect) {
      if (dp::volume(s.grid) > 0) launch_direct(s);
      outcome[i] = 0;
    } else {
      bool ok;
      // Two call sites, so warps arrive split in divergent groups.
      if (i % 3 == 0) {
        ok = Mode == kWarp ? dp::aggregate_warp(pool, aggregated_child, s.grid, s.block, s.args)
                           : dp::aggregate_grid(pool, s.grid, s.block, s.args);
      } else {
        ok = Mode == kWarp ? dp::aggregate_warp(pool, aggregated_child, s.grid, s.block, s.args)
                           : dp::aggregate_grid(pool, s.grid, s.block, s.args);
      }
      if (!ok) launch_direct(s);
      outcome[i] = ok;
    }
  }
}

// ---- host side ----------------------------------------------------------------

struct workload {
  std::vector<launch_spec> specs;
  unsigned threads = 0, blocks = 0;
  unsigned nonempty = 0;
  unsigned too_large = 0;
};

static workload make_workload(unsigned n, unsigned* d_cover, unsigned* d_block_hits) {
  static const dim3 shapes[] = {dim3(32), dim3(16, 4), dim3(100), dim3(8, 2, 3), dim3(1), dim3(64, 2), dim3(256)};
  workload w;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned h = i * 2654435761u;
    launch_spec s;
    if (i % 11 == 0) {
      s.grid = dim3(0, 1, 1);  // nothing to launch
    } else if (i == 5) {
      s.grid = dim3(dp::kMaxRecordBlocks + 1);  // too large to aggregate
    } else {
      s.grid = dim3(1 + (h >> 7) % 3, 1 + (h >> 11) % 2, 1 + (h >> 13) % 2);
    }
    s.block = shapes[(h >> 17) % (sizeof shapes / sizeof shapes[0])];
    s.args = work_args{i, w.threads, w.blocks, d_cover, d_block_hits};
    const unsigned nb = static_cast<unsigned>(dp::volume(s.grid));
    w.threads += nb * static_cast<unsigned>(dp::volume(s.block));
    w.blocks += nb;
    w.nonempty += nb > 0;
    w.too_large += nb > dp::kMaxRecordBlocks;
    w.specs.push_back(s);
  }
  return w;
}

struct run_result {
  std::vector<unsigned> cover, block_hits;
  std::vector<int> outcome;
  dp::agg_counters counters{};
  dp::agg_grid_plan plan{};
  bool guard_intact = true;
  unsigned direct_launch_errors = 0;
  std::vector<unsigned> block_end;
  std::vector<dp::agg_record<work_args>> records;
};

static constexpr size_t kGuardBytes = 1 << 16;
static constexpr unsigned char kGuardByte = 0xAB;

static run_result run(int mode, unsigned n, unsigned capacity) {
  run_result r;
  unsigned *d_cover, *d_hits, *d_errors;
  launch_spec* d_specs;
  int* d_outcome;
  NESTOR_CUDA_CHECK(cudaMalloc(&d_errors, sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_errors, 0, sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpyToSymbol(g_direct_launch_errors, &d_errors, sizeof d_errors));
  // Allocate cover/hits after sizing the workload with null pointers, then fix them up.
  workload w = make_workload(n, nullptr, nullptr);
  NESTOR_CUDA_CHECK(cudaMalloc(&d_cover, w.threads * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_hits, w.blocks * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_cover, 0, w.threads * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemset(d_hits, 0, w.blocks * sizeof(unsigned)));
  for (auto& s : w.specs) {
    s.args.cover = d_cover;
    s.args.block_hits = d_hits;
  }
  NESTOR_CUDA_CHECK(cudaMalloc(&d_specs, n * sizeof(launch_spec)));
  NESTOR_CUDA_CHECK(cudaMemcpy(d_specs, w.specs.data(), n * sizeof(launch_spec), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_outcome, n * sizeof(int)));
  NESTOR_CUDA_CHECK(cudaMemset(d_outcome, 0xff, n * sizeof(int)));

  // The pool sits in a larger allocation whose tail is a guard zone.
  const size_t pool_bytes = dp::agg_pool_bytes<work_args>(capacity);
  unsigned char* d_mem;
  NESTOR_CUDA_CHECK(cudaMalloc(&d_mem, pool_bytes + kGuardBytes));
  NESTOR_CUDA_CHECK(cudaMemset(d_mem, kGuardByte, pool_bytes + kGuardBytes));
  const dp::agg_pool<work_args> pool = dp::agg_pool_view<work_args>(d_mem, capacity);
  NESTOR_CUDA_CHECK(dp::agg_pool_reset(pool));

  const unsigned threads = 256, blocks = (n + threads - 1) / threads;
  switch (mode) {
    case kDirect: parent<kDirect><<<blocks, threads>>>(pool, d_specs, n, d_outcome); break;
    case kWarp: parent<kWarp><<<blocks, threads>>>(pool, d_specs, n, d_outcome); break;
    case kBlock: parent<kBlock><<<blocks, threads>>>(pool, d_specs, n, d_outcome); break;
    case kBlockSplit: parent<kBlockSplit><<<blocks, threads>>>(pool, d_specs, n, d_outcome); break;
    case kGrid: parent<kGrid><<<blocks, threads>>>(pool, d_specs, n, d_outcome); break;
  }
  NESTOR_CUDA_CHECK(cudaGetLastError());
  if (mode == kGrid) {
    NESTOR_CUDA_CHECK(dp::agg_grid_read_plan(pool, &r.plan));
    NESTOR_CUDA_CHECK(dp::agg_grid_launch(pool, r.plan, aggregated_child));
  }
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());

  r.cover.resize(w.threads);
  r.block_hits.resize(w.blocks);
  r.outcome.resize(n);
  NESTOR_CUDA_CHECK(cudaMemcpy(r.cover.data(), d_cover, w.threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(r.block_hits.data(), d_hits, w.blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(r.outcome.data(), d_outcome, n * sizeof(int), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(&r.counters, pool.counters, sizeof r.counters, cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(&r.direct_launch_errors, d_errors, sizeof(unsigned), cudaMemcpyDeviceToHost));
  r.block_end.resize(capacity);
  r.records.resize(capacity);
  NESTOR_CUDA_CHECK(cudaMemcpy(r.block_end.data(), pool.block_end, capacity * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(r.records.data(), pool.records, capacity * sizeof(r.records[0]), cudaMemcpyDeviceToHost));
  std::vector<unsigned char> guard(kGuardBytes);
  NESTOR_CUDA_CHECK(cudaMemcpy(guard.data(), d_mem + pool_bytes, kGuardBytes, cudaMemcpyDeviceToHost));
  for (unsigned char b : guard) r.guard_intact &= b == kGuardByte;

  cudaFree(d_mem);
  cudaFree(d_cover);
  cudaFree(d_hits);
  cudaFree(d_specs);
  cudaFree(d_outcome);
  cudaFree(d_errors);
  return r;
}

// Every original thread ran exactly once and every original block ran all of
// its threads, whichever path each launch took.
static void check_ran_exactly_once(const char* what, unsigned n, const run_result& r) {
  workload w = make_workload(n, nullptr, nullptr);
  unsigned not_once = 0, wrong_block = 0;
  for (unsigned v : r.cover) not_once += v != 1;
  for (const auto& s : w.specs) {
    const unsigned nb = static_cast<unsigned>(dp::volume(s.grid));
    for (unsigned b = 0; b < nb; ++b)
      wrong_block += r.block_hits[s.args.first_block + b] != dp::volume(s.block);
  }
  std::printf("  %-28s refused=%u device_launches=%u grid_records=%u\n", what, r.counters.refused,
              r.counters.device_launches, r.counters.grid_records);
  CHECK_EQ(not_once, 0u);
  CHECK_EQ(wrong_block, 0u);
  CHECK(r.guard_intact);
  CHECK_EQ(r.direct_launch_errors, 0u);
}

static unsigned count_outcome(const run_result& r, int value) {
  unsigned c = 0;
  for (int o : r.outcome) c += o == value;
  return c;
}

static void test_direct(unsigned n) {
  run_result r = run(kDirect, n, 64);
  check_ran_exactly_once("direct", n, r);
}

static void test_granularity(int mode, const char* name, unsigned n, unsigned capacity, bool expect_overflow) {
  const workload w = make_workload(n, nullptr, nullptr);
  run_result r = run(mode, n, capacity);
  char what[64];
  std::snprintf(what, sizeof what, "%s cap=%u", name, capacity);
  check_ran_exactly_once(what, n, r);
  // Refusals are reported: the launches too large to aggregate, plus overflow.
  const unsigned refused_nonempty = count_outcome(r, 0);
  CHECK_EQ(r.counters.refused, refused_nonempty);
  CHECK(r.counters.refused >= w.too_large);
  if (expect_overflow) CHECK(r.counters.refused > w.too_large);
  else CHECK_EQ(r.counters.refused, w.too_large);
  if (mode == kGrid) {
    // Accepted records are the slots [0, records) with non-decreasing ends that
    // match their shapes, and the plan describes exactly them.
    CHECK(r.plan.records <= capacity);
    CHECK_EQ(r.plan.records, w.nonempty - refused_nonempty);
    unsigned prev = 0, bad_end = 0, max_threads = 0;
    std::vector<int> seen(n, 0);
    for (unsigned i = 0; i < r.plan.records; ++i) {
      const auto& rec = r.records[i];
      bad_end += r.block_end[i] != prev + dp::volume(rec.grid);
      prev = r.block_end[i];
      max_threads = std::max<unsigned>(max_threads, static_cast<unsigned>(dp::volume(rec.block)));
      if (rec.args.id < n) seen[rec.args.id]++;
    }
    CHECK_EQ(bad_end, 0u);
    CHECK_EQ(prev, r.plan.blocks);
    CHECK_EQ(max_threads, r.plan.block_threads);
    unsigned wrong_owner = 0;  // recorded exactly the launches answered `true` with work
    for (unsigned i = 0; i < n; ++i)
      wrong_owner += seen[i] != ((r.outcome[i] == 1 && dp::volume(w.specs[i].grid) > 0) ? 1 : 0);
    CHECK_EQ(wrong_owner, 0u);
    CHECK_EQ(r.counters.device_launches, 0u);
  } else {
    // Without overflow every aggregable request got exactly one slot.
    if (!expect_overflow) CHECK_EQ(r.counters.group_used, w.nonempty - w.too_large);
    CHECK(r.counters.device_launches > 0);
    // Far fewer launches than one per launch request.
    CHECK(r.counters.device_launches * 4 < w.nonempty);
  }
}

// Contention on the fused grid counter: every thread asks for one block.
__global__ void one_block_each(dp::agg_pool<work_args> pool, unsigned n, int* outcome) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  outcome[i] = dp::aggregate_grid(pool, dim3(1), dim3(32), work_args{i, 0, 0, nullptr, nullptr});
}

static void test_grid_slots_under_contention(unsigned n, unsigned capacity) {
  const size_t bytes = dp::agg_pool_bytes<work_args>(capacity);
  unsigned char* d_mem;
  int* d_outcome;
  NESTOR_CUDA_CHECK(cudaMalloc(&d_mem, bytes + kGuardBytes));
  NESTOR_CUDA_CHECK(cudaMemset(d_mem, kGuardByte, bytes + kGuardBytes));
  NESTOR_CUDA_CHECK(cudaMalloc(&d_outcome, n * sizeof(int)));
  const auto pool = dp::agg_pool_view<work_args>(d_mem, capacity);
  NESTOR_CUDA_CHECK(dp::agg_pool_reset(pool));
  one_block_each<<<(n + 127) / 128, 128>>>(pool, n, d_outcome);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  dp::agg_grid_plan plan;
  NESTOR_CUDA_CHECK(dp::agg_grid_read_plan(pool, &plan));
  std::vector<int> outcome(n);
  std::vector<unsigned> block_end(capacity);
  std::vector<dp::agg_record<work_args>> recs(capacity);
  std::vector<unsigned char> guard(kGuardBytes);
  NESTOR_CUDA_CHECK(cudaMemcpy(outcome.data(), d_outcome, n * sizeof(int), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(block_end.data(), pool.block_end, capacity * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(recs.data(), pool.records, capacity * sizeof(recs[0]), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(guard.data(), d_mem + bytes, kGuardBytes, cudaMemcpyDeviceToHost));
  const unsigned expect = n < capacity ? n : capacity;
  CHECK_EQ(plan.records, expect);
  CHECK_EQ(plan.blocks, expect);
  CHECK_EQ(plan.block_threads, 32u);
  CHECK_EQ(plan.refused, n - expect);
  unsigned accepted = 0, bad_end = 0, dup = 0;
  for (int o : outcome) accepted += o == 1;
  CHECK_EQ(accepted, expect);
  std::vector<int> seen(n, 0);
  for (unsigned i = 0; i < expect; ++i) {
    bad_end += block_end[i] != i + 1;
    const unsigned id = recs[i].args.id;
    if (id >= n || seen[id]++ || outcome[id] != 1) ++dup;
  }
  CHECK_EQ(bad_end, 0u);
  CHECK_EQ(dup, 0u);
  bool intact = true;
  for (unsigned char b : guard) intact &= b == kGuardByte;
  CHECK(intact);
  cudaFree(d_mem);
  cudaFree(d_outcome);
}

static void test_host_guards() {
  dp::agg_pool_owner<work_args> owner;
  CHECK(owner.create(0) == cudaErrorInvalidValue);
  CHECK(owner.create(1u << 31) == cudaErrorInvalidValue);
  CHECK(owner.create(128) == cudaSuccess);
  CHECK_EQ(owner.pool().capacity, 128u);
  dp::agg_grid_plan empty;
  CHECK(dp::agg_grid_launch(owner.pool(), empty, aggregated_child) == cudaSuccess);  // nothing to launch
  dp::agg_grid_plan bogus;
  bogus.records = 1;
  bogus.blocks = 1;
  bogus.block_threads = 4096;
  CHECK(dp::agg_grid_launch(owner.pool(), bogus, aggregated_child) == cudaErrorInvalidConfiguration);
  CHECK(dp::agg_pool_reset(dp::agg_pool<work_args>{}) == cudaErrorInvalidValue);
  CHECK(dp::agg_grid_read_plan(dp::agg_pool<work_args>{}, &empty) == cudaErrorInvalidValue);
}

int main() {
  nestor::test::require_gpu_or_skip();
  // Direct launches from thousands of parent threads need a larger pending-launch buffer.
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 32768));
  const unsigned n = 6000;
  test_host_guards();
  test_direct(n);
  test_granularity(kWarp, "warp", n, 1u << 16, false);
  test_granularity(kWarp, "warp overflow", n, 700, true);
  test_granularity(kBlock, "block", n, 1u << 16, false);
  test_granularity(kBlock, "block overflow", n, 700, true);
  test_granularity(kBlockSplit, "block, warps split", n, 1u << 16, false);
  test_granularity(kBlockSplit, "block, warps split, overflow", n, 700, true);
  test_granularity(kGrid, "grid", n, 1u << 16, false);
  test_granularity(kGrid, "grid overflow", n, 700, true);
  test_grid_slots_under_contention(200000, 1u << 18);
  test_grid_slots_under_contention(200000, 4099);
  return nestor_dp_test::finish("test_dp_aggregate");
}
