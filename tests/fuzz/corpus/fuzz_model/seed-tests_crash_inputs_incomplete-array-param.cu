struct Opaque;
__global__ void k(Opaque arr[4], Opaque (&ref)[4], int n) {
  for (int i = 0; i < n; ++i) arr[i];
}
__global__ void parent(Opaque *o) { k<<<1, 1>>>(o, *(Opaque (*)[4])o, 4); }
