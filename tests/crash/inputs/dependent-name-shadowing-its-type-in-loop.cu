// Found by fuzz_model (session of 2026-11-25), minimised: a name declared as
// a variable of a dependent type T named T, then dereferenced in the loop,
// left the dependence analysis an expression without a type.
template<typename T>__device__ p(){for(T T(p))*T
