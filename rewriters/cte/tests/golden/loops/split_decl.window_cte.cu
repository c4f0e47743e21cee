// Locals declared several to a statement ahead of the loop, as Rodinia and
// cuda-samples write them (CUDA-NP and sub-warp wrap each declarator's
// initialiser on its own; docs/rewrites-loops.md):
//   in_window: two scalars from memory (`float a = lo[i], b = hi[i];`);
//   scaled_rows: a uniform, a memory and the accumulator's initialiser in
//     one declaration, and a uniform one beside the thread id;
//   to_slot: a scalar and a pointer declarator (`float base = ..., *dst = ...;`);
//   window_sum: const declarators, the second initialised from the first
//     (`const int b = start[i], len = start[i + 1] - b;`: both broadcast);
//   weighted_prefix: a scan whose loop body declares two locals in one
//     statement, the second from the first.
// The host checks every result against a serial reference.
#include "loops_harness.cuh"
#include <nestor/cte.cuh>

__global__ void in_window(const float *lo, const float *hi, const int *start, const float *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = lo[i], b = hi[i];
  int cnt = 0;
  // Rewrite loop with CTE ("Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement", III-B): the warp expands its
  // threads' ranges into one list of fine tasks and reduces them per owner.
  cnt = nestor::cte::for_each_index<128, nestor::cte::scanned>(
      start[i], start[i + 1],
      [=](int k, float a, float b) { return (v[k] >= a && v[k] <= b); },
      nestor::op::add{}, cnt, a, b);
  out[i] = cnt;
}

__global__ void scaled_rows(const int *row, const float *w, const float *bias_in, float scale, float *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x, twice = 2;
  if (v >= n) return;
  float s = scale * twice, bias = bias_in[v], sum = 0.0f;
  for (int e = row[v]; e < row[v + 1]; ++e) sum += w[e] * s;
  out[v] = sum + bias;
}

__global__ void to_slot(const int *row, const float *w, const float *base_in, const int *slot, float *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float base = base_in[v], *dst = out + slot[v];
  float sum = 0.0f;
  for (int e = row[v]; e < row[v + 1]; ++e) sum += w[e];
  *dst = sum - base;
}

__global__ void window_sum(const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int b = start[i], len = start[i + 1] - b;
  float sum = 0.0f;
  for (int e = 0; e < len; ++e) sum += w[b + e];
  out[i] = sum;
}

__global__ void weighted_prefix(const float *a, const float *wt, float *prefix, int n, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float acc = 0.0f;
#pragma np parallel for scan(+:acc)
  for (int j = 0; j < m; ++j) {
    float x = a[(long long)row * m + j], y = x * wt[row];
    acc += y;
    prefix[(long long)row * m + j] = acc;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12)), m = int(args.get("m", 24));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  const loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 17)));
  const size_t nnz = g.col.size();
  const std::vector<float> vals = loops::random_floats(nnz, 21), lo_h = loops::random_floats(size_t(n), 22, -1.f, 0.2f),
                           hi_h = loops::random_floats(size_t(n), 23, 0.f, 1.f),
                           bias_h = loops::random_floats(size_t(n), 24), dense = loops::random_floats(size_t(n) * m, 25),
                           wt_h = loops::random_floats(size_t(n), 26, 0.5f, 2.f);
  std::vector<int> slot_h(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) slot_h[size_t(i)] = int((unsigned(i) * 7919u) % unsigned(n)); // a permutation (n prime to 7919)
  const float scale = 0.75f;
  int *rowp = loops::to_device(g.rowptr), *slot = loops::to_device(slot_h);
  float *w = loops::to_device(vals), *lo = loops::to_device(lo_h), *hi = loops::to_device(hi_h),
        *bias = loops::to_device(bias_h), *a = loops::to_device(dense), *wt = loops::to_device(wt_h);
  int *counts = loops::device_zeros<int>(size_t(n));
  float *scaled = loops::device_zeros<float>(size_t(n)), *slotted = loops::device_zeros<float>(size_t(n)),
        *windows = loops::device_zeros<float>(size_t(n)), *prefix = loops::device_zeros<float>(size_t(n) * m);
  const int blocks = (n + 127) / 128;
  loops::timed(args, 4.0 * (4.0 * nnz + 4.0 * n + 2.0 * double(n) * m), [&] {
    in_window<<<blocks, 128>>>(lo, hi, rowp, w, counts, n);
    scaled_rows<<<blocks, 128>>>(rowp, w, bias, scale, scaled, n);
    to_slot<<<blocks, 128>>>(rowp, w, bias, slot, slotted, n);
    window_sum<<<blocks, 128>>>(rowp, w, windows, n);
    weighted_prefix<<<blocks, 128>>>(a, wt, prefix, n, m);
  });
  const std::vector<int> counts_h = loops::from_device(counts, size_t(n));
  const std::vector<float> scaled_h = loops::from_device(scaled, size_t(n)), slotted_h = loops::from_device(slotted, size_t(n)),
                           windows_h = loops::from_device(windows, size_t(n)),
                           prefix_h = loops::from_device(prefix, size_t(n) * m);
  // The serial reference.
  auto close = [](double got, double want) { return std::fabs(got - want) <= 1e-3 * (1.0 + std::fabs(want)); };
  for (int i = 0; i < n; ++i) {
    int cnt = 0;
    double sum = 0.0;
    for (int k = g.rowptr[size_t(i)]; k < g.rowptr[size_t(i) + 1]; ++k) {
      cnt += vals[size_t(k)] >= lo_h[size_t(i)] && vals[size_t(k)] <= hi_h[size_t(i)];
      sum += vals[size_t(k)];
    }
    const double scaledWant = sum * double(scale * 2) + bias_h[size_t(i)];
    if (counts_h[size_t(i)] != cnt || !close(scaled_h[size_t(i)], scaledWant) ||
        !close(slotted_h[size_t(slot_h[size_t(i)])], sum - bias_h[size_t(i)]) || !close(windows_h[size_t(i)], sum)) {
      std::fprintf(stderr, "FAIL: row %d: count %d, scaled %g, slotted %g, window %g; the serial reference gives %d, %g, %g, %g\n",
                   i, counts_h[size_t(i)], double(scaled_h[size_t(i)]), double(slotted_h[size_t(slot_h[size_t(i)])]),
                   double(windows_h[size_t(i)]), cnt, scaledWant, sum - bias_h[size_t(i)], sum);
      return 1;
    }
    double acc = 0.0;
    for (int j = 0; j < m; ++j) {
      acc += double(dense[size_t(i) * m + j]) * wt_h[size_t(i)];
      if (!close(prefix_h[size_t(i) * m + j], acc)) {
        std::fprintf(stderr, "FAIL: prefix[%d][%d] = %g; the serial reference gives %g\n", i, j,
                     double(prefix_h[size_t(i) * m + j]), acc);
        return 1;
      }
    }
  }
  loops::ResultFile res(args);
  res.add(counts_h);
  res.add(scaled_h);
  res.add(slotted_h);
  res.add(windows_h);
  res.add(prefix_h);
  return 0;
}
