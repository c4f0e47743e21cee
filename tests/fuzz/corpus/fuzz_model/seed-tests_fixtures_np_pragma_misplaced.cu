// np-pragma-misplaced: the directive must sit right above a for loop of a kernel.
__device__ void helper(float *a, int n) {
  // expect@+1: np-pragma-misplaced "__device__ function"
  #pragma np parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
}

__global__ void k(float *a, float *b, int n) {
  float s = 0;
  // expect@+1: np-pragma-misplaced "not directly followed by a for loop"
  #pragma np parallel for
  s = a[0];

  int i = 0;
  // expect@+1: np-pragma-misplaced "precedes a while loop"
  #pragma np parallel for
  while (i < n) { a[i] = 0; ++i; }

  // Negative: a comment between the pragma and its loop is fine.
  #pragma np parallel for
  // copy
  for (int j = 0; j < n; j++) b[j] = a[j];
  helper(a, n);
  a[0] = s;
}

// expect@+1: np-pragma-misplaced
#pragma np parallel for
int host_side_value = 3;
