#define KERNEL_BEGIN(name) __global__ void name(int *p) {
#define KERNEL_END
KERNEL_BEGIN(k)
  for (int i = 0; i < 4; ++i) p[i] = i;
KERNEL_END
