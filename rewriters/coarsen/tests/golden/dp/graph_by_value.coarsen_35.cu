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

__global__ void push_neighbours(Worklist wl, Graph g, unsigned v, dim3 _gDim) {
  // Coarsened by Nestor (strategy 1): each block runs NESTOR_CFACTOR original blocks.
  for (unsigned _bx = blockIdx.x; _bx < _gDim.x; _bx += gridDim.x) {
    const dim3 _bIdx(_bx, blockIdx.y, blockIdx.z);
    {
      unsigned e = _bIdx.x * blockDim.x + threadIdx.x;
      if (e < g.getOutDegree(v)) wl.push(g.getDestination(v, e));
    }
  }
}

__global__ void expand(Worklist wl, Graph g, const unsigned *frontier, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned v = frontier[i];
    unsigned degree = g.getOutDegree(v);
    if (degree > 0) {
      const dim3 _gDim((degree + 127) / 128);
      push_neighbours<<<nestor::dp::coarsen_x(_gDim, NESTOR_CFACTOR), 128>>>(wl, g, v, _gDim);
    }
  }
}

void sssp(const Graph &g, int *dist, Worklist wl, const unsigned *frontier, unsigned n) {
  sssp_step<<<(g.nnodes + 255) / 256, 256>>>(g, dist);
  expand<<<(n + 255) / 256, 256>>>(wl, g, frontier, n);
  cudaDeviceSynchronize();
}
