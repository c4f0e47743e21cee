template <int Threads>
__global__ void __launch_bounds__(Threads, Threads / 32) k(float *p) {
  __shared__ float s[Threads];
  s[threadIdx.x] = p[threadIdx.x];
}
template <typename T>
__global__ void __launch_bounds__(sizeof(T) * 64) j(T *p) {}
