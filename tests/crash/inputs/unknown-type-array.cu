__global__ void k(int n) {
  __shared__ Undeclared s[32];
  NotAType local[4];
  for (int i = 0; i < n; ++i) local[i] = s[i];
}
