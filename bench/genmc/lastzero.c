// lastzero (Abdulla et al., POPL 2014, Fig. 4), for GenMC: the same program
// as heddle's kernels/classic/lastzero.cpp. T0 scans a[N], a[N-1], ... down
// to the first zero; Tj (1 <= j <= N) sets a[j] := a[j-1] + 1. Every access
// is a seq_cst atomic, as heddle's Atomic<int> is. (N+3) * 2^(N-2) traces.
// Build the size in: genmc -DN=15 bench/genmc/lastzero.c
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 15
#endif

atomic_int a[N + 1];

void *reader(void *arg) {
  (void)arg;
  int i = N;
  while (atomic_load(&a[i]) != 0) --i;
  return NULL;
}

void *writer(void *arg) {
  int j = (int)(long)arg;
  atomic_store(&a[j], atomic_load(&a[j - 1]) + 1);
  return NULL;
}

int main(void) {
  pthread_t t[N + 1];
  pthread_create(&t[0], NULL, reader, NULL);
  for (long j = 1; j <= N; ++j) pthread_create(&t[j], NULL, writer, (void *)j);
  for (int j = 0; j <= N; ++j) pthread_join(t[j], NULL);
  return 0;
}
