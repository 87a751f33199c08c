/* steal: several workers sharing one rank's queue, without MPI (no MPI call
 * is made, so it runs under TSan, which the MPI tests do not). The test
 * plays the progress loop itself: it starts the workers on a balancer laid
 * out by hand, lets tasks spawn trees of children concurrently, takes
 * batches from the front of the queue as a thief would and puts them back,
 * collects the results from the done list, and stops the workers once the
 * queue is empty and no task runs. Every task must run exactly once and
 * every non-empty result must reach the done list exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rng.h"
#include "steal/steal_internal.h"

typedef struct tnode {
  uint64_t id;
  int depth, max_depth;
} tnode;

static atomic_int_least64_t executed;
static atomic_uint_least64_t exec_hash;

static uint64_t h64(uint64_t x) { return bal__splitmix64(&x); }
static int children(const tnode *n) { return n->depth >= n->max_depth ? 0 : (int)(h64(n->id) % 4); }
static uint64_t child(uint64_t id, int i) { return h64(id * 8 + (uint64_t)i + 1); }

static int task(const void *in, size_t in_len, void *out, size_t out_cap, size_t *out_len, void *arg) {
  bal_steal *s = arg;
  tnode n;
  if (in_len != sizeof n || out_cap < 8) return 99;
  memcpy(&n, in, sizeof n);
  for (int i = 0; i < children(&n); i++) {
    tnode c = {child(n.id, i), n.depth + 1, n.max_depth};
    if (bal_steal_spawn(s, &c, sizeof c) != BAL_OK) return 98;
  }
  if (bal_steal_poll(s) != BAL_ENOTSUP) return 97; /* a worker thread never polls */
  atomic_fetch_add(&executed, 1);
  atomic_fetch_add(&exec_hash, h64(n.id ^ 0x1234));
  if (n.id % 3 == 0) return 0; /* empty result: not delivered */
  memcpy(out, &n.id, 8);
  *out_len = 8;
  return 0;
}

static void tree(const tnode *n, int64_t *count, uint64_t *hash, int64_t *results) {
  (*count)++;
  *hash += h64(n->id ^ 0x1234);
  *results += n->id % 3 != 0;
  for (int i = 0; i < children(n); i++) {
    tnode c = {child(n->id, i), n->depth + 1, n->max_depth};
    tree(&c, count, hash, results);
  }
}

/* POLL mode's extra workers are indices 1 .. workers (0 would be the
 * progress thread's, which this test does not play). */
static void run_workers(bal_steal_progress mode, int workers, int roots, int max_depth,
                        uint64_t seed) {
  int first = mode == BAL_STEAL_PROGRESS_POLL ? 1 : 0;
  bal_steal *s = calloc(1, sizeof *s);
  assert_non_null(s);
  assert_int_equal(bal_steal_config_init(&s->cfg), BAL_OK);
  s->cfg.workers = workers + first;
  s->mode = mode;
  s->size = 1; /* rank 0 of 1: the owner of every task */
  s->fn = task;
  s->arg = s;
  s->max_out = 8;
  assert_int_equal(pthread_mutex_init(&s->mu, NULL), 0);
  pthread_cond_init(&s->work_cv, NULL);
  pthread_cond_init(&s->prog_cv, NULL);
  s->wk = calloc((size_t)(workers + first), sizeof *s->wk);
  assert_non_null(s->wk);
  atomic_store(&executed, 0);
  atomic_store(&exec_hash, 0);
  int64_t want_n = 0, want_res = 0;
  uint64_t want_h = 0;
  pthread_mutex_lock(&s->mu);
  assert_int_equal(bal__steal_q_reserve(s, (size_t)roots), BAL_OK);
  for (int i = 0; i < roots; i++) {
    tnode n = {h64(seed * 977 + (uint64_t)i), 0, max_depth};
    tree(&n, &want_n, &want_h, &want_res);
    unsigned char *d = malloc(sizeof n);
    assert_non_null(d);
    memcpy(d, &n, sizeof n);
    bal__steal_q_push_back(s, (bal__steal_task){0, 1, BAL__STEAL_SPAWNED, sizeof n, d});
  }
  pthread_mutex_unlock(&s->mu);
  for (int i = first; i < workers + first; i++) {
    s->wk[i] = (bal__steal_worker){.s = s, .index = i, .scratch = malloc(8)};
    assert_non_null(s->wk[i].scratch);
    assert_int_equal(pthread_create(&s->wk[i].th, NULL, bal__steal_worker_main, &s->wk[i]), 0);
  }
  /* The progress loop's part: drain results, play thief now and then. */
  int64_t got = 0;
  bal__rng rng;
  bal__rng_seed(&rng, seed);
  for (;;) {
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->ndone; i++) {
      assert_int_equal(s->done[i].status, 0);
      assert_int_equal(s->done[i].len, 8);
      uint64_t id;
      memcpy(&id, s->done[i].data, 8);
      assert_int_not_equal(id % 3, 0);
      free(s->done[i].data);
      got++;
    }
    s->ndone = 0;
    size_t n = bal__steal_q_size(s);
    assert_int_equal(bal_steal_queued(s), (int64_t)n);
    if (n >= 2 && bal__rng_below(&rng, 4) == 0) {
      /* A thief takes half from the front, and gives the batch back. */
      unsigned char *buf;
      size_t bytes, bulk;
      int64_t took = bal__steal_pack_front(s, n / 2, &buf, &bytes, &bulk);
      assert_true(took >= 1);
      pthread_mutex_unlock(&s->mu);
      assert_int_equal(bal__steal_unpack_tasks(s, buf, bytes), took);
      free(buf);
      continue;
    }
    bool over = n == 0 && s->busy == 0 && s->ndone == 0;
    if (over) {
      s->stop = true;
      pthread_cond_broadcast(&s->work_cv);
    }
    pthread_mutex_unlock(&s->mu);
    if (over) break;
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
  for (int i = first; i < workers + first; i++) {
    pthread_join(s->wk[i].th, NULL);
    free(s->wk[i].scratch);
  }
  assert_int_equal(atomic_load(&executed), want_n);
  assert_true(atomic_load(&exec_hash) == want_h);
  assert_int_equal(got, want_res);
  assert_int_equal(s->st.spawned + roots, want_n);
  assert_int_equal(s->st.executed_own, want_n);
  free(s->wk);
  free(s->q);
  free(s->done);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->work_cv);
  pthread_cond_destroy(&s->prog_cv);
  free(s);
}

static void test_workers(void **state) {
  (void)state;
  const char *scale = getenv("BALLAST_STRESS_SCALE");
  int rounds = 12 * (scale && atoi(scale) > 0 ? atoi(scale) : 1);
  for (int r = 0; r < rounds; r++)
    for (int w = 1; w <= 4; w++)
      run_workers(r % 2 ? BAL_STEAL_PROGRESS_POLL : BAL_STEAL_PROGRESS_THREAD, w, 1 + r % 5,
                  8 + r % 5, (uint64_t)(r * 10 + w));
}

/* Outside a task, spawning is refused and the queue reads 0. */
static void test_outside(void **state) {
  (void)state;
  bal_steal *s = calloc(1, sizeof *s);
  assert_non_null(s);
  s->mode = BAL_STEAL_PROGRESS_POLL;
  assert_int_equal(bal_steal_spawn(s, "x", 1), BAL_EINVAL);
  assert_int_equal(bal_steal_spawn(NULL, "x", 1), BAL_EINVAL);
  assert_int_equal(bal_steal_queued(s), 0);
  assert_int_equal(bal_steal_queued(NULL), BAL_EINVAL);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_workers), cmocka_unit_test(test_outside)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
