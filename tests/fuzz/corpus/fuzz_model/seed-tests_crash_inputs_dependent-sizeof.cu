template <typename T>
__global__ void k(T *p, int n) {
  __shared__ char raw[sizeof(T) * 32];
  for (int i = 0; i < sizeof(T); ++i) p[i] = T();
  for (int i = threadIdx.x; i < n * sizeof(T); i += blockDim.x) raw[i % sizeof(raw)] = 0;
}
