// indexer (Flanagan and Godefroid, POPL 2005; SV-COMP indexer.c), for
// GenMC: the same program as heddle's kernels/classic/indexer.cpp. N threads
// insert 4 values each into a 128-slot hash table; the benchmark's cas() is
// built from a per-slot mutex, as in heddle's model. Only threads whose
// values collide interact: 8^(N-11) traces.
// Build the size in: genmc -DN=15 bench/genmc/indexer.c
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 15
#endif
#define SIZE 128
#define MAX 4

atomic_int table[SIZE];
pthread_mutex_t cas_mutex[SIZE];

static int cas(int h, int expected, int desired) {
  pthread_mutex_lock(&cas_mutex[h]);
  int ok = atomic_load(&table[h]) == expected;
  if (ok) atomic_store(&table[h], desired);
  pthread_mutex_unlock(&cas_mutex[h]);
  return ok;
}

void *inserter(void *arg) {
  int tid = (int)(long)arg;
  for (int m = 1; m <= MAX; ++m) {
    int w = m * 11 + tid;
    int h = (w * 7) % SIZE;
    while (!cas(h, 0, w)) h = (h + 1) % SIZE;
  }
  return NULL;
}

int main(void) {
  pthread_t t[N];
  for (int h = 0; h < SIZE; ++h) pthread_mutex_init(&cas_mutex[h], NULL);
  for (long i = 0; i < N; ++i) pthread_create(&t[i], NULL, inserter, (void *)i);
  for (int i = 0; i < N; ++i) pthread_join(t[i], NULL);
  return 0;
}
