// Suppression comments: `// nestor-ignore(rule-id)` on the line or the line before.
__global__ void child(int *a) { a[threadIdx.x] = 1; }

__global__ void parent(int *a, float *b, int n) {
  child<<<1, 32>>>(a); // nestor-ignore(dp-launch-per-thread)
  // nestor-ignore(np-parallel-loop)
  for (int i = 0; i < n; i++) b[threadIdx.x * n + i] = 0;
  // nestor-ignore(dp-launch-in-loop, np-parallel-loop)
  for (int i = 0; i < n; i++) b[threadIdx.x * n + i] += 1;
  // A different rule named: still reported.
  // nestor-ignore(dp-device-sync)
  // expect@+1: np-parallel-loop
  for (int i = 0; i < n; i++) b[threadIdx.x * n + i] *= 2;
  // expect@+1: dp-launch-per-thread
  child<<<1, 32>>>(a);
}
