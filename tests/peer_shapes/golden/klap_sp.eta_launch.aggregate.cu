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
#include <nestor/dp.cuh>

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

// One launch of sp_clause_messages, recorded for aggregation (Nestor aggregate rewrite).
struct sp_clause_messages__agg_args {
  const unsigned int *var;
  const unsigned char *negated;
  const unsigned int *survey;
  unsigned int begin;
  unsigned int count;
  unsigned int *message;
};

// sp_clause_messages for aggregated launches: each block finds the launch it belongs to; threads
// beyond that launch's block (the aggregated block is the largest) skip the body.
__global__ void sp_clause_messages__agg(nestor::dp::agg_batch<sp_clause_messages__agg_args> _batch) {
  const nestor::dp::agg_child<sp_clause_messages__agg_args> _c = nestor::dp::agg_child_locate(_batch);
  if (_c.active) {
    auto var = _c.args->var;
    auto negated = _c.args->negated;
    auto survey = _c.args->survey;
    auto begin = _c.args->begin;
    auto count = _c.args->count;
    auto message = _c.args->message;
    {
      unsigned k = _c.blockIdx.x * _c.blockDim.x + _c.threadIdx.x;
      if (k < count) message[begin + k] = sp_message(var, negated, survey, begin, begin + count, begin + k);
    }
  }
}

// Launch records of sp_clause_messages, reset by the host before every launch of sp_update_eta.
__device__ nestor::dp::agg_pool<sp_clause_messages__agg_args> sp_clause_messages__agg_pool;
static nestor::dp::agg_pool<sp_clause_messages__agg_args> sp_clause_messages__agg_pool_host() {
  static nestor::dp::agg_pool_owner<sp_clause_messages__agg_args> owner;
  if (!owner.pool().counters) {
    nestor::dp::agg_host_check(owner.create(), "sp_clause_messages__agg_pool: allocation");
    nestor::dp::agg_host_check(cudaMemcpyToSymbol(sp_clause_messages__agg_pool, &owner.pool(), sizeof(owner.pool())), "sp_clause_messages__agg_pool: cudaMemcpyToSymbol");
  }
  return owner.pool();
}

__global__ void sp_update_eta(const unsigned *clause_begin, const unsigned *var, const unsigned char *negated,
                              const unsigned *survey, unsigned clauses, unsigned *message) {
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < clauses) {
    unsigned begin = clause_begin[c];
    unsigned count = clause_begin[c + 1] - begin;
    {
      const dim3 _agg_grid((count + SP_CHILD_BLOCK - 1) / SP_CHILD_BLOCK), _agg_block(SP_CHILD_BLOCK);
      sp_clause_messages__agg_args _agg_args;
      _agg_args.var = var;
      _agg_args.negated = negated;
      _agg_args.survey = survey;
      _agg_args.begin = begin;
      _agg_args.count = count;
      _agg_args.message = message;
      if (!nestor::dp::aggregate_warp(sp_clause_messages__agg_pool, sp_clause_messages__agg, _agg_grid, _agg_block, _agg_args)) {
        // refused (pool full, launch too large): the original launch
        sp_clause_messages<<<_agg_grid, _agg_block>>>(_agg_args.var, _agg_args.negated, _agg_args.survey, _agg_args.begin, _agg_args.count, _agg_args.message);
      }
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
          else {
            const nestor::dp::agg_pool<sp_clause_messages__agg_args> _agg_pool = sp_clause_messages__agg_pool_host();
            nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "sp_clause_messages__agg_pool: reset");
            sp_update_eta<<<(clauses + 127) / 128, 128>>>(d_clause_begin, d_var, d_negated, d_survey, clauses, d_message);
          }
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
