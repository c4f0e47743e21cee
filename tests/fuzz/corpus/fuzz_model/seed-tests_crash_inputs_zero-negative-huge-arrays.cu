__global__ void k() {
  int zero[0];
  __shared__ int szero[0];
  int negative[-1];
  char huge[1ull << 62];
  __shared__ char shuge[1ull << 63];
  __shared__ long long massive[0x7fffffffffffffffll];
}
