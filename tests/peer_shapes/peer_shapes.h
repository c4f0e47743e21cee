// Host-only support shared by the peer-shapes corpus (tests/peer_shapes/*.cu)
// and the rewritten goldens of its programs: CUDA error checks, the graph
// forms the applications need (undirected, transposed), the switches the
// corpus adds to examples/graph/graph.h's command line, timing and the result
// file. No device code in here, so no rewrite ever touches it.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// By its path from here, so that the corpus parses with no -I (nestor lint,
// the every-offer test); the goldens reach this file through -I tests/peer_shapes.
#include "../../examples/graph/graph.h"

#define PEER_CHECK(expr)                                                                          \
  do {                                                                                            \
    cudaError_t err_ = (expr);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace peer {

// Removes a value-less switch (e.g. "--flat") from argv, so that the rest
// goes to graph::parse_options unchanged; true when it was there.
inline bool take_switch(int &argc, char **argv, const char *name) {
  bool found = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) {
      found = true;
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  return found;
}

// The undirected form of g: every edge in both directions, self-loops and
// duplicate edges kept (the algorithms tolerate them), edge order stable.
inline graph::csr undirected(const graph::csr &g) {
  graph::csr u;
  u.vertices = g.vertices;
  u.offsets.assign(g.vertices + 1, 0);
  for (uint32_t v = 0; v < g.vertices; ++v)
    for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      ++u.offsets[v + 1];
      ++u.offsets[g.targets[e] + 1];
    }
  for (uint32_t v = 0; v < g.vertices; ++v) u.offsets[v + 1] += u.offsets[v];
  u.targets.resize(u.offsets[g.vertices]);
  u.weights.resize(u.offsets[g.vertices]);
  std::vector<uint32_t> cursor(u.offsets.begin(), u.offsets.end() - 1);
  for (uint32_t v = 0; v < g.vertices; ++v)
    for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const uint32_t t = g.targets[e];
      u.targets[cursor[v]] = t;
      u.weights[cursor[v]++] = g.weights[e];
      u.targets[cursor[t]] = v;
      u.weights[cursor[t]++] = g.weights[e];
    }
  return u;
}

// The transposed graph: the in-edges of every vertex (pull-style kernels).
inline graph::csr transposed(const graph::csr &g) {
  graph::csr t;
  t.vertices = g.vertices;
  t.offsets.assign(g.vertices + 1, 0);
  for (uint32_t e = 0; e < g.edges(); ++e) ++t.offsets[g.targets[e] + 1];
  for (uint32_t v = 0; v < g.vertices; ++v) t.offsets[v + 1] += t.offsets[v];
  t.targets.resize(g.edges());
  t.weights.resize(g.edges());
  std::vector<uint32_t> cursor(t.offsets.begin(), t.offsets.end() - 1);
  for (uint32_t v = 0; v < g.vertices; ++v)
    for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const uint32_t at = cursor[g.targets[e]]++;
      t.targets[at] = v;
      t.weights[at] = g.weights[e];
    }
  return t;
}

template <class T>
T *to_device(const std::vector<T> &host) {
  T *d = nullptr;
  PEER_CHECK(cudaMalloc(&d, (host.size() + 1) * sizeof(T)));
  if (!host.empty()) PEER_CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> from_device(const T *d, size_t n) {
  std::vector<T> host(n);
  if (n) PEER_CHECK(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Times `run` (which launches and finishes one whole computation) with CUDA
// events, `reps` times after `reset`; returns the median in ms.
template <class Reset, class Run>
double timed(int reps, Reset reset, Run run) {
  cudaEvent_t start, stop;
  PEER_CHECK(cudaEventCreate(&start));
  PEER_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int rep = 0; rep < reps; ++rep) {
    reset();
    PEER_CHECK(cudaDeviceSynchronize());
    PEER_CHECK(cudaEventRecord(start));
    run();
    PEER_CHECK(cudaGetLastError());
    PEER_CHECK(cudaEventRecord(stop));
    PEER_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    PEER_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  PEER_CHECK(cudaEventDestroy(start));
  PEER_CHECK(cudaEventDestroy(stop));
  return graph::median(times);
}

// Compares the device result with the serial reference; prints the first
// difference. Results are integers (or floats holding exact integers), so
// every variant must agree bit for bit.
template <class T>
bool matches(const char *program, const std::vector<T> &got, const std::vector<T> &expect) {
  if (got.size() != expect.size()) {
    std::fprintf(stderr, "%s: %zu results, the reference has %zu\n", program, got.size(), expect.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == expect[i])) {
      std::fprintf(stderr, "%s: result %zu is %.17g, the serial reference says %.17g\n", program, i,
                   static_cast<double>(got[i]), static_cast<double>(expect[i]));
      return false;
    }
  return true;
}

// Writes the result file (one value per line) when --out was given, and the
// line time_corpus.sh reads. Returns the program's exit code.
template <class T>
int finish(const char *program, const graph::options &opt, const graph::csr &g, double ms,
           const std::vector<T> &result) {
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, result);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  }
  graph::print_result_line(program, opt, g, ms, 0);
  return 0;
}

}  // namespace peer
