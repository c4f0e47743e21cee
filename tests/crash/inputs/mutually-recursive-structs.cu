struct B;
struct A { B b; };
struct B { A a; };
__global__ void k() {
  __shared__ A s[2];
  B l[2];
}
