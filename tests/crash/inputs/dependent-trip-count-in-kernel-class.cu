template <typename T>
struct Ops {
  __device__ static void run(T *p, int n) {
    for (int i = 0; i < T::size; ++i) p[i] = T();
    for (typename T::iterator it = p->begin(); it != p->end(); ++it) *it = 0;
  }
};
template <typename T>
__global__ void k(T *p) { Ops<T>::run(p, T::size); }
