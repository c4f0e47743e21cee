constexpr int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
constexpr int forever(int n) { return forever(n + 1); }
__global__ void k(float *p) {
  for (int i = 0; i < fib(30); ++i) p[i] = 0;
  for (int i = 0; i < forever(0); ++i) p[i] = 1;
  __shared__ float s[forever(1)];
  float l[fib(12)];
}
