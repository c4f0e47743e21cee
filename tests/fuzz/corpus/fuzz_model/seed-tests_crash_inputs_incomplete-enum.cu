enum Colour;
enum class Fixed : int;
__global__ void k() {
  __shared__ Colour c[4];
  Fixed f[4];
}
