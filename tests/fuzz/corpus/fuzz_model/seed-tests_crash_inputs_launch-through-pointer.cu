__global__ void child(int *p) {}
typedef void (*KernelPtr)(int *);
__global__ void parent(int *p, KernelPtr f) {
  f<<<1, 32>>>(p);
  KernelPtr g = child;
  g<<<blockDim.x, 32>>>(p);
}
