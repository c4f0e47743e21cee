// dbuf-shared and dpar-opt on device launches (nestor/delayed_launches.cuh):
// a parent thread per CSR row "launches" a child over the row's entries with
// 1D blocks of 32 or 2D blocks of 8x4 (partial last blocks). Launches below
// the threshold run in the parent thread, the others are held and handled by
// the parent's block after its body: dbuf-shared runs them in the block
// (shared slots, in rounds when more threads hold one than there are slots),
// dpar-opt launches one child grid per block (built with -rdc).
// Parents return early (rows past the end, empty rows), so the block phase
// must not depend on every thread reaching the end of the body.
//
// Every child thread must run exactly once (each entry is incremented once),
// and `where` says how each launch was handled, so a phase that drops or
// repeats work, or one that holds nothing, fails.
//   --tiny-heap: the device heap is too small for dpar-opt's batches, so the
//                owners run their launches themselves.
//   --few-pending-launches: dpar-opt's launches mostly fail (room for 32
//                pending launches), so the blocks run their records.
#include <nestor/delayed_launches.cuh>
#include "child_launch.cuh"
#include "runtime_test_util.cuh"

#include <cstring>

using namespace nestor;

struct child_thread_of {
  __device__ void operator()(const child_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) const {
    child_thread(a.hits, a.first, a.count, t, b, bd, gd);
  }
};

__global__ void batch_child(tmpl::launch_batch<child_launch> batch) { tmpl::run_launch_batch(batch, child_thread_of{}); }

// where[r]: 1 ran in the parent thread, 2 held for the block.
__device__ void parent_body(const unsigned *off, unsigned rows, unsigned *hits, int *where, long long thr, bool two_d,
                            tmpl::held_launch<child_launch> &held) {
  const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const unsigned first = off[r], count = off[r + 1] - first;
  if (count == 0) return;
  const dim3 block = two_d ? dim3(8, 4) : dim3(32);
  const dim3 grid = two_d ? dim3(3, (count + 3 * 32 - 1) / (3 * 32)) : dim3((count + 31) / 32);
  child_launch item{hits, first, count, grid, block};
  const bool small = tmpl::detail::volume(grid) * tmpl::detail::volume(block) < (unsigned long long)thr;
  const bool kept = !small && held.hold(item);
  // A second hold by the same thread is refused (the caller runs it).
  if (kept && held.hold(item)) where[r] = -1;
  else where[r] = kept ? 2 : 1;
  if (!kept) tmpl::run_launch_in_thread(grid, block, [&](uint3 t, uint3 b, dim3 bd, dim3 gd) { child_thread(hits, first, count, t, b, bd, gd); });
}

__global__ void parent(const unsigned *off, unsigned rows, unsigned *hits, int *where, long long thr, bool two_d, bool dpar) {
  tmpl::held_launch<child_launch> held;
  parent_body(off, rows, hits, where, thr, two_d, held);
  if (!dpar) {
    tmpl::dbuf_shared_launches(held, child_thread_of{});
    return;
  }
  tmpl::dpar_opt_launches(held, child_thread_of{}, [](const tmpl::launch_batch<child_launch> &b) {
#if defined(__CUDACC_RDC__)
    batch_child<<<b.count, tmpl::kBatchThreads>>>(b);
#endif
  });
}

int main(int argc, char **argv) {
  test::require_gpu_or_skip();
  const bool tiny_heap = argc > 1 && std::strcmp(argv[1], "--tiny-heap") == 0;
  const bool few_pending = argc > 1 && std::strcmp(argv[1], "--few-pending-launches") == 0;
  if (tiny_heap) NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1));
  if (few_pending) NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 32));
  // Blocks of 512 threads: at threshold 1 about 435 of them hold a launch, more
  // than the shared slots, so dbuf-shared runs them in three rounds.
  static_assert(tmpl::shared_launch_slots<child_launch>() < 400, "the test needs blocks with more holders than slots");
  test::checker ck;
  std::mt19937_64 rng(23);
  for (unsigned rows : {1u, 77u, 4999u, 30011u}) {
    const std::vector<unsigned> off = random_launch_offsets(rows, rng);
    const unsigned entries = off.back();
    unsigned *d_off = test::to_device(off), *hits = test::device_zeros<unsigned>(entries);
    int *where = test::device_zeros<int>(rows);
    for (long long thr : {1ll, 64ll, 1ll << 40})
      for (bool dpar : {false, true})
        for (bool two_d : {false, true}) {
          parent<<<(rows + 511) / 512, 512>>>(d_off, rows, hits, where, thr, two_d, dpar);
          NESTOR_CUDA_CHECK(cudaGetLastError());
          NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
          const std::string tag = "rows=" + std::to_string(rows) + " thr=" + std::to_string(thr) + (dpar ? " dpar-opt" : " dbuf-shared") +
                                  (two_d ? " 2D" : " 1D") + (tiny_heap ? " tiny-heap" : "") + (few_pending ? " few-pending" : "");
          auto h = test::to_host(hits, entries);
          for (unsigned e = 0; e < entries; ++e) NESTOR_EXPECT(ck, h[e], 1u, tag + " entry " + std::to_string(e));
          auto w = test::to_host(where, rows);
          long long held = 0, nonempty = 0, large = 0, twice = 0;
          for (unsigned r = 0; r < rows; ++r) {
            const unsigned count = off[r + 1] - off[r];
            nonempty += count > 0;
            held += w[r] == 2;
            twice += w[r] == -1;
            const unsigned long long threads = two_d ? 3ull * ((count + 95) / 96) * 32 : (count + 31ull) / 32 * 32;
            large += count > 0 && threads >= (unsigned long long)thr;
          }
          NESTOR_EXPECT(ck, twice, 0ll, tag + " second holds accepted");
          // Every large launch is held (the runs above show they ran once, wherever that was).
          NESTOR_EXPECT(ck, held, large, tag + " held launches = large launches");
          if (thr == 1) NESTOR_EXPECT(ck, held, nonempty, tag + " every launch held at threshold 1");
          if (thr == 64 && rows >= 100 && !two_d) NESTOR_EXPECT_TRUE(ck, held > 0 && held < nonempty, tag + ": some, not all, launches held");
          NESTOR_CUDA_CHECK(cudaMemset(hits, 0, sizeof(unsigned) * std::max(1u, entries)));
          NESTOR_CUDA_CHECK(cudaMemset(where, 0, sizeof(int) * rows));
        }
    NESTOR_CUDA_CHECK(cudaFree(d_off));
    NESTOR_CUDA_CHECK(cudaFree(hits));
    NESTOR_CUDA_CHECK(cudaFree(where));
  }
  return ck.finish("runtime_delayed_launches_test");
}
