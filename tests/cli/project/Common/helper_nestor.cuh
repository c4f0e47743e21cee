// Shared by the samples through -I Common (like cuda-samples' Common/).
#pragma once
__device__ inline float twice(float x) { return 2.0f * x; }
