// Loop bounds and array sizes that need constant evaluation: a recursive
// constexpr function, and one that never ends (clang stops it at its step
// limit and the array declaration is invalid). Kept small: every analysis
// evaluates the bounds again.
constexpr int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
constexpr int forever(int n) { return forever(n + 1); }
__global__ void k(float *p) {
  for (int i = 0; i < fib(12); ++i) p[i] = 0;
  __shared__ float s[forever(1)];
  float l[fib(10)];
  for (int i = 0; i < sizeof(l) / sizeof(l[0]); ++i) l[i] = s[i];
}
