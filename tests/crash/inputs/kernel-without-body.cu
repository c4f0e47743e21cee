__global__ void declaredOnly(int *p);
__global__ void __launch_bounds__(128) alsoDeclared(float *p, int n);
__global__ void parent(int *p) {
  if (threadIdx.x == 0) declaredOnly<<<1, 32>>>(p);
  for (int i = 0; i < 4; ++i) alsoDeclared<<<i, 128>>>(nullptr, i);
}
void host(int *p) { declaredOnly<<<2, 64>>>(p); parent<<<1, 1>>>(p); }
