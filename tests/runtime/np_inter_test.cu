// Inter-warp CUDA-NP helpers (np::inter<M, S>): the same checks as the
// intra-warp test with block (M, S) and shared-memory communication. With the
// block barrier, inactive masters stay in the kernel and skip the work (the
// documented precondition); with barrier::automatic and one-warp blocks
// (M * S <= 32) they return early.
#include "np_test_body.cuh"

using namespace nestor;

template <int S> void run_width(test::checker& ck, std::mt19937_64& rng) {
  // M = 32 masters per block: one warp per slave row, groups span S warps.
  test::run_np_all_ops<np::inter<32, S>, false>(ck, "inter<32," + std::to_string(S) + ">", dim3(32, S), 32, 301,
                                                rng);
}

template <int M, int S> void run_one_warp_block(test::checker& ck, std::mt19937_64& rng) {
  using G = np::inter<M, S, np::barrier::automatic>;
  const std::string name = "inter<" + std::to_string(M) + "," + std::to_string(S) + ",automatic>";
  test::run_np_case<G, true, op::add, int>(ck, name, dim3(M, S), M, 123, rng);
  test::run_np_case<G, true, op::add, double>(ck, name, dim3(M, S), M, 123, rng);
  test::run_np_case<G, true, op::max, float>(ck, name, dim3(M, S), M, 123, rng);
  test::run_np_case<G, true, op::bit_xor, unsigned>(ck, name, dim3(M, S), M, 123, rng);
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(20240612);
  run_width<2>(ck, rng);
  run_width<4>(ck, rng);
  run_width<8>(ck, rng);
  run_width<16>(ck, rng);
  run_width<32>(ck, rng);
  // Blocks at or under one warp; masters exit early, which barrier::automatic allows.
  run_one_warp_block<4, 8>(ck, rng);
  run_one_warp_block<2, 16>(ck, rng);
  run_one_warp_block<1, 32>(ck, rng);
  run_one_warp_block<8, 2>(ck, rng);
  // And the automatic policy on a larger block (falls back to __syncthreads).
  test::run_np_case<np::inter<16, 4, np::barrier::automatic>, false, op::add, float>(
      ck, "inter<16,4,automatic>", dim3(16, 4), 16, 200, rng);
  return ck.finish("np_inter_test");
}
