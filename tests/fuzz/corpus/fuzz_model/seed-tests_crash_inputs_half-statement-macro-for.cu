#define LOOP_OPEN for (int i = 0; i < n; ++i) {
#define LOOP_CLOSE }
__global__ void k(float *p, int n) {
  LOOP_OPEN
    p[i] *= 2.0f;
  LOOP_CLOSE
}
