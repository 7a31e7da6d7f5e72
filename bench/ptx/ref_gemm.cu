// A plain reference GEMM for bench/ptx_speed (issue 46): C = A * B in f32,
// one thread per element of C, row-major, no shared memory. Compile with
// nvcc -arch=sm_90a -lineinfo -ptx bench/ptx/ref_gemm.cu -o /tmp/ref_gemm.ptx
extern "C" __global__ void ref_gemm(const float* a, const float* b, float* c, int m, int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0;
  for (int i = 0; i < k; ++i) acc += a[row * k + i] * b[i * n + col];
  c[row * n + col] = acc;
}
