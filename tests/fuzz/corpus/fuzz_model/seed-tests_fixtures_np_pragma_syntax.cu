// np-pragma-syntax: malformed CUDA-NP directives, reported at the bad token.
__global__ void k(float *a, int n) {
  float s = 0, m = 0;
  // expect@+2: np-pragma-syntax "unknown clause"
  // pragma@+1: valid=false
  #pragma np parallel for reductoin(+:s)
  for (int i = 0; i < n; i++) s += a[i];

  // expect@+1: np-pragma-syntax "unknown reduction operator"
  #pragma np parallel for reduction(-:s)
  for (int i = 0; i < n; i++) s += a[i];

  // expect@+1: np-pragma-syntax "expected ')'"
  #pragma np parallel for reduction(+:s
  for (int i = 0; i < n; i++) s += a[i];

  // expect@+1: np-pragma-syntax "num_threads must be 2, 4, 8, 16 or 32"
  #pragma np parallel for num_threads(3)
  for (int i = 0; i < n; i++) a[i] = 0;

  // expect@+1: np-pragma-syntax "np_type must be 'inter' or 'intra'"
  #pragma np parallel for np_type(warp)
  for (int i = 0; i < n; i++) a[i] = 0;

  // expect@+1: np-pragma-syntax "expected a variable name"
  #pragma np parallel for copyin()
  for (int i = 0; i < n; i++) a[i] = 0;

  // expect@+1: np-pragma-syntax "expected 'parallel for'"
  #pragma np loop
  for (int i = 0; i < n; i++) a[i] = 0;

  // expect@+1: np-pragma-syntax "duplicate num_threads"
  #pragma np parallel for num_threads(4) num_threads(8)
  for (int i = 0; i < n; i++) a[i] = 0;

  // Valid, with every clause.
  // pragma@+1: valid=true num_threads=8 np_type=intra sm_version=90 reductions=+:s,max:m copyin=n
  #pragma np parallel for reduction(+:s) reduction(max:m) copyin(n) num_threads(8) np_type(intra) sm_version(90)
  for (int i = 0; i < n; i++) { s += a[i]; m = fmaxf(m, a[i]); }
  a[0] = s + m;
}
