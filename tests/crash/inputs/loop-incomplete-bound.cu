struct Opaque;
extern Opaque limit;
__global__ void k(float *p, Opaque *o) {
  for (int i = 0; i < limit; ++i) p[i] = 0;
  for (int i = 0; i < o->size; ++i) p[i] = 1;
  for (auto &x : *o) x = 0;
  while (*o) { p[0] = 1; }
}
