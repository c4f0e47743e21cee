__device__ void notKernel(int *p) {}
int hostFn(int *p) { return 0; }
__global__ void parent(int *p) {
  notKernel<<<1, 32>>>(p);
  hostFn<<<1, 1>>>(p);
  undeclared<<<1, 1>>>(p);
  (*p)<<<1, 1>>>();
}
