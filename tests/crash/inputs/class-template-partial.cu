template <typename T> struct Box;
template <typename T> struct Box<T *> { T v; };
__global__ void k() {
  __shared__ Box<int> a[2];
  __shared__ Box<int *> b[2];
  Box<float> c[2];
}
