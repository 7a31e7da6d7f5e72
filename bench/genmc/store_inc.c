// 3 threads x 6 seq_cst operations, for GenMC: the same program as heddle's
// classic/store_inc kernel (kernels/classic/small.cpp). Each thread, twice:
// x := t, then y := y + 1 as a separate load and store (a lost update).
// 169,206 traces at 3 threads and 2 rounds.
#include <pthread.h>
#include <stdatomic.h>

#ifndef THREADS
#define THREADS 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

atomic_int x, y;

void *worker(void *arg) {
  int t = (int)(long)arg;
  for (int k = 0; k < ROUNDS; ++k) {
    atomic_store(&x, t);
    atomic_store(&y, atomic_load(&y) + 1);
  }
  return NULL;
}

int main(void) {
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, worker, (void *)(t + 1));
  for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
  return 0;
}
