template <typename T> struct Base { T v[4]; };
template <typename T> struct Derived : Base<T> { T w[sizeof(T)]; };
template <typename T>
__global__ void k() {
  __shared__ Derived<T> d[2];
  Derived<T> l;
  for (auto &x : l.w) x = T();
}
