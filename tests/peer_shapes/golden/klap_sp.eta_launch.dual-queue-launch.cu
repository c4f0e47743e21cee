// peer-shape: dp-threshold-coarsen-aggregate-thesis (KLAP) SP, survey propagation
//
// Survey propagation in the shape of KLAP's SP application (LonestarGPU's SP,
// Table 4.1 of the thesis): a factor graph of clauses over variables, and per
// round one parent thread per clause that launches a child grid with one
// thread per literal of the clause; each child thread combines the surveys of
// the clause's other literals into the message it sends to its own variable.
// A flat kernel then updates each variable from the messages of its literals,
// and the host runs a fixed number of rounds. Written here, in that style.
// The surveys are integers modulo a prime (products and sums modulo p are
// exact and do not depend on order), so every variant computes the same
// messages bit for bit; the real SP uses floating-point probabilities.
//
// --flat selects the hand-written non-nested version (KLAP's NoCDP): the
// clause's thread computes its literals' messages in a loop.
// The program checks every message and survey against a serial run.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes klap_sp.cu -lcudadevrt
#include "peer_shapes.h"
#include <nestor/promote.cuh>

#define SP_CHILD_BLOCK 32
#define SP_ROUNDS 3
#define SP_PRIME 2147483629u

// The message of literal `e` of a clause (its edges [begin, end)): the product
// of (1 + survey) of the clause's other literals' variables, with the sign of
// each literal deciding which survey it reads.
__host__ __device__ inline unsigned sp_message(const unsigned *var, const unsigned char *negated, const unsigned *survey,
                                               unsigned begin, unsigned end, unsigned e) {
  unsigned long long m = 1;
  for (unsigned o = begin; o < end; ++o)
    if (o != e) m = m * (1ull + survey[2 * var[o] + negated[o]]) % SP_PRIME;
  return unsigned(m);
}

__global__ void sp_clause_messages(const unsigned *var, const unsigned char *negated, const unsigned *survey,
                                   unsigned begin, unsigned count, unsigned *message) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) message[begin + k] = sp_message(var, negated, survey, begin, begin + count, begin + k);
}

// sp_clause_messages with its thread identity as parameters (dual-queue-launch): run by the parent thread
// or by sp_clause_messages_nestor_drain for delayed launches.
__device__ __forceinline__ void sp_clause_messages_nestor_thread(const unsigned *var, const unsigned char *negated, const unsigned *survey, unsigned begin, unsigned count, unsigned *message, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) message[begin + k] = sp_message(var, negated, survey, begin, begin + count, begin + k);
}

// A delayed launch of sp_clause_messages: its arguments and configuration.
struct sp_clause_messages_nestor_launch {
  const unsigned *var;
  const unsigned char *negated;
  const unsigned *survey;
  unsigned begin;
  unsigned count;
  unsigned *message;
  dim3 nestor_grid, nestor_block;
};

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dual-queue): block-mapped,
// one block per launch striding over its child threads, or thread-mapped for the small queue, one thread
// per launch running all its child threads.
__global__ void sp_clause_messages_nestor_drain(nestor::tmpl::launch_queue<sp_clause_messages_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const sp_clause_messages_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    sp_clause_messages_nestor_thread(a.var, a.negated, a.survey, a.begin, a.count, a.message, t, b, bd, gd);
  });
}

__global__ void sp_update_eta(const unsigned *clause_begin, const unsigned *var, const unsigned char *negated,
                              const unsigned *survey, unsigned clauses, unsigned *message, nestor::tmpl::launch_queues<sp_clause_messages_nestor_launch> nestor_lq = {}) {
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < clauses) {
    unsigned begin = clause_begin[c];
    unsigned count = clause_begin[c + 1] - begin;
    {
      // dual-queue, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: the launch is
      // queued as small (fewer than 64 threads, thread-mapped pass) or large (block-mapped pass);
      // the passes run after this grid (CDP2 gives no earlier guarantee either).
      const dim3 nestor_grid((count + SP_CHILD_BLOCK - 1) / SP_CHILD_BLOCK), nestor_block(SP_CHILD_BLOCK);
      sp_clause_messages_nestor_launch nestor_item;
      nestor_item.var = var;
      nestor_item.negated = negated;
      nestor_item.survey = survey;
      nestor_item.begin = begin;
      nestor_item.count = count;
      nestor_item.message = message;
      nestor_item.nestor_grid = nestor_grid;
      nestor_item.nestor_block = nestor_block;
      if (!nestor::tmpl::push_launch((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
           (unsigned long long)(count) < 64ull) ? nestor_lq.small : nestor_lq.large, nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          sp_clause_messages_nestor_thread(var, negated, survey, begin, count, message, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    } // peer-site: eta_launch
  }
}

// The non-nested version (--flat): the messages in the clause's thread.
__global__ void sp_update_eta_flat(const unsigned *clause_begin, const unsigned *var, const unsigned char *negated,
                                   const unsigned *survey, unsigned clauses, unsigned *message) {
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < clauses) {
    unsigned begin = clause_begin[c];
    unsigned end = clause_begin[c + 1];
    for (unsigned e = begin; e < end; ++e) // peer-site: flat_loop --flat
      message[e] = sp_message(var, negated, survey, begin, end, e);
  }
}

// Variable v's two surveys (its positive and negative literals) from the
// messages of its literals: sums modulo p over its edges.
__host__ __device__ inline void sp_survey(const unsigned *var_begin, const unsigned *var_edge,
                                          const unsigned char *negated, const unsigned *message, unsigned v,
                                          unsigned *survey) {
  unsigned long long s[2] = {0, 0};
  for (unsigned i = var_begin[v]; i < var_begin[v + 1]; ++i) {
    unsigned e = var_edge[i];
    s[negated[e]] = (s[negated[e]] + message[e]) % SP_PRIME;
  }
  survey[2 * v] = unsigned(s[0]);
  survey[2 * v + 1] = unsigned(s[1]);
}

__global__ void sp_update_surveys(const unsigned *var_begin, const unsigned *var_edge, const unsigned char *negated,
                                  const unsigned *message, unsigned vars, unsigned *survey) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < vars) sp_survey(var_begin, var_edge, negated, message, v, survey);
}

int main(int argc, char **argv) {
  const bool flat = peer::take_switch(argc, argv, "--flat");
  graph::options opt;
  try {
    opt = graph::parse_options(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "klap_sp: %s\n%s  --vertices N: the number of clauses; --degree D: their mean size\n"
                 "  --flat  the non-nested version\n", e.what(), graph::usage());
    return 2;
  }
  const unsigned clauses = opt.vertices;
  const unsigned vars = clauses / 2 + 1;
  // Clause sizes: mostly about `degree` literals, every 64th clause up to 16
  // times longer (a skewed factor graph, as random k-SAT with long clauses).
  graph::rng r(opt.seed);
  std::vector<unsigned> clause_begin{0}, var;
  std::vector<unsigned char> negated;
  for (unsigned c = 0; c < clauses; ++c) {
    unsigned size = 1 + r.below(opt.degree + 1);
    if (r.below(64) == 0) size = 1 + r.below(16 * (opt.degree + 1));
    for (unsigned k = 0; k < size; ++k) {
      var.push_back(r.below(vars));
      negated.push_back((unsigned char)r.below(2));
    }
    clause_begin.push_back(unsigned(var.size()));
  }
  const unsigned edges = unsigned(var.size());
  // Each variable's edges (the transposed factor graph).
  std::vector<unsigned> var_begin(vars + 1, 0), var_edge(edges);
  for (unsigned e = 0; e < edges; ++e) ++var_begin[var[e] + 1];
  for (unsigned v = 0; v < vars; ++v) var_begin[v + 1] += var_begin[v];
  {
    std::vector<unsigned> fill(var_begin.begin(), var_begin.end() - 1);
    for (unsigned e = 0; e < edges; ++e) var_edge[fill[var[e]]++] = e;
  }
  std::vector<unsigned> survey0(2ull * vars);
  for (unsigned &s : survey0) s = r.below(1000);

  PEER_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, clauses + 4096));
  unsigned *d_clause_begin = peer::to_device(clause_begin), *d_var = peer::to_device(var);
  unsigned char *d_negated = peer::to_device(negated);
  unsigned *d_var_begin = peer::to_device(var_begin), *d_var_edge = peer::to_device(var_edge);
  unsigned *d_survey = peer::to_device(survey0);
  unsigned *d_message = peer::to_device(std::vector<unsigned>(edges, 0u));
  const double ms = peer::timed(
      opt.reps,
      [&] {
        PEER_CHECK(cudaMemcpy(d_survey, survey0.data(), survey0.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
      },
      [&] {
        for (int round = 0; round < SP_ROUNDS; ++round) {
          if (flat) sp_update_eta_flat<<<(clauses + 127) / 128, 128>>>(d_clause_begin, d_var, d_negated, d_survey, clauses, d_message);
          else nestor::tmpl::launch_promoted<sp_clause_messages_nestor_launch>((clauses + 127) / 128, 128, true,
              [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<sp_clause_messages_nestor_launch> nestor_lq) {
                sp_update_eta<<<nestor_g, nestor_b, 0>>>(d_clause_begin, d_var, d_negated, d_survey, clauses, d_message, nestor_lq);
              },
              [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<sp_clause_messages_nestor_launch> nestor_q, bool nestor_block_mapped) {
                sp_clause_messages_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
              });
          sp_update_surveys<<<(vars + 127) / 128, 128>>>(d_var_begin, d_var_edge, d_negated, d_message, vars, d_survey);
        }
      });
  const std::vector<unsigned> message = peer::from_device(d_message, edges);
  const std::vector<unsigned> survey = peer::from_device(d_survey, survey0.size());
  // The serial reference: the same rounds on the host.
  std::vector<unsigned> ref_survey = survey0, ref_message(edges);
  for (int round = 0; round < SP_ROUNDS; ++round) {
    for (unsigned c = 0; c < clauses; ++c)
      for (unsigned e = clause_begin[c]; e < clause_begin[c + 1]; ++e)
        ref_message[e] = sp_message(var.data(), negated.data(), ref_survey.data(), clause_begin[c], clause_begin[c + 1], e);
    for (unsigned v = 0; v < vars; ++v)
      sp_survey(var_begin.data(), var_edge.data(), negated.data(), ref_message.data(), v, ref_survey.data());
  }
  // The result: the last round's messages, then the surveys.
  std::vector<unsigned> result(message), expect(ref_message);
  result.insert(result.end(), survey.begin(), survey.end());
  expect.insert(expect.end(), ref_survey.begin(), ref_survey.end());
  if (!peer::matches("klap_sp", result, expect)) return 1;
  graph::csr shape;  // for the RESULT line: clauses as vertices, literals as edges
  shape.vertices = clauses;
  shape.targets.resize(edges);
  return peer::finish(flat ? "klap_sp_flat" : "klap_sp", opt, shape, ms, result);
}
