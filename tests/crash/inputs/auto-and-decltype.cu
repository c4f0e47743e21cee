__global__ void k(int n) {
  __shared__ auto s[4];
  auto local[4] = {1, 2, 3, 4};
  decltype(undeclared) d[4];
  for (auto i = 0; i < n; ++i) d[i] = local[i];
}
