template <int N> struct Deep { Deep<N + 1> inner; };
__global__ void k() { __shared__ Deep<0> d[1]; }
