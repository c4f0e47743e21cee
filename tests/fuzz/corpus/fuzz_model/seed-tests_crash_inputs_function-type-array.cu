typedef void Fn(int);
__global__ void k() {
  __shared__ Fn table[4];
  Fn local[2];
  void v[3];
  int &refs[2];
}
