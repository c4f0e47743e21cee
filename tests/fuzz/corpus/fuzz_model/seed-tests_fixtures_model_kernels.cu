// Kernel model: parameters, launch bounds, shared memory, local arrays,
// intrinsics, atomics, and which sites launch it.
__global__ void __launch_bounds__(256, 2) facts(const float *in, float *out, int *counter, int n) {
  // kernel@-1: name=facts launch_bounds=256 shared=tile,dyn local_arrays=regs barriers=__syncthreads atomics=atomicAdd warp_intrinsics=__ballot_sync launched_by=0 recursive=false
  __shared__ float tile[256];
  extern __shared__ float dyn[];
  // expect@+1: np-local-array "registers"
  float regs[4];
  int t = threadIdx.x;
  // expect@+1: np-parallel-loop
  for (int k = 0; k < 4; k++) regs[k] = in[t * 4 + k];
  tile[t] = regs[0] + regs[1] + regs[2] + regs[3];
  __syncthreads();
  dyn[t] = tile[255 - t];
  if (__ballot_sync(0xffffffffu, dyn[t] > 0)) atomicAdd(counter, 1);
  out[t] = dyn[t];
}

void launch(const float *in, float *out, int *counter, int n) {
  facts<<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(in, out, counter, n);
}
