#pragma once
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define M_PI 3.14159265358979323846
extern "C" {
double sqrt(double); float sqrtf(float);
double fabs(double); float fabsf(float);
double exp(double); float expf(float);
double log(double); float logf(float);
double pow(double, double); float powf(float, float);
double floor(double); float floorf(float);
double ceil(double); float ceilf(float);
double sin(double); float sinf(float);
double cos(double); float cosf(float);
double fmax(double, double); float fmaxf(float, float);
double fmin(double, double); float fminf(float, float);
}
