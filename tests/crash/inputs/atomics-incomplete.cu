struct Opaque;
__global__ void k(Opaque *o, int *count) {
  atomicAdd(o, 1);
  atomicAdd(count, sizeof(*o));
  __syncthreads(o);
  __shfl_sync(0xffffffff, *o, 0);
}
