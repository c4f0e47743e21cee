// SSSP relaxation in LonestarGPU's style (issue #21): the child kernel takes
// the graph (and a worklist) by value, a class with a host default constructor
// (lonestar_graph.h), and is launched from the device per node. threshold and
// coarsen make code nvcc compiles; aggregate and the launch templates, whose
// records of the child's arguments device code default-constructs, are
// refused with the reason (tests/rewrite/dp.cmake, templates.cmake).
#include "lonestar_graph.h"
#include <nestor/dp.cuh>

__global__ void relax_edges(Graph g, unsigned v, int *dist) {
  unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < g.getOutDegree(v)) {
    unsigned d = g.getDestination(v, e);
    atomicMin(&dist[d], dist[v] + g.getWeight(v, e));
  }
}

__global__ void sssp_step(Graph g, int *dist) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < g.nnodes) {
    unsigned degree = g.getOutDegree(v);
    if (degree > 0) relax_edges<<<(degree + 127) / 128, 128>>>(g, v, dist);
  }
}

__global__ void push_neighbours(Worklist wl, Graph g, unsigned v) {
  unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < g.getOutDegree(v)) wl.push(g.getDestination(v, e));
}

// Serial form of push_neighbours (Nestor threshold rewrite): runs every thread of a
// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.
__device__ void push_neighbours__serial(Worklist wl, Graph g, unsigned v, dim3 _gDim, dim3 _bDim) {
  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) {
    unsigned e = _ctx.blockIdx.x * _ctx.blockDim.x + _ctx.threadIdx.x;
    if (e < g.getOutDegree(v)) wl.push(g.getDestination(v, e));
  });
}

__global__ void expand(Worklist wl, Graph g, const unsigned *frontier, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned v = frontier[i];
    unsigned degree = g.getOutDegree(v);
    if (degree > 0) {
      const auto __threads = degree;
      const dim3 _gDim((__threads + 127) / 128), _bDim(128);
      if (__threads >= NESTOR_THRESHOLD) {
        push_neighbours<<<_gDim, _bDim>>>(wl, g, v);
      } else {
        push_neighbours__serial(wl, g, v, _gDim, _bDim);
      }
    }
  }
}

void sssp(const Graph &g, int *dist, Worklist wl, const unsigned *frontier, unsigned n) {
  sssp_step<<<(g.nnodes + 255) / 256, 256>>>(g, dist);
  expand<<<(n + 255) / 256, 256>>>(wl, g, frontier, n);
  cudaDeviceSynchronize();
}
