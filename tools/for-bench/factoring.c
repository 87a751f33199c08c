/* FAC2, WF, AWF-B and AF on the pool's threads: see factoring.h.
 *
 * All four hand out chunks from the front of the remaining iterations; a
 * worker asks for its next chunk under the lock and reports there how long
 * its last chunk took, so the adaptive ones read consistent figures.
 *  - FAC2 [Hummel 1992]: iterations go in batches; a
 *    batch is half of what remains, cut into P equal chunks, so each chunk
 *    is ceil(R / 2P) with R the iterations left when the batch began.
 *  - WF [Hummel 1996]: as FAC2, worker i's chunks scaled by a fixed
 *    weight w_i (the weights sum to P) for processors of unequal speed. The
 *    pool's threads are alike, so the weights are all 1 here and WF deals
 *    as FAC2 does: shown so the family is complete, not as a new point.
 *  - AWF-B [Cariño 2008], after AWF [Banicescu 2003]:
 *    WF whose weights are recomputed at the start of every batch from the
 *    time per iteration each worker measured so far in this loop, averaged
 *    with weights rising with the chunk's sequence number (later chunks
 *    count more): w_i = P (1/pi_i) / sum_k (1/pi_k).
 *  - AF [Banicescu 2000]: each worker's chunk from the mean mu_k
 *    and variance sigma_k^2 of the iteration times measured so far:
 *    D = sum_k sigma_k^2 / mu_k, T = 1 / sum_k (1 / mu_k),
 *    chunk_i = (D + 2 T R - sqrt(D^2 + 4 D T R)) / (2 mu_i). A worker with
 *    no measurement yet takes a FAC2 chunk; workers without one count with
 *    the others' averages. Iteration times are measured per chunk: a
 *    chunk of n iterations in t gives the mean t / n, and n (t/n - mu)^2
 *    estimates sigma^2 (the variance of a mean of n draws is sigma^2 / n).
 */
#include "factoring.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/clock.h"

typedef struct fac_thread {
  double t, n;       /* time and iterations measured so far (AF: mu = t / n) */
  double q;          /* AF: sum over chunks of t_j^2 / n_j */
  double chunks;     /* chunks measured */
  double wt, wn;     /* AWF-B: sums of j t_j and j n_j over its chunks j */
} fac_thread;

typedef struct fac_state {
  pthread_mutex_t lock;
  fac_kind kind;
  const bench_job *job;
  int P;
  int64_t next;
  int64_t batch_left; /* chunks left in the current batch (FAC2, WF, AWF-B) */
  double batch_base;  /* R at the batch's start / 2P */
  double *weight;     /* P */
  fac_thread *th;     /* P */
} fac_state;

static void awf_weights(fac_state *s) {
  double sum_inv = 0;
  int known = 0;
  for (int i = 0; i < s->P; i++)
    if (s->th[i].wn > 0 && s->th[i].wt > 0) {
      sum_inv += s->th[i].wn / s->th[i].wt;
      known++;
    }
  if (!known) return; /* keep the weights it has (1 at the start) */
  double mean_inv = sum_inv / known, total = sum_inv + mean_inv * (s->P - known);
  for (int i = 0; i < s->P; i++) {
    double inv = s->th[i].wn > 0 && s->th[i].wt > 0 ? s->th[i].wn / s->th[i].wt : mean_inv;
    s->weight[i] = s->P * inv / total;
  }
}

/* AF's estimates of a worker's iteration time: whether it has measured
 * any, their mean mu and, from two chunks on, their variance (else 0). */
static bool af_measured(const fac_thread *h) { return h->n > 0 && h->t > 0; }
static double af_mu(const fac_thread *h) { return h->t / h->n; }
static double af_var(const fac_thread *h) {
  return h->chunks >= 2 ? fmax(0, (h->q - h->t * h->t / h->n) / h->chunks) : 0;
}

static double af_chunk(const fac_state *s, int self, double R) {
  double sum_mu = 0, sum_var = 0;
  int known = 0;
  for (int i = 0; i < s->P; i++) {
    const fac_thread *h = &s->th[i];
    if (!af_measured(h)) continue;
    sum_mu += af_mu(h);
    sum_var += af_var(h);
    known++;
  }
  const fac_thread *me = &s->th[self];
  if (!known || !af_measured(me)) return ceil(R / (2.0 * s->P));
  double mu_avg = sum_mu / known, var_avg = sum_var / known, D = 0, inv = 0;
  for (int i = 0; i < s->P; i++) {
    const fac_thread *h = &s->th[i];
    bool has = af_measured(h);
    double mu = has ? af_mu(h) : mu_avg;
    double var = has && h->chunks >= 2 ? af_var(h) : var_avg;
    D += var / mu;
    inv += 1 / mu;
  }
  double T = 1 / inv, mu_i = af_mu(me);
  return (D + 2 * T * R - sqrt(D * D + 4 * D * T * R)) / (2 * mu_i);
}

/* Under the lock: record worker `self`'s last chunk (n iterations in t
 * ns; n = 0 for none) and hand out its next: returns its size (0: done). */
static int64_t next_chunk(fac_state *s, int self, int64_t n, double t, int64_t *first) {
  fac_thread *h = &s->th[self];
  if (n > 0) {
    h->chunks += 1;
    h->t += t;
    h->n += (double)n;
    h->q += t * t / (double)n;
    h->wt += h->chunks * t;
    h->wn += h->chunks * (double)n;
  }
  int64_t R = s->job->n - s->next;
  if (R <= 0) return 0;
  double c;
  if (s->kind == FAC_AF) {
    c = af_chunk(s, self, (double)R);
  } else {
    if (s->batch_left == 0) {
      if (s->kind == FAC_AWFB) awf_weights(s);
      s->batch_base = (double)R / (2.0 * s->P);
      s->batch_left = s->P;
    }
    s->batch_left--;
    c = ceil(s->weight[self] * s->batch_base);
  }
  int64_t k = c < 1 ? 1 : c > (double)R ? R : (int64_t)c;
  *first = s->next;
  s->next += k;
  return k;
}

static void worker(int64_t lo, int64_t hi, void *arg) {
  fac_state *s = arg;
  int self = bal_worker_id();
  acc_slot *slot = &s->job->acc[self];
  for (int64_t rep = lo; rep < hi; rep++) {
    int64_t n = 0, first = 0;
    double t = 0;
    for (;;) {
      pthread_mutex_lock(&s->lock);
      n = next_chunk(s, self, n, t, &first);
      pthread_mutex_unlock(&s->lock);
      if (n == 0) break;
      int64_t t0 = bal__now_ns();
      bench_run_range(s->job, first, first + n, slot);
      t = (double)(bal__now_ns() - t0);
    }
  }
}

int fac_run(fac_kind k, bal_pool *pool, const bench_job *job) {
  fac_state s = {.kind = k, .job = job, .P = bal_pool_size(pool)};
  s.weight = malloc(sizeof *s.weight * (size_t)s.P);
  s.th = calloc((size_t)s.P, sizeof *s.th);
  if (!s.weight || !s.th) {
    free(s.weight);
    free(s.th);
    return -1;
  }
  for (int i = 0; i < s.P; i++) s.weight[i] = 1;
  pthread_mutex_init(&s.lock, NULL);
  /* One index per worker: each runs the self-scheduling loop above (a
   * worker that gets two runs the second on what is left, usually nothing). */
  bal_for(pool, 0, s.P, 1, worker, &s);
  pthread_mutex_destroy(&s.lock);
  free(s.weight);
  free(s.th);
  return 0;
}
