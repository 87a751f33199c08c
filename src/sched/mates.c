/* SD-Policy mate selection ([D'Amico 2019] §3.2, Listing 2): at most
 * max_mates running malleable jobs whose node counts add up to exactly the
 * guest's, each still predicted to run past the guest's predicted end, each
 * with predicted slowdown p < MAX_SLOWDOWN once shrunk (Eqs. 2, 4),
 * minimising Σ p × nodes (Eq. 1 weighted as in the SLURM implementation) or
 * Σ p (Eq. 1 as printed), as the policy asks.
 * Exhaustive over node counts: the best choice of k mates of one size is
 * always that size's k lowest penalties, so a depth-first search over the
 * distinct sizes present, taking the best k of each, finds the optimum. */
#include <math.h>

#include "sim.h"

typedef struct search {
  bal__sched_sim *s;
  double dur, deadline, cutoff;
  int m;
  bool by_nodes; /* cost Σ p × nodes, else Σ p */
  int32_t pick[BAL_SCHED_MAX_MATES], best[BAL_SCHED_MAX_MATES];
  int npick, nbest;
  double best_cost;
} search;

/* Fill the best-penalty list of node count w (once per selection). */
static int32_t best_of_size(search *q, int64_t w) {
  bal__sched_sim *s = q->s;
  if (s->best_stamp[w] == s->stamp) return s->best_n[w];
  s->best_stamp[w] = s->stamp;
  int32_t *idx = s->best_idx + w * q->m;
  double *pen = s->best_p + w * q->m;
  int32_t n = 0;
  for (int32_t c = s->bucket_head[w]; c >= 0; c = s->jobs[c].bnext) {
    const sjob *cb = &s->jobs[c];
    if (cb->pred_end < q->deadline) continue; /* the guest must end inside its mates */
    double f = bal__sched_share_rate(s->cpn - cb->lend, cb->demand);
    double p = (cb->pred_end + q->dur * (1.0 - f) - cb->submit) / fmax(1.0, cb->req);
    if (!(p < q->cutoff)) continue;
    if (n == q->m && p >= pen[n - 1]) continue;
    int32_t k = n < q->m ? n++ : n - 1;
    while (k > 0 && pen[k - 1] > p) {
      pen[k] = pen[k - 1];
      idx[k] = idx[k - 1];
      k--;
    }
    pen[k] = p;
    idx[k] = c;
  }
  s->best_n[w] = n;
  return n;
}

/* Index of node count w among the sizes present, or -1. */
static int32_t find_size(const bal__sched_sim *s, int64_t w, int32_t from) {
  int32_t lo = from, hi = s->nsizes;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (s->sizes[mid] < w) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->nsizes && s->sizes[lo] == w ? lo : -1;
}

static void dfs(search *q, int32_t from, int64_t left, int slots, double cost) {
  const bal__sched_sim *s = q->s;
  if (left == 0) {
    if (cost < q->best_cost) {
      q->best_cost = cost;
      q->nbest = q->npick;
      for (int i = 0; i < q->npick; i++) q->best[i] = q->pick[i];
    }
    return;
  }
  if (slots == 0 || cost >= q->best_cost) return;
  if (slots == 1) { /* the last mate must have exactly the nodes left */
    int32_t i = find_size(s, left, from);
    if (i < 0) return;
    int64_t w = s->sizes[i];
    if (best_of_size(q, w) < 1) return;
    q->pick[q->npick++] = s->best_idx[w * q->m];
    dfs(q, i + 1, 0, 0, cost + s->best_p[w * q->m] * (q->by_nodes ? (double)w : 1.0));
    q->npick--;
    return;
  }
  for (int32_t i = from; i < s->nsizes && s->sizes[i] <= left; i++) {
    int64_t w = s->sizes[i];
    /* prune sizes that cannot be completed with the slots left */
    if (slots == 2 && left != w && (left - w < w || find_size(s, left - w, i) < 0)) continue;
    int32_t have = best_of_size(q, w);
    double c = cost;
    int k = 0;
    for (; k < have && k < slots && (int64_t)(k + 1) * w <= left; k++) {
      q->pick[q->npick++] = s->best_idx[w * q->m + k];
      c += s->best_p[w * q->m + k] * (q->by_nodes ? (double)w : 1.0);
      dfs(q, i + 1, left - (int64_t)(k + 1) * w, slots - k - 1, c);
    }
    q->npick -= k;
  }
}

int bal__sched_select_mates(bal__sched_sim *s, int32_t j, double dur, bal__sched_mate_cost cost,
                            int32_t *out) {
  const bal_sched_config *cfg = s->cfg;
  const sjob *g = &s->jobs[j];
  if (s->nsizes == 0 || s->sizes[0] > g->nodes) return 0;
  /* Nothing changed since a guest of this size and a duration no longer
   * than this one found no mates: a longer guest cannot find any either
   * (later deadline, higher penalties). The queue holds many such jobs. */
  if (s->fail_epoch[g->nodes] == s->epoch && s->fail_dur[g->nodes] <= dur) return 0;
  search q = {.s = s,
              .dur = dur,
              .deadline = s->now + dur,
              .m = (int)cfg->max_mates,
              .by_nodes = cost == BAL__SCHED_COST_NODES};
  q.cutoff = cfg->dynamic_max_slowdown ? (s->nrun > 0 ? s->psd_sum / s->nrun : INFINITY)
                                       : cfg->max_slowdown;
  q.best_cost = INFINITY;
  s->stamp++;
  dfs(&q, 0, g->nodes, q.m, 0.0);
  if (q.nbest == 0) {
    if (s->fail_epoch[g->nodes] != s->epoch || dur < s->fail_dur[g->nodes])
      s->fail_dur[g->nodes] = dur;
    s->fail_epoch[g->nodes] = s->epoch;
  }
  for (int i = 0; i < q.nbest; i++) out[i] = q.best[i];
  return q.nbest;
}
