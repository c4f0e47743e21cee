import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { blankCommentsAndStrings, findKernels, kernelAtOffset } from '../src/kernels';

const source = `#include <cstdio>
// __global__ void commented(int x) {}
__device__ float helper(float x) { return x * 2; }

__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++) { sum += a[i * w + tx] * b[i]; }
  c[tx] = sum;
}

__global__ void declared_only(int *p);

template <typename T, int N>
__global__ void __launch_bounds__(256, 2) scale(T *p, T s) {
  const char *msg = "}{ not a brace";
  p[threadIdx.x] *= s;
}

extern "C" __global__ void
  plain_c(int *__restrict__ out) { out[0] = 1; }
`;

test('finds kernel definitions, skipping comments, declarations and attributes', () => {
  assert.deepEqual(findKernels(source).map((k) => k.name), ['tmv', 'scale', 'plain_c']);
});

test('kernel spans cover the whole body, even with braces in strings', () => {
  const [tmv, scale] = findKernels(source);
  assert.equal(source.slice(tmv.start, tmv.start + 10), '__global__');
  assert.ok(source.slice(tmv.start, tmv.end).endsWith('c[tx] = sum;\n}'));
  assert.ok(source.slice(scale.start, scale.end).endsWith('*= s;\n}'));
});

test('kernelAtOffset picks the enclosing kernel', () => {
  assert.equal(kernelAtOffset(source, source.indexOf('float sum'))?.name, 'tmv');
  assert.equal(kernelAtOffset(source, source.indexOf('*= s'))?.name, 'scale');
  assert.equal(kernelAtOffset(source, source.indexOf('out[0]'))?.name, 'plain_c');
  // Outside any kernel, with several kernels in the file: no guess.
  assert.equal(kernelAtOffset(source, source.indexOf('helper')), undefined);
});

test('with a single kernel in the file, the cursor may be anywhere', () => {
  const one = '#include <x>\n\n__global__ void only(int *p) { p[0] = 0; }\n';
  assert.equal(kernelAtOffset(one, 0)?.name, 'only');
});

test('unterminated code does not throw', () => {
  const broken = '__global__ void broken(int *p) { if (p) {';
  // An unclosed body runs to the end of the text.
  assert.deepEqual(findKernels(broken), [{ name: 'broken', start: 0, end: broken.length }]);
  assert.deepEqual(findKernels('__global__'), []);
  assert.deepEqual(findKernels('__global__ void f(int'), []);
  assert.equal(kernelAtOffset('', 0), undefined);
});

test('blanking keeps offsets and newlines', () => {
  const text = 'a /* x\ny */ b // c\n"s\\"t" \'{\'';
  const blanked = blankCommentsAndStrings(text);
  assert.equal(blanked.length, text.length);
  assert.equal(blanked, 'a     \n     b     \n          ');
});
