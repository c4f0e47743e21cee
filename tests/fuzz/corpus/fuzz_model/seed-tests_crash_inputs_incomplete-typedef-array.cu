struct Opaque;
typedef Opaque Row[16];
using Tile = Row[4];
__global__ void k() {
  __shared__ Tile t;
  Row r;
}
