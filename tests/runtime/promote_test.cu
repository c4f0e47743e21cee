// Promotion of device launches (nestor/promote.cuh): a parent thread per CSR
// row "launches" a child over the row's entries with 1D blocks of 32 and 2D
// blocks of 8x4 (partial last blocks); launches below the threshold run in
// the parent thread, the others are delayed (dbuf-global: one block-mapped
// pass, whose blocks take tasks of kDrainChunk child threads, so launches of
// up to 3,500 threads span several tasks; dual-queue: small thread-mapped,
// large block-mapped). Every child thread must run exactly once (each entry
// is incremented once), and the run counts say where each launch went, so a
// pass that drops or repeats work, or a template that delays nothing, fails.
// Mode 3 leaves room for 5 extra tasks only: the launches of several chunks
// whose chunks do not fit are each run as one task of all their threads.
#include <nestor/promote.cuh>
#include "child_launch.cuh"
#include "runtime_test_util.cuh"

using namespace nestor;

// where[r]: 1 ran in the parent thread, 2 delayed.
__global__ void parent(const unsigned *off, unsigned rows, unsigned *hits, int *where, long long thr, bool dual, bool two_d,
                       tmpl::launch_queues<child_launch> q = {}) {
  const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const unsigned first = off[r], count = off[r + 1] - first;
  if (count == 0) return;
  const dim3 block = two_d ? dim3(8, 4) : dim3(32);
  const dim3 grid = two_d ? dim3(3, (count + 3 * 32 - 1) / (3 * 32)) : dim3((count + 31) / 32);
  child_launch item{hits, first, count, grid, block};
  const bool small = tmpl::detail::volume(grid) * tmpl::detail::volume(block) < (unsigned long long)thr;
  bool delayed = false;
  if (dual) delayed = tmpl::push_launch(small ? q.small : q.large, item);
  else delayed = !small && tmpl::push_launch(q.large, item);
  where[r] = delayed ? 2 : 1;
  if (!delayed)
    tmpl::run_launch_in_thread(grid, block, [&](uint3 t, uint3 b, dim3 bd, dim3 gd) { child_thread(hits, first, count, t, b, bd, gd); });
}

__global__ void drain(tmpl::launch_queue<child_launch> q, bool block_mapped) {
  tmpl::drain_launches(q, block_mapped, [](const child_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    child_thread(a.hits, a.first, a.count, t, b, bd, gd);
  });
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(21);
  for (unsigned rows : {1u, 77u, 4999u, 30011u}) {
    const std::vector<unsigned> off = random_launch_offsets(rows, rng);
    const unsigned entries = off.back();
    unsigned *d_off = test::to_device(off), *hits = test::device_zeros<unsigned>(entries);
    int *where = test::device_zeros<int>(rows);
    for (long long thr : {1ll, 64ll, 1ll << 40})
      for (int mode = 0; mode < 4; ++mode) // 0 no queues, 1 dbuf-global, 2 dual-queue, 3 dbuf-global with 5 extra tasks
        for (bool two_d : {false, true}) {
          const bool dual = mode == 2;
          const dim3 g((rows + 127) / 128), b(128);
          if (mode == 0) {
            parent<<<g, b>>>(d_off, rows, hits, where, thr, false, two_d);
          } else {
            tmpl::launch_promoted<child_launch>(
                g, b, dual, [&](dim3 pg, dim3 pb, tmpl::launch_queues<child_launch> q) { parent<<<pg, pb>>>(d_off, rows, hits, where, thr, dual, two_d, q); },
                [&](dim3 dg, dim3 db, tmpl::launch_queue<child_launch> q, bool bm) { drain<<<dg, db>>>(q, bm); }, mode == 3 ? 5 : 0);
          }
          NESTOR_CUDA_CHECK(cudaGetLastError());
          NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
          const std::string tag = "rows=" + std::to_string(rows) + " thr=" + std::to_string(thr) + " mode=" + std::to_string(mode) +
                                  (two_d ? " 2D" : " 1D");
          auto h = test::to_host(hits, entries);
          for (unsigned e = 0; e < entries; ++e) NESTOR_EXPECT(ck, h[e], 1u, tag + " entry " + std::to_string(e));
          auto w = test::to_host(where, rows);
          // The large launches, by the parent's own rule (queues never fill: one slot per parent thread).
          long long delayed = 0, nonempty = 0, large = 0;
          for (unsigned r = 0; r < rows; ++r) {
            const unsigned count = off[r + 1] - off[r];
            nonempty += count > 0;
            delayed += w[r] == 2;
            const unsigned long long threads = two_d ? 3ull * ((count + 95) / 96) * 32 : (count + 31ull) / 32 * 32;
            large += count > 0 && threads >= (unsigned long long)thr;
          }
          // Without queues nothing is delayed; with a threshold of 1 every launch is; dual-queue delays all.
          if (mode == 0 || (mode == 1 && thr > (1ll << 30))) NESTOR_EXPECT(ck, delayed, 0ll, tag + " delayed launches");
          if ((mode == 1 && thr == 1) || mode == 2) NESTOR_EXPECT(ck, delayed, nonempty, tag + " delayed launches");
          if (mode == 1) NESTOR_EXPECT(ck, delayed, large, tag + " delayed launches = large launches");
          if (mode == 3) NESTOR_EXPECT(ck, delayed, large, tag + " delayed launches = large launches (5 extra tasks)");
          if (mode == 1 && thr == 64 && rows >= 100 && !two_d)
            NESTOR_EXPECT_TRUE(ck, delayed > 0 && delayed < nonempty, tag + ": some, not all, launches delayed");
          NESTOR_CUDA_CHECK(cudaMemset(hits, 0, sizeof(unsigned) * std::max(1u, entries)));
          NESTOR_CUDA_CHECK(cudaMemset(where, 0, sizeof(int) * rows));
        }
  }
  return ck.finish("runtime_promote_test");
}
