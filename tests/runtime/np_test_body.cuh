// One kernel exercising every CUDA-NP helper of a group type G (np::intra<S>
// or np::inter<M, S>) the way rewritten code uses them, and its CPU reference.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <nestor/np.cuh>
#include "runtime_test_util.cuh"

namespace nestor::test {

template <class T> struct np_params {
  const T* in;     // [masters][max_n] loop inputs x(i) of each master
  const int* trip; // [masters] trip count n of each master's loop
  const int* skip; // [masters] 1: the master (and its slaves) leaves early
  long long masters;
  int max_n;
  T init;  // value of the reduction/scan variable before the loop
  // Per master and slave ([masters][S]): each slave's view of the live-outs.
  T* bcast;
  T* red;
  T* total;
  T* ginc;
  T* gexc;
  // Per master and iteration ([masters][max_n]).
  T* incl;
  T* excl;
  T* chunk_incl;
};

// Exit: inactive masters return (intra-warp, or inter-warp with the warp-only
// barrier); otherwise they stay and skip the work (inter-warp, block barrier).
template <class G, bool Exit, class Op, class T> __global__ void np_ops_kernel(np_params<T> p) {
  constexpr int S = G::slave_size;
  const long long m = (long long)G::global_master_id();
  const bool active = m < p.masters && p.skip[m] == 0;
  if constexpr (Exit) {
    if (!active) return;
  }
  const int n = active ? p.trip[m] : 0;
  const int s = G::slave_id();
  const T* x = p.in + (active ? m : 0) * p.max_n;
  const Op op;

  // 3.1: a live-in computed by the master only.
  const T live_in = G::is_master() ? T(m % 97 + 1) : T(0);
  const T b = G::read_from_master(live_in);

  // 3.2: reduction of `for (i = slave_id; i < n; i += S) acc = op(acc, x[i]);`
  T acc = Op::template identity<T>();
  for (int i = s; i < n; i += S) acc = op(acc, x[i]);
  const T red = op(p.init, G::template reduce<Op>(acc));

  // 3.2: scan of the strided loop, in iteration order (padded rounds).
  typename G::template scanner<Op, T> sc(p.init);
  const int rounds = int(G::loop_rounds(n));
  for (int r = 0; r < rounds; ++r) {
    const int i = r * S + s;
    const bool valid = i < n;
    const auto st = sc.step(valid ? x[i] : Op::template identity<T>());
    if (active && valid) {
      p.incl[m * p.max_n + i] = st.inclusive;
      p.excl[m * p.max_n + i] = st.exclusive;
    }
  }
  const T total = sc.total();

  // Scans across the slaves: slave s contributes x[s].
  const T v = x[s];
  const T gi = G::template inclusive_scan<Op>(v, op, p.init);
  const T ge = G::template exclusive_scan<Op>(v, op, p.init);

  // Scan with contiguous chunks: reduce the chunk, exclusive-scan the chunk
  // totals for the carry-in, then rescan the chunk from it.
  const auto c = G::chunk(0, n);
  T part = Op::template identity<T>();
  for (int i = c.begin; i < c.end; ++i) part = op(part, x[i]);
  T carry = G::template exclusive_scan<Op>(part, op, p.init);
  for (int i = c.begin; i < c.end; ++i) {
    carry = op(carry, x[i]);
    if (active) p.chunk_incl[m * p.max_n + i] = carry;
  }

  if (active) {
    p.bcast[m * S + s] = b;
    p.red[m * S + s] = red;
    p.total[m * S + s] = total;
    p.ginc[m * S + s] = gi;
    p.gexc[m * S + s] = ge;
  }
}

template <class G, bool Exit, class Op, class T>
void run_np_case(checker& ck, const std::string& group_name, dim3 grid_block, unsigned masters_per_block,
                 long long masters, std::mt19937_64& rng) {
  constexpr int S = G::slave_size;
  const int max_n = 100;
  const std::string label = group_name + " " + op_name<Op>() + "<" + type_name<T>() + ">";
  std::vector<T> in(size_t(masters) * max_n);
  for (auto& e : in) e = random_input<Op, T>(rng);
  std::vector<int> trip(masters), skip(masters);
  // Trip counts around S (not a multiple of S, smaller than S, empty) first.
  const int special[] = {0, 1, S - 1, S, S + 1, 2 * S - 1, 2 * S + 1, 3, max_n, max_n - 1};
  for (long long k = 0; k < masters; ++k) {
    trip[k] = k < 10 ? std::clamp(special[k], 0, max_n) : int(rng() % (max_n + 1));
    skip[k] = (k >= 10 && rng() % 10 == 0) ? 1 : 0;
  }
  const T init = start_value<Op, T>();

  np_params<T> p{};
  p.in = to_device(in);
  p.trip = to_device(trip);
  p.skip = to_device(skip);
  p.masters = masters;
  p.max_n = max_n;
  p.init = init;
  p.bcast = device_zeros<T>(masters * S);
  p.red = device_zeros<T>(masters * S);
  p.total = device_zeros<T>(masters * S);
  p.ginc = device_zeros<T>(masters * S);
  p.gexc = device_zeros<T>(masters * S);
  p.incl = device_zeros<T>(masters * max_n);
  p.excl = device_zeros<T>(masters * max_n);
  p.chunk_incl = device_zeros<T>(masters * max_n);

  const unsigned blocks = unsigned((masters + masters_per_block - 1) / masters_per_block);
  np_ops_kernel<G, Exit, Op, T><<<blocks, grid_block>>>(p);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());

  auto bcast = to_host(p.bcast, masters * S), red = to_host(p.red, masters * S), total = to_host(p.total, masters * S);
  auto ginc = to_host(p.ginc, masters * S), gexc = to_host(p.gexc, masters * S);
  auto incl = to_host(p.incl, masters * max_n), excl = to_host(p.excl, masters * max_n);
  auto chunk_incl = to_host(p.chunk_incl, masters * max_n);

  const Op op;
  long long failures_before = ck.failures;
  for (long long m = 0; m < masters; ++m) {
    if (skip[m]) continue;
    const T* x = &in[m * max_n];
    const int n = trip[m];
    std::vector<T> ref_incl(n), ref_excl(n);
    T acc = init;
    for (int i = 0; i < n; ++i) {
      ref_excl[i] = acc;
      acc = op(acc, x[i]);
      ref_incl[i] = acc;
    }
    const std::string at = label + " master " + std::to_string(m) + " n=" + std::to_string(n);
    for (int s = 0; s < S; ++s) {
      NESTOR_EXPECT(ck, bcast[m * S + s], T(m % 97 + 1), at + " slave " + std::to_string(s) + " read_from_master");
      NESTOR_EXPECT(ck, red[m * S + s], acc, at + " slave " + std::to_string(s) + " reduce");
      NESTOR_EXPECT(ck, total[m * S + s], acc, at + " slave " + std::to_string(s) + " scanner total");
      T gi = init;
      for (int k = 0; k <= s; ++k) gi = op(gi, x[k]);
      T ge = init;
      for (int k = 0; k < s; ++k) ge = op(ge, x[k]);
      NESTOR_EXPECT(ck, ginc[m * S + s], gi, at + " slave " + std::to_string(s) + " inclusive_scan over slaves");
      NESTOR_EXPECT(ck, gexc[m * S + s], ge, at + " slave " + std::to_string(s) + " exclusive_scan over slaves");
    }
    for (int i = 0; i < n; ++i) {
      NESTOR_EXPECT(ck, incl[m * max_n + i], ref_incl[i], at + " scanner inclusive i=" + std::to_string(i));
      NESTOR_EXPECT(ck, excl[m * max_n + i], ref_excl[i], at + " scanner exclusive i=" + std::to_string(i));
      NESTOR_EXPECT(ck, chunk_incl[m * max_n + i], ref_incl[i], at + " chunked inclusive i=" + std::to_string(i));
    }
  }
  if (ck.failures != failures_before) std::printf("  ^ in case %s\n", label.c_str());

  for (void* d : {(void*)p.in, (void*)p.trip, (void*)p.skip, (void*)p.bcast, (void*)p.red, (void*)p.total,
                  (void*)p.ginc, (void*)p.gexc, (void*)p.incl, (void*)p.excl, (void*)p.chunk_incl})
    NESTOR_CUDA_CHECK(cudaFree(d));
}

// Every operator with every type it is defined for.
template <class G, bool Exit>
void run_np_all_ops(checker& ck, const std::string& group_name, dim3 block, unsigned masters_per_block,
                    long long masters, std::mt19937_64& rng) {
#define NESTOR_NP_CASE(OP, T) run_np_case<G, Exit, op::OP, T>(ck, group_name, block, masters_per_block, masters, rng)
#define NESTOR_NP_ALL_TYPES(OP) \
  NESTOR_NP_CASE(OP, int);      \
  NESTOR_NP_CASE(OP, unsigned); \
  NESTOR_NP_CASE(OP, long long); \
  NESTOR_NP_CASE(OP, float);    \
  NESTOR_NP_CASE(OP, double)
#define NESTOR_NP_INT_TYPES(OP) \
  NESTOR_NP_CASE(OP, int);      \
  NESTOR_NP_CASE(OP, unsigned); \
  NESTOR_NP_CASE(OP, long long)
  NESTOR_NP_ALL_TYPES(add);
  NESTOR_NP_ALL_TYPES(mul);
  NESTOR_NP_ALL_TYPES(max);
  NESTOR_NP_ALL_TYPES(min);
  NESTOR_NP_INT_TYPES(bit_and);
  NESTOR_NP_INT_TYPES(bit_or);
  NESTOR_NP_INT_TYPES(bit_xor);
  NESTOR_NP_CASE(logical_and, int);
  NESTOR_NP_CASE(logical_and, unsigned);
  NESTOR_NP_CASE(logical_and, float);
  NESTOR_NP_CASE(logical_or, int);
  NESTOR_NP_CASE(logical_or, long long);
  NESTOR_NP_CASE(logical_or, double);
#undef NESTOR_NP_INT_TYPES
#undef NESTOR_NP_ALL_TYPES
#undef NESTOR_NP_CASE
}

} // namespace nestor::test
