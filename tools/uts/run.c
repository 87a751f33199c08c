/* ballast-uts's searches: the tasks of the parallel search (each searches
 * its nodes depth first and spawns half of its stack when its rank runs
 * short of waiting tasks) and rank 0's sequential baseline, with the same
 * search and the same check interval. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ballast/steal.h>

#include "uts.h"

typedef struct task_state {
  run_ctx *c;
  int64_t last_nodes; /* nodes already added to c->counted (and whose cost has passed) */
  int checks;
  int64_t splits;
} task_state;

/* Simulated work: the cost of n nodes passes (a simulated sleep under
 * SMPI, whose nanosleep is SimGrid's). */
static void spend(const run_ctx *c, int64_t n) {
  double s = c->node_cost * (double)n;
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
  nanosleep(&ts, NULL);
}

static bool on_check(void *arg, uts_stack *st, const uts_counts *cnt) {
  task_state *t = arg;
  run_ctx *c = t->c;
  spend(c, cnt->nodes - t->last_nodes);
  int64_t now = atomic_fetch_add_explicit(&c->counted, cnt->nodes - t->last_nodes,
                                          memory_order_relaxed) +
                (cnt->nodes - t->last_nodes);
  t->last_nodes = cnt->nodes;
  if (now > c->o->max_nodes) atomic_store(&c->stop, true);
  if (atomic_load_explicit(&c->stop, memory_order_relaxed)) return false;
  if (st->n >= 2 && bal_steal_queued(c->s) < 2) {
    int64_t h = st->n / 2;
    if (bal_steal_spawn(c->s, st->v, (size_t)h * sizeof *st->v) == BAL_OK) {
      memmove(st->v, st->v + h, (size_t)(st->n - h) * sizeof *st->v);
      st->n -= h;
      t->splits++;
    }
  }
  /* After the split, so that a waiting thief finds the queue refilled. */
  if (++t->checks % c->poll_every == 0) bal_steal_poll(c->s); /* BAL_ENOTSUP off POLL's thread */
  return true;
}

int uts_task(const void *in, size_t in_len, void *out, size_t out_cap, size_t *out_len,
                    void *arg) {
  (void)out;
  (void)out_cap;
  (void)out_len;
  run_ctx *c = arg;
  if (in_len % sizeof(uts_node) != 0) return 1;
  int64_t k = (int64_t)(in_len / sizeof(uts_node));
  uts_stack stack = {NULL, 0, 0}, *st = &stack;
  for (int64_t i = 0; i < k; i++) {
    uts_node n;
    memcpy(&n, (const unsigned char *)in + (size_t)i * sizeof n, sizeof n);
    if (!uts_push(st, &n)) {
      free(stack.v);
      atomic_store(&c->oom, true); /* a spawned task's status reaches no one */
      return BAL_ENOMEM;
    }
  }
  uts_counts cnt = {0, 0, 0};
  task_state t = {c, 0, 0, 0};
  int rc = atomic_load(&c->stop) ? 1 : uts_search(&c->o->prm, st, &cnt, c->every, on_check, &t);
  spend(c, cnt.nodes - t.last_nodes);
  atomic_fetch_add_explicit(&c->counted, cnt.nodes - t.last_nodes, memory_order_relaxed);
  pthread_mutex_lock(&c->mu);
  c->total.nodes += cnt.nodes;
  c->total.leaves += cnt.leaves;
  if (cnt.max_depth > c->total.max_depth) c->total.max_depth = cnt.max_depth;
  c->splits += t.splits;
  c->last_end = MPI_Wtime();
  pthread_mutex_unlock(&c->mu);
  free(stack.v);
  if (rc < 0) atomic_store(&c->oom, true);
  return rc < 0 ? BAL_ENOMEM : 0; /* a stopped search is reported by the stop flag */
}

typedef struct seq_state {
  int64_t limit, max_nodes;
  bool too_big;
} seq_state;

static bool seq_check(void *arg, uts_stack *st, const uts_counts *cnt) {
  (void)st;
  seq_state *q = arg;
  if (cnt->nodes > q->max_nodes) q->too_big = true;
  return !q->too_big && (q->limit < 0 || cnt->nodes < q->limit);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int uts_sequential(const opts *o, seq_out *r) {
  uts_stack st = {NULL, 0, 0};
  uts_node root;
  uts_root(&o->prm, &root);
  if (!uts_push(&st, &root)) return -1;
  seq_state q = {o->baseline_nodes, o->max_nodes, false};
  memset(r, 0, sizeof *r);
  double a = now_s();
  /* The same search and the same check interval as the tasks'. */
  int rc = uts_search(&o->prm, &st, &r->cnt, CHECK_EVERY, seq_check, &q);
  r->time_s = now_s() - a;
  free(st.v);
  r->complete = rc == 0;
  r->too_big = q.too_big;
  return rc < 0 ? -1 : 0;
}

/* Wait at a barrier without spinning: a rank waiting for rank 0's baseline
 * must leave the cores alone (Open MPI's blocking barrier busy-polls).
 * Under SMPI a blocking barrier is a simulated wait and costs nothing. */
void uts_quiet_barrier(void) {
#ifdef BALLAST_SMPI
  MPI_Barrier(MPI_COMM_WORLD);
#else
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  for (int done = 0;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
#endif
}
