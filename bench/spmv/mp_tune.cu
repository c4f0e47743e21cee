// Tuning sweep for the merge-path runtime (nestor/merge_path.cuh) on the
// bench/spmv matrices, in one process per matrix (the matrix is generated
// once): tile shapes (threads per block, diagonals per thread, resident
// blocks asked of the compiler) and load paths of f(j), each timed with its
// row pass as the rewrite launches them, and the merge kernel alone, against
// cusparseSpMV on the same matrix and vectors; loads-only bounds (the loads
// of f for every nonzero with more or less memory-level parallelism, no per-
// row result: how fast any variant could be); a per-warp pipeline of the
// merge kernel (an experiment, two-pass). Every configuration's result
// is checked against the float64 reference (spmv_reference.h) and for
// identical bits after the timed launches. Not a test: it prints figures.
//   bench_spmv_tune --graph powerlaw|regular|longrows --rows R [--avg A] [--reps N]
#include "spmv_reference.h"

#include <nestor/merge_path.cuh>

#include <algorithm>
#include <cusparse.h>
#include <functional>
#include <string>

#define CHECK_CUSPARSE(x) do { if ((x) != CUSPARSE_STATUS_SUCCESS) { std::fprintf(stderr, "cuSPARSE error at %d\n", __LINE__); std::exit(1); } } while (0)

namespace {

// Load paths of f(j) = val[j] * x[col[j]] (what the generator would emit).
enum Hint { kPlain = 0, kLdg = 1, kRestrict = 2, kStream = 3 };

template <int B, int I, int MB, int H>
__global__ void __launch_bounds__(B, MB) merge_k(const int *rowptr, const int *col, const float *val, const float *x, float *y,
                                                 int rows, nestor::mp::state s) {
  if constexpr (H == kLdg)
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return __ldg(&val[j]) * __ldg(&x[__ldg(&col[j])]); },
                                        nestor::op::add{});
  else if constexpr (H == kStream)
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return __ldcs(&val[j]) * __ldg(&x[__ldcs(&col[j])]); },
                                        nestor::op::add{});
  else
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

template <int B, int I, int MB>
__global__ void __launch_bounds__(B, MB) merge_restrict_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                          const float *__restrict__ val, const float *__restrict__ x,
                                                          float *__restrict__ y, int rows, nestor::mp::state s) {
  nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

// The fused form the rewrite generates (the epilogue `y[row] = 0 + v` runs in
// the merge kernel; no row pass when the launch has one thread per row).
template <int B, int I, int MB, int H>
__global__ void __launch_bounds__(B, MB) merge_fused_k(const int *rowptr, const int *col, const float *val, const float *x,
                                                       float *y, int rows, nestor::mp::state s) {
  auto epi = [&](long long q, float v) {
    float sum = 0.0f;
    sum = nestor::op::add{}(sum, v);
    y[q] = sum;
  };
  if constexpr (H == kLdg)
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return __ldg(&val[j]) * __ldg(&x[__ldg(&col[j])]); },
                                        nestor::op::add{}, epi);
  else
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{}, epi);
}

// The fused form at other shapes: W rows in the row-end window, Fix fix-up
// records per thread per phase.
template <int B, int I, int MB, int W, int Fix>
__global__ void __launch_bounds__(B, MB) merge_fused_shape_k(const int *rowptr, const int *col, const float *val,
                                                             const float *x, float *y, int rows, nestor::mp::state s) {
  auto epi = [&](long long q, float v) {
    float sum = 0.0f;
    sum = nestor::op::add{}(sum, v);
    y[q] = sum;
  };
  nestor::mp::merge_rows<float, B, I, W, Fix>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{}, epi);
}

// ---- A per-warp pipeline (experiment, two-pass only): every warp is a merge
// unit of its own (its own range of diagonals, found by a warp-wide k-ary
// search; chunks of 32 x Items diagonals; no block barriers, only
// __syncwarp). Unit u = blockIdx.x * Warps + warp plays the part of block b of
// merge_rows, so the state (span = the unit's D, carry[unit]) is what
// row_result reads: the row pass is unchanged.
template <class Ptr>
__device__ __forceinline__ long long warp_search(Ptr P, long long n, long long base, long long d) {
  const int lane = threadIdx.x & 31;
  long long lo = 0, hi = n;
  while (lo < hi) {
    const long long len = hi - lo;
    const long long m = len < 32 ? len : 32;
    bool pred = false;
    if (lane < m) {
      const long long x = lo + (len * (lane + 1)) / m - 1;
      pred = (long long)P[x + 1] - base + x < d;
    }
    const long long cnt = __popc(__ballot_sync(0xffffffffu, pred));
    const long long nlo = cnt > 0 ? lo + (len * cnt) / m : lo;
    const long long nhi = cnt < m ? lo + (len * (cnt + 1)) / m - 1 : hi;
    lo = nlo;
    hi = nhi;
  }
  return lo;
}

template <class T, int Items, int Warps, class Ptr, class F, class Op>
__device__ __forceinline__ void merge_rows_warp(const nestor::mp::state &s, Ptr P, long long n, F f, Op op) {
  constexpr int kChunk = 32 * Items;
  using I = cuda::std::remove_cv_t<cuda::std::remove_reference_t<decltype(P[0])>>;
  __shared__ int s_endAll[Warps][kChunk];
  __shared__ T s_valAll[Warps][kChunk];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int *s_end = s_endAll[warp];
  T *s_val = s_valAll[warp];
  T *rows = static_cast<T *>(s.rows);
  T *carry = static_cast<T *>(s.carry);
  const long long base = (long long)P[0];
  const long long nnz = (long long)P[n] - base;
  const long long total = n + nnz;
  const long long G = (long long)gridDim.x * Warps;
  const long long unit = (long long)blockIdx.x * Warps + warp;
  const long long D = (total + G - 1) / G;
  if (unit == 0 && lane == 0) *s.span = D;
  long long dBeg = unit * D, dLim = dBeg + D;
  if (dBeg > total) dBeg = total;
  if (dLim > total) dLim = total;
  const T identity = Op::template identity<T>();
  long long a0 = warp_search(P, n, base, dBeg);
  long long cr = a0;
  T cv = identity;
  T tmp[Items];
  for (long long d0 = dBeg; d0 < dLim; d0 += kChunk) {
    const int dn = int(d0 + kChunk < dLim ? kChunk : dLim - d0);
    const long long b0 = d0 - a0;
    const int nvMax = int(nnz - b0 < dn ? nnz - b0 : dn);
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = lane + i * 32;
      if (j < nvMax) tmp[i] = f((I)(base + b0 + j));
    }
    const int wmax = int(n - a0 < kChunk ? n - a0 : kChunk);
    int loaded = 0;
    for (;;) {
      const int k = loaded + lane;
      if (k < wmax) s_end[k] = int((long long)P[a0 + 1 + k] - base - b0);
      loaded = loaded + 32 < wmax ? loaded + 32 : wmax;
      __syncwarp();
      if (loaded >= wmax || s_end[loaded - 1] + loaded - 1 >= dn) break;
    }
    const int a1 = nestor::mp::detail::window_search(s_end, loaded, dn);
    const int nv = dn - a1;
    const int dt = lane * Items < dn ? lane * Items : dn;
    const int de = dt + Items < dn ? dt + Items : dn;
    int a = nestor::mp::detail::window_search(s_end, loaded < dt ? loaded : dt, dt);
    int b = dt - a;
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = lane + i * 32;
      if (j < nv) s_val[j] = tmp[i];
    }
    __syncwarp();
    T acc = identity;
    int firstRow = -1;
    T firstVal = identity;
    for (int dd = dt; dd < de; ++dd) {
      if (b < s_end[a]) {
        acc = op(acc, s_val[b]);
        ++b;
      } else {
        if (firstRow < 0) {
          firstRow = a;
          firstVal = acc;
        } else {
          rows[a0 + a] = acc;
        }
        acc = identity;
        ++a;
      }
    }
    const int key = a;
    T v = acc;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      T vv = __shfl_up_sync(0xffffffffu, v, off);
      int kk = __shfl_up_sync(0xffffffffu, key, off);
      if (lane >= off && kk == key) v = op(vv, v);
    }
    const T prevV = __shfl_up_sync(0xffffffffu, v, 1);
    const int prevK = __shfl_up_sync(0xffffffffu, key, 1);
    if (firstRow >= 0) {
      bool has = false;
      T pre = identity;
      if (cr == a0 + firstRow) {
        pre = cv;
        has = true;
      }
      if (lane > 0 && prevK == firstRow) {
        pre = has ? op(pre, prevV) : prevV;
        has = true;
      }
      rows[a0 + firstRow] = has ? op(pre, firstVal) : firstVal;
    }
    const long long lk = a0 + __shfl_sync(0xffffffffu, key, 31);
    const T lv = __shfl_sync(0xffffffffu, v, 31);
    cv = cr == lk ? op(cv, lv) : lv;
    cr = lk;
    a0 += a1;
    __syncwarp(); // every lane is done with s_end and s_val before the next chunk writes them
  }
  if (lane == 0) carry[unit] = cv;
}

template <int I, int W, int MB>
__global__ void __launch_bounds__(32 * W, MB) merge_warp_k(const int *rowptr, const int *col, const float *val, const float *x,
                                                          float *y, int rows, nestor::mp::state s) {
  merge_rows_warp<float, I, W>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

// Speed of light for the loads of f: every iteration once, grid-stride, no merge.
__global__ void __launch_bounds__(256) loads_only_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                    const float *__restrict__ val, const float *__restrict__ x, float *y, int rows) {
  const int nnz = rowptr[rows];
  float acc = 0;
#pragma unroll 8
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nnz; j += gridDim.x * blockDim.x) acc += val[j] * x[col[j]];
  if (acc == 1234.5f) y[0] = acc;
}

// Loads-only bounds with more memory-level parallelism per thread: U
// independent nonzeros per step, every index and value load issued before
// any gather, every gather before any use, U accumulators.
template <int U>
__global__ void __launch_bounds__(256) loads_ilp_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                   const float *__restrict__ val, const float *__restrict__ x, float *y, int rows) {
  const int nnz = rowptr[rows];
  const int stride = gridDim.x * blockDim.x;
  float acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = 0.f;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  for (; j + (U - 1) * stride < nnz; j += U * stride) {
    int c[U];
    float v[U], xv[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      c[u] = col[j + u * stride];
      v[u] = val[j + u * stride];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) xv[u] = x[c[u]];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += v[u] * xv[u];
  }
  for (; j < nnz; j += stride) acc[0] += val[j] * x[col[j]];
  float t = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) t += acc[u];
  if (t == 1234.5f) y[0] = t;
}

// The same with 128-bit loads of indices and values: V x 4 gathers in
// flight per thread (cudaMalloc'd arrays: 16-byte aligned).
template <int V>
__global__ void __launch_bounds__(256) loads_vec_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                   const float *__restrict__ val, const float *__restrict__ x, float *y, int rows) {
  const int nnz = rowptr[rows];
  const int n4 = nnz / 4;
  const int stride = gridDim.x * blockDim.x;
  const int4 *col4 = reinterpret_cast<const int4 *>(col);
  const float4 *val4 = reinterpret_cast<const float4 *>(val);
  float acc[V];
#pragma unroll
  for (int u = 0; u < V; ++u) acc[u] = 0.f;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  for (; j + (V - 1) * stride < n4; j += V * stride) {
    int4 c[V];
    float4 v[V];
    float xv[V][4];
#pragma unroll
    for (int u = 0; u < V; ++u) {
      c[u] = col4[j + u * stride];
      v[u] = val4[j + u * stride];
    }
#pragma unroll
    for (int u = 0; u < V; ++u) {
      xv[u][0] = x[c[u].x];
      xv[u][1] = x[c[u].y];
      xv[u][2] = x[c[u].z];
      xv[u][3] = x[c[u].w];
    }
#pragma unroll
    for (int u = 0; u < V; ++u) acc[u] += v[u].x * xv[u][0] + v[u].y * xv[u][1] + v[u].z * xv[u][2] + v[u].w * xv[u][3];
  }
  for (; j < n4; j += stride) {
    const int4 c = col4[j];
    const float4 v = val4[j];
    acc[0] += v.x * x[c.x] + v.y * x[c.y] + v.z * x[c.z] + v.w * x[c.w];
  }
  for (int k = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride) acc[0] += val[k] * x[col[k]];
  float t = 0.f;
#pragma unroll
  for (int u = 0; u < V; ++u) t += acc[u];
  if (t == 1234.5f) y[0] = t;
}

// Warp per chunk: a warp takes 32 x K consecutive nonzeros (coalesced, all K
// loads per lane issued before use), reduces them with shuffles, then takes
// the next chunk (grid-stride over chunks): the merge kernel's load shape
// with the cheapest possible bookkeeping.
template <int K>
__global__ void __launch_bounds__(256) loads_warp_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                    const float *__restrict__ val, const float *__restrict__ x, float *y, int rows) {
  const int nnz = rowptr[rows];
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x / 32);
  float total = 0.f;
  for (long long c0 = ((long long)blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5)) * 32 * K; c0 < nnz; c0 += warps * 32 * K) {
    float v[K];
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const long long j = c0 + lane + 32 * i;
      v[i] = j < nnz ? val[j] * x[col[j]] : 0.f;
    }
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < K; ++i) s += v[i];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    total += s;
  }
  if (total == 1234.5f) y[0] = total;
}

// The row pass, as the rewrite leaves the user's kernel.
__global__ void row_k(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows,
                      nestor::mp::state nestor_mp) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  if (nestor_mp.ready())
    sum = nestor::op::add{}(sum, nestor_mp.row_result<float>(rowptr[row], rowptr[row + 1], row, nestor::op::add{}, rowptr[0]));
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) sum += val[j] * x[col[j]];
  y[row] = sum;
}

struct Data {
  int *rp, *ci;
  float *v, *x, *y;
  int rows;
};

struct Config {
  std::string name;
  std::function<void(const Data &, bool withRows)> run;
};

template <int B, int I, int MB, int H> Config make(const char *name) {
  Config c;
  c.name = name;
  c.run = [](const Data &d, bool withRows) {
    using K = void (*)(const int *, const int *, const float *, const float *, float *, int, nestor::mp::state);
    K k;
    if constexpr (H == kRestrict) k = merge_restrict_k<B, I, MB>;
    else k = merge_k<B, I, MB, H>;
    nestor::mp::launch<float, B>(
        d.rows, k, [&](nestor::mp::state s, int grid) { k<<<grid, B>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); },
        [&](nestor::mp::state s) {
          if (withRows) row_k<<<(d.rows + 31) / 32, 32>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s);
        });
  };
  return c;
}

/// The per-warp merge kernel (W warps per block), then the row pass: the
/// state's carry has one entry per warp, so the scratch is the tune's own.
template <int I, int W, int MB> Config make_warp(const char *name) {
  Config c;
  c.name = name;
  c.run = [](const Data &d, bool withRows) {
    auto k = merge_warp_k<I, W, MB>;
    static int grid = 0;
    static char *buf = nullptr;
    if (!grid) {
      grid = nestor::mp::grid_for(k, 32 * W);
      const size_t rowsBytes = nestor::mp::round256(size_t(d.rows) * sizeof(float));
      NESTOR_CUDA_CHECK(cudaMalloc(&buf, nestor::mp::kHeader + rowsBytes + size_t(grid) * W * sizeof(float)));
    }
    nestor::mp::state s;
    s.span = reinterpret_cast<long long *>(buf + 8);
    s.rows = buf + nestor::mp::kHeader;
    s.carry = buf + nestor::mp::kHeader + nestor::mp::round256(size_t(d.rows) * sizeof(float));
    k<<<grid, 32 * W>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s);
    if (withRows) row_k<<<(d.rows + 31) / 32, 32>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s);
  };
  return c;
}

/// The fused launch at another shape; prints the kernel's registers, shared
/// memory and resident blocks (grid_for's grid) before its first run.
template <int B, int I, int MB, int W, int Fix> Config make_fused_shape(const char *name) {
  Config c;
  c.name = name;
  c.run = [](const Data &d, bool) {
    auto k = merge_fused_shape_k<B, I, MB, W, Fix>;
    static bool once = false;
    if (!once) {
      once = true;
      const int grid = nestor::mp::grid_for(k, B);
      cudaFuncAttributes fa;
      NESTOR_CUDA_CHECK(cudaFuncGetAttributes(&fa, k));
      int sms = 0;
      NESTOR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      std::printf("  (next: %d regs, %zu B shared, %d blocks/SM)\n", fa.numRegs, fa.sharedSizeBytes, grid / sms);
    }
    nestor::mp::launch<float, B>(
        d.rows, dim3((d.rows + 31) / 32), dim3(32), k,
        [&](nestor::mp::state s, int grid) { k<<<grid, B>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); },
        [&](nestor::mp::state s, dim3 g, dim3 b) { row_k<<<g, b>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); });
  };
  return c;
}

/// The fused launch (one kernel); "merge alone" is the same launch.
/// TwoD: the original launched on a grid of height 2 (every row twice, the
/// same value): not one thread per row, so the runtime falls back to the
/// merge kernel (epilogue not run) + the row pass.
template <int B, int I, int MB, int H, bool TwoD = false> Config make_fused(const char *name) {
  Config c;
  c.name = name;
  c.run = [](const Data &d, bool) {
    auto k = merge_fused_k<B, I, MB, H>;
    nestor::mp::launch<float, B>(
        d.rows, dim3((d.rows + 31) / 32, TwoD ? 2 : 1), dim3(32), k,
        [&](nestor::mp::state s, int grid) { k<<<grid, B>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); },
        [&](nestor::mp::state s, dim3 g, dim3 b) { row_k<<<g, b>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); });
  };
  return c;
}

cudaEvent_t e0, e1;
double median_ms(int reps, const std::function<void()> &f) {
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    NESTOR_CUDA_CHECK(cudaEventRecord(e0));
    f();
    NESTOR_CUDA_CHECK(cudaEventRecord(e1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  NESTOR_CUDA_CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 100000)), avg = int(args.get("avg", 16)), reps = int(args.get("reps", 20));
  const std::string kind = args.str("graph", "powerlaw");
  const loops::Csr a = loops::make_csr(rows, rows, avg, kind == "powerlaw", 7);
  const std::vector<float> hx = loops::random_floats(size_t(rows), 8);
  const spmv::Reference ref = spmv::reference(a, hx);
  Data d{loops::to_device(a.rowptr), loops::to_device(a.col), loops::to_device(a.val), loops::to_device(hx),
         loops::device_zeros<float>(size_t(rows)), rows};
  NESTOR_CUDA_CHECK(cudaEventCreate(&e0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&e1));
  const double bytes = 12.0 * a.val.size() + 12.0 * rows;
  // Copy bandwidth (read + write), the bench's ceiling.
  const size_t half = std::max(size_t(bytes / 2), size_t(16) << 20);
  void *src, *dst;
  NESTOR_CUDA_CHECK(cudaMalloc(&src, half));
  NESTOR_CUDA_CHECK(cudaMalloc(&dst, half));
  NESTOR_CUDA_CHECK(cudaMemset(src, 1, half));
  const double copy_ms = median_ms(reps, [&] { NESTOR_CUDA_CHECK(cudaMemcpy(dst, src, half, cudaMemcpyDeviceToDevice)); });
  const double copy_gbs = 2.0 * half / (copy_ms * 1e6);
  NESTOR_CUDA_CHECK(cudaFree(src));
  NESTOR_CUDA_CHECK(cudaFree(dst));
  // cuSPARSE.
  cusparseHandle_t sp;
  CHECK_CUSPARSE(cusparseCreate(&sp));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t X, Y;
  CHECK_CUSPARSE(cusparseCreateCsr(&A, rows, rows, int64_t(a.val.size()), d.rp, d.ci, d.v, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK_CUSPARSE(cusparseCreateDnVec(&X, rows, d.x, CUDA_R_32F));
  CHECK_CUSPARSE(cusparseCreateDnVec(&Y, rows, d.y, CUDA_R_32F));
  const float one = 1.f, zero = 0.f;
  size_t ws = 0;
  CHECK_CUSPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                                         CUSPARSE_SPMV_ALG_DEFAULT, &ws));
  void *buf;
  NESTOR_CUDA_CHECK(cudaMalloc(&buf, ws ? ws : 1));
  auto cusp = [&] {
    cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
  };
  cusp();
  spmv::Verdict cv = spmv::check(ref, loops::from_device(d.y, size_t(rows)), "cusparse");
  const double cusp_ms = median_ms(reps, cusp);
  std::printf("matrix %s rows=%d nnz=%zu copy_gbs=%.0f\n", kind.c_str(), rows, a.val.size(), copy_gbs);
  std::printf("%-28s %9s %9s %7s %7s %8s %s\n", "config", "total_ms", "merge_ms", "x_cusp", "of_copy", "worst", "bits");
  std::printf("%-28s %9.4f %9s %7.2f %7.3f %8.3f %s\n", "cusparseSpMV", cusp_ms, "-", 1.0, bytes / (cusp_ms * 1e6) / copy_gbs,
              cv.worst, cv.bad ? "WRONG" : "-");
  // The runtime's default shape first, then the earlier default and the
  // shapes and load paths of the sweep in docs/rewrites-merge-path.md.
  // (Session 8: the two-pass default against the fused form at several
  // shapes; the earlier sweep's configurations are in git history.)
  const Config configs[] = {
      make<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kPlain>("default 2-pass"),
      make_fused<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kPlain>("fused default"),
      make_fused<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kLdg>("fused ldg"),
      // Session 9 (the sweep is in docs/rewrites-merge-path.md): the window
      // and the fix-up records, 256 x 8, a per-warp pipeline.
      make_fused_shape<128, 12, 7, 1536, 4>("fused, window 1536"),
      make_fused_shape<128, 12, 6, 512, 8>("fused, fix8 mb6"),
      make_fused_shape<256, 8, 4, 512, 4>("fused b256 i8 mb4"),
      make_fused_shape<256, 8, 4, 2048, 4>("fused b256 i8 mb4 w2048"),
      make_warp<12, 4, 6>("warp i12 w4 mb6 (2-pass)"),
      make_fused<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kPlain, true>("fused, 2-D grid: 2-pass"),
  };
  {
    int sms = 0;
    NESTOR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // Loads-only bounds (no per-row result): the session-8 grid-stride loop,
    // then more independent loads per thread, 128-bit loads, a warp per chunk.
    struct Bound {
      const char *name;
      std::function<void()> run;
    };
    const Bound bounds[] = {
        {"loads only x8", [&] { loads_only_k<<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads ilp4 x8", [&] { loads_ilp_k<4><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads ilp8 x8", [&] { loads_ilp_k<8><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads ilp8 x4", [&] { loads_ilp_k<8><<<sms * 4, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads ilp16 x8", [&] { loads_ilp_k<16><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads vec1 x8", [&] { loads_vec_k<1><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads vec2 x8", [&] { loads_vec_k<2><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads vec4 x8", [&] { loads_vec_k<4><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads warp k8 x8", [&] { loads_warp_k<8><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads warp k12 x8", [&] { loads_warp_k<12><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
        {"loads warp k16 x8", [&] { loads_warp_k<16><<<sms * 8, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); }},
    };
    for (const Bound &b : bounds) {
      const double t = median_ms(reps, b.run);
      std::printf("%-28s %9.4f %9s %7.2f %7.3f (f(j) loads only, no result)\n", b.name, t, "-", cusp_ms / t,
                  bytes / (t * 1e6) / copy_gbs);
    }
    const double t2 = median_ms(reps, cusp);
    std::printf("%-28s %9.4f %9s %7.2f %7.3f (again, after the bounds)\n", "cusparseSpMV", t2, "-", cusp_ms / t2,
                bytes / (t2 * 1e6) / copy_gbs);
  }
  std::vector<float> first; // the default's result: the fused form must give the same bits
  for (const Config &c : configs) {
    NESTOR_CUDA_CHECK(cudaMemset(d.y, 0xff, size_t(rows) * sizeof(float))); // NaN: every row must be written
    c.run(d, true);
    const std::vector<float> y1 = loops::from_device(d.y, size_t(rows));
    if (first.empty()) first = y1;
    const bool asDefault = std::memcmp(first.data(), y1.data(), y1.size() * sizeof(float)) == 0;
    spmv::Verdict v = spmv::check(ref, y1, c.name.c_str());
    const double total = median_ms(reps, [&] { c.run(d, true); });
    const double merge = median_ms(reps, [&] { c.run(d, false); });
    NESTOR_CUDA_CHECK(cudaMemset(d.y, 0xff, size_t(rows) * sizeof(float)));
    c.run(d, true);
    const std::vector<float> y2 = loops::from_device(d.y, size_t(rows));
    const bool same = std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)) == 0;
    std::printf("%-28s %9.4f %9.4f %7.2f %7.3f %8.3f %s%s%s\n", c.name.c_str(), total, merge, cusp_ms / total,
                bytes / (total * 1e6) / copy_gbs, v.worst, same ? "bitwise" : "DIFFER", v.bad ? " WRONG" : "",
                asDefault ? " =2pass" : " (other bits than 2-pass)");
  }
  return 0;
}
