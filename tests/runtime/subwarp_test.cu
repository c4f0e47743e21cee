// Sub-warp decomposition (subwarp::for_each_index<W>, subwarp::tile<W>) for
// every width W in {2,4,8,16,32}: one tile per task over seeded irregular
// CSR rows (empty and long rows), with an nestor::op functor (identity path)
// and with plain lambdas (presence-flag path); a grid-stride mapping with fewer
// tiles than tasks; tiles returning early; and tile primitives on tiles with
// holes (single lanes exited), which take the ordered slow path.
#include <nestor/subwarp.cuh>
#include "runtime_test_util.cuh"

using namespace nestor;

struct sw_results {
  long long* sum;   // op::add<long long>
  float* fsum;      // lambda float add
  int* mx;          // lambda max (no identity known to the library)
  int* agree;       // 1 if every lane of the tile got the same values
};

template <int W, bool GridStride>
__global__ void subwarp_kernel(const int* rowptr, const int* data, long long tasks, sw_results out) {
  using tile = subwarp::tile<W>;
  long long task = (long long)tile::global_index();
  const long long stride = GridStride ? (long long)tile::count_in_grid() : tasks + 1;
  if (!GridStride && task >= tasks) return;  // whole tiles leave early
  for (; task < tasks; task += stride) {
    const int b = rowptr[task], e = rowptr[task + 1];
    const long long s = subwarp::for_each_index<W>(b, e, [=](int i) { return (long long)data[i]; }, op::add{}, 7ll);
    const float f = subwarp::for_each_index<W>(b, e, [=](int i) { return float(data[i]) * 0.5f; },
                                               [](float x, float y) { return x + y; }, 1.0f);
    const int m = subwarp::for_each_index<W>(b, e, [=](int i) { return data[i]; },
                                             [](int x, int y) { return x > y ? x : y; }, -1000000);
    // Every lane must hold the tile's result.
    const long long s0 = tile::broadcast(s, 0);
    const float f0 = tile::broadcast(f, 0);
    const int m0 = tile::broadcast(m, 0);
    const int same = tile::reduce((s == s0 && f == f0 && m == m0) ? 1 : 0, op::logical_and{});
    if (tile::rank() == 0) {
      out.sum[task] = s;
      out.fsum[task] = f;
      out.mx[task] = m;
      out.agree[task] = same;
    }
  }
}

template <int W, bool GridStride>
void run_tasks(test::checker& ck, long long tasks, unsigned blocks_cap, std::mt19937_64& rng) {
  std::vector<int> rowptr(tasks + 1, 0);
  for (long long t = 0; t < tasks; ++t) {
    const int r = int(rng() % 100);
    const int len = r < 20 ? 0 : r < 70 ? 1 + int(rng() % 12) : r < 92 ? 13 + int(rng() % 60) : 73 + int(rng() % 500);
    rowptr[t + 1] = rowptr[t] + len;
  }
  std::vector<int> data(rowptr[tasks] + 1);
  for (auto& d : data) d = int(rng() % 20001) - 10000;
  int* d_rp = test::to_device(rowptr);
  int* d_data = test::to_device(data);
  sw_results out{test::device_zeros<long long>(tasks), test::device_zeros<float>(tasks), test::device_zeros<int>(tasks),
                 test::device_zeros<int>(tasks)};
  const unsigned threads = 128;
  unsigned blocks = unsigned(subwarp::blocks_for_tasks<W>(tasks, threads));
  if (GridStride) blocks = std::min(blocks, blocks_cap);
  subwarp_kernel<W, GridStride><<<blocks, threads>>>(d_rp, d_data, tasks, out);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  auto sum = test::to_host(out.sum, tasks);
  auto fsum = test::to_host(out.fsum, tasks);
  auto mx = test::to_host(out.mx, tasks);
  auto agree = test::to_host(out.agree, tasks);
  const std::string name = "subwarp W=" + std::to_string(W) + (GridStride ? " grid-stride" : " one-tile-per-task");
  for (long long t = 0; t < tasks; ++t) {
    long long s = 7;
    float f = 1.0f;
    int m = -1000000;
    for (int i = rowptr[t]; i < rowptr[t + 1]; ++i) {
      s += data[i];
      f += float(data[i]) * 0.5f;
      m = std::max(m, data[i]);
    }
    const std::string at = name + " task " + std::to_string(t) + " len " + std::to_string(rowptr[t + 1] - rowptr[t]);
    NESTOR_EXPECT(ck, sum[t], s, at + " sum (op::add)");
    NESTOR_EXPECT(ck, fsum[t], f, at + " float sum (lambda)");
    NESTOR_EXPECT(ck, mx[t], m, at + " max (lambda)");
    NESTOR_EXPECT(ck, agree[t], 1, at + " all lanes agree");
  }
  for (void* d : {(void*)d_rp, (void*)d_data, (void*)out.sum, (void*)out.fsum, (void*)out.mx, (void*)out.agree})
    NESTOR_CUDA_CHECK(cudaFree(d));
}

// Tile primitives with holes: lane l leaves when alive[l] == 0; the others
// reduce, scan (ranks in order) and broadcast within their tile.
template <int W>
__global__ void holes_kernel(const int* alive, const int* values, int* red, int* incl, int* excl, int* bcast) {
  using tile = subwarp::tile<W>;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (!alive[t]) return;
  const int v = values[t];
  red[t] = tile::reduce(v, op::add{});
  incl[t] = tile::template inclusive_scan<op::add>(v, op::add{}, 100);
  excl[t] = tile::template exclusive_scan<op::add>(v, op::add{}, 100);
  // Broadcast from the lowest live rank of the tile.
  const unsigned live = tile::live_mask();
  const int lowest = (__ffs(live) - 1) & (W - 1);
  bcast[t] = tile::broadcast(v, lowest);
}

template <int W> void run_holes(test::checker& ck, std::mt19937_64& rng) {
  const int n = 256;
  std::vector<int> alive(n), values(n);
  for (int i = 0; i < n; ++i) {
    alive[i] = rng() % 3 != 0;
    values[i] = int(rng() % 1000);
  }
  for (int i = 0; i < W; ++i) alive[i] = 1;
  int* d_alive = test::to_device(alive);
  int* d_values = test::to_device(values);
  int *red = test::device_zeros<int>(n), *incl = test::device_zeros<int>(n), *excl = test::device_zeros<int>(n),
      *bc = test::device_zeros<int>(n);
  holes_kernel<W><<<n / 128, 128>>>(d_alive, d_values, red, incl, excl, bc);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  auto h_red = test::to_host(red, n), h_incl = test::to_host(incl, n), h_excl = test::to_host(excl, n),
       h_bc = test::to_host(bc, n);
  for (int base = 0; base < n; base += W) {
    int total = 0, first = -1;
    for (int l = base; l < base + W; ++l)
      if (alive[l]) {
        total += values[l];
        if (first < 0) first = l;
      }
    int run = 0;
    for (int l = base; l < base + W; ++l) {
      if (!alive[l]) continue;
      const std::string at = "holes W=" + std::to_string(W) + " lane " + std::to_string(l);
      NESTOR_EXPECT(ck, h_red[l], total, at + " reduce");
      NESTOR_EXPECT(ck, h_excl[l], 100 + run, at + " exclusive_scan");
      run += values[l];
      NESTOR_EXPECT(ck, h_incl[l], 100 + run, at + " inclusive_scan");
      NESTOR_EXPECT(ck, h_bc[l], values[first], at + " broadcast from lowest live rank");
    }
  }
  for (void* d : {(void*)d_alive, (void*)d_values, (void*)red, (void*)incl, (void*)excl, (void*)bc})
    NESTOR_CUDA_CHECK(cudaFree(d));
}

template <int W> void run_width(test::checker& ck, std::mt19937_64& rng) {
  run_tasks<W, false>(ck, 2999, 0, rng);
  run_tasks<W, true>(ck, 2999, 5, rng);
  run_holes<W>(ck, rng);
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(99);
  run_width<2>(ck, rng);
  run_width<4>(ck, rng);
  run_width<8>(ck, rng);
  run_width<16>(ck, rng);
  run_width<32>(ck, rng);
  return ck.finish("subwarp_test");
}
