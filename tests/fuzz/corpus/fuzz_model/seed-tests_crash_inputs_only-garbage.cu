<<<>>> }}} {{{ __global__ __shared__ [[ ]] #pragma np
template template <<< for ( ; ; ) >>> struct ; __syncthreads
