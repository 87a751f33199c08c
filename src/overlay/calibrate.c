/* Choosing the free constants of the edge rule so that the AVERAGE degree
 * meets the target. Both calibrations are deterministic functions of the
 * parameters, so whole-graph and local builds agree. */
#include "overlay/rule.h"

#include <ballast/error.h>
#include <math.h>
#include <stdlib.h>

/* Dense: pair at ring distance d >= 2 linked with p(d) = min(1, c d^-a).
 * The expected number of shortcuts per node, sum_d m_d p(d) with m_d nodes
 * at distance d, grows monotonically with c; bisect for target - 2. */
int bal__ov_calibrate_dense(bal__ov_rule *r) {
  const int64_t n = r->n, half = n / 2;
  double *w = malloc(sizeof *w * (size_t)(half + 1));
  r->keep = calloc((size_t)(half + 1), sizeof *r->keep);
  if (!w || !r->keep) {
    free(w);
    bal__ov_rule_free(r);
    return BAL_ENOMEM;
  }
  for (int64_t d = 2; d <= half; d++) w[d] = pow((double)d, -r->exponent); /* may underflow */
  /* c lies between want / (n - 3) (every p <= c) and half^a (every p = 1):
   * bisect on log c, as steep exponents put c many orders of magnitude up
   * (capped where exp() would overflow). */
  double want = r->target - 2, lo = log(want / (double)(n - 3));
  double hi = fmin(r->exponent * log((double)half), 700.0);
  for (int it = 0; it < 80 && lo < hi; it++) {
    double mid = 0.5 * (lo + hi), c = exp(mid), sum = 0;
    for (int64_t d = 2; d <= half; d++) {
      double m = (2 * d == n) ? 1 : 2, p = c * w[d];
      sum += m * (p < 1 ? p : 1);
    }
    if (sum < want)
      lo = mid;
    else
      hi = mid;
  }
  const double c = exp(hi);
  for (int64_t d = 2; d <= half; d++) r->keep[d] = bal__ov_threshold(c * w[d]);
  free(w);
  return BAL_OK;
}

/* Sparse: the distance up to which c d^-a >= 1 under the saturated law,
 * with the sum over distances approximated by an integral (only the integer
 * part matters; calibration below fixes the average exactly). */
int bal__ov_choose_near(const bal__ov_rule *r) {
  const double half = (double)(r->n / 2), a = r->exponent, want = r->target - 2;
  double lo = 0, hi = half;
  for (int it = 0; it < 100; it++) {
    double c = 0.5 * (lo + hi);
    double tail = fabs(a - 1) < 1e-9 ? log(half / c) : (pow(half, 1 - a) - pow(c, 1 - a)) / (1 - a);
    double f = 2 * (c > 1 ? c - 1 : 0) + 2 * c * (c < half ? tail : 0);
    if (f < want)
      lo = c;
    else
      hi = c;
  }
  int near = (int)floor(lo);
  if (near < 1) near = 1;
  if (2 * near > r->target) near = r->target / 2;
  return near;
}

/* Expected share of nodes a round at `depth` gives no usable partner:
 * the unmatched node of each odd block, plus both ends of every pair that
 * lies within ring distance `near` (a random matching of a block of size s
 * joins a given pair with probability 1/(s-1), or 1/s for odd s). Blocks
 * have two sizes, floor(N/2^depth) and one more. */
static double structural_loss(const bal__ov_rule *r, int depth) {
  const int64_t n = r->n, blocks = INT64_C(1) << depth, q = n >> depth, big = n - q * blocks;
  double loss = 0;
  for (int64_t s = q; s <= q + 1; s++) {
    int64_t count = s == q ? blocks - big : big;
    if (count == 0) continue;
    double close = 0; /* pairs of the block within distance near */
    for (int64_t d = 1; d <= r->near && d < s; d++) close += (double)(s - d);
    if (depth == 0)
      for (int64_t d = 1; d <= r->near; d++) close += (double)d; /* across the wrap */
    double pair = (s & 1) ? 1.0 / (double)s : 1.0 / (double)(s - 1);
    loss += (double)count * ((double)(s & 1) + 2 * close * pair);
  }
  return loss / (double)n;
}

/* Where a node's partner lands at a given depth: with a random rotation a
 * node sits in a block of size s with probability w_s = (blocks of size s)
 * s / N, and is matched there to each other member with probability p_s
 * (1/(s-1), or 1/s for odd s). So the partner is at offset +d (and as
 * likely at -d) with probability P(d) = sum_s w_s p_s (s - d) / s, d < s:
 * linear in d below the smaller size q, one more term at d = q. */
typedef struct offset_law {
  int64_t q;         /* the smaller block size */
  double w[2], p[2]; /* sizes q and q + 1 */
  double a, b, at_q; /* P(d) = a - b d for d < q; P(q) = at_q */
} offset_law;

static offset_law law_at(const bal__ov_rule *r, int depth) {
  const int64_t n = r->n, blocks = INT64_C(1) << depth, q = n >> depth, big = n - q * blocks;
  offset_law law = {.q = q};
  for (int i = 0; i < 2; i++) {
    int64_t s = q + i, count = i ? big : blocks - big;
    law.w[i] = (double)count * (double)s / (double)n;
    law.p[i] = (s & 1) ? 1.0 / (double)s : 1.0 / (double)(s - 1);
    law.a += law.w[i] * law.p[i];
    law.b += law.w[i] * law.p[i] / (double)s;
  }
  law.at_q = law.w[1] * law.p[1] / (double)(q + 1);
  return law;
}

static double law_p(const offset_law *law, int64_t d) {
  return d < law->q ? law->a - law->b * (double)d : d == law->q ? law->at_q : 0;
}

/* Probability that two rounds (independent rotations) give a node the same
 * partner at an offset d > from: 2 sum_{d > from} P(d) P'(d), in closed form
 * over the range where both laws are linear (A - B d) plus the last point. */
static double repeat_probability(const offset_law *x, const offset_law *y, int64_t from) {
  int64_t m = x->q < y->q ? x->q : y->q;
  if (m <= from) return 0;
  const double ax = x->a, bx = x->b, ay = y->a, by = y->b;
  /* sums of 1, d, d^2 over d in [near + 1, m - 1] */
  double lo = (double)from + 1, hi = (double)m - 1, s0 = 0, s1 = 0, s2 = 0;
  if (hi >= lo) {
    s0 = hi - lo + 1;
    s1 = (hi * (hi + 1) - (lo - 1) * lo) / 2;
    s2 = (hi * (hi + 1) * (2 * hi + 1) - (lo - 1) * lo * (2 * lo - 1)) / 6;
  }
  double sum = ax * ay * s0 - (ax * by + ay * bx) * s1 + bx * by * s2;
  return 2 * (sum + law_p(x, m) * law_p(y, m));
}

/* Offsets up to this one, where several rounds often pick the same partner,
 * track the exact chance that an earlier round already linked them; longer
 * ones use the pairwise sum (repeat_probability()), accurate there. */
#define EXACT_OFFSETS 256

/* Sparse: every round gives each node about one new neighbour, less what
 * is lost to unmatched nodes and pairs within `near` (structural_loss())
 * and to repeats of earlier rounds. Add rounds until the expected degree passes the target,
 * then keep only the fraction of the last round's pairs that brings the
 * expectation back onto the target. All in closed form: no sampling noise,
 * and microseconds instead of thousands of partner draws. */
int bal__ov_calibrate_sparse(bal__ov_rule *r) {
  int64_t rounds_cap = 2 * (int64_t)r->target + 16;
  const int max_rounds = rounds_cap < (1 << 20) ? (int)rounds_cap : (1 << 20);
  r->round_info = malloc(sizeof *r->round_info * (size_t)max_rounds);
  if (!r->round_info) {
    bal__ov_rule_free(r);
    return BAL_ENOMEM;
  }
  offset_law law[64];
  double loss[64], miss[EXACT_OFFSETS + 1]; /* P(no earlier round linked offset d) */
  for (int d = 0; d <= EXACT_OFFSETS; d++) miss[d] = 1;
  const int64_t exact = r->near > EXACT_OFFSETS ? r->near : EXACT_OFFSETS;
  int64_t seen[64] = {0}; /* earlier rounds per depth */
  for (int l = 0; l <= r->depth_max; l++) {
    law[l] = law_at(r, l);
    loss[l] = structural_loss(r, l);
  }
  double degree = 2.0 * r->near; /* expected, per node */
  r->rounds = max_rounds;
  r->last_keep = OV_P_ONE;
  for (int round = 0; round < max_rounds; round++) {
    bal__ov_round_setup(r, round, &r->round_info[round]);
    const int depth = r->round_info[round].depth;
    const offset_law *now = &law[depth];
    /* P(d) = a - b d below q, at_q at q, 0 beyond */
    const int64_t lin = now->q - 1 < EXACT_OFFSETS ? now->q - 1 : EXACT_OFFSETS;
    const int64_t top = now->q < EXACT_OFFSETS ? now->q : EXACT_OFFSETS;
    double repeats = 0;
    for (int64_t d = r->near + 1; d <= lin; d++)
      repeats += 2 * (now->a - now->b * (double)d) * (1 - miss[d]);
    if (top > lin && top > r->near) repeats += 2 * now->at_q * (1 - miss[top]);
    for (int l = 0; l <= r->depth_max; l++)
      if (seen[l]) repeats += (double)seen[l] * repeat_probability(&law[l], &law[depth], exact);
    double gain = 1.0 - loss[depth] - repeats;
    if (degree + gain >= r->target && gain > 0) {
      r->rounds = round + 1;
      r->last_keep = bal__ov_threshold((r->target - degree) / gain);
      break;
    }
    degree += gain;
    seen[depth]++;
    for (int64_t d = r->near + 1; d <= lin; d++) miss[d] *= 1 - (now->a - now->b * (double)d);
    if (top > lin && top > r->near) miss[top] *= 1 - now->at_q;
  }
  r->max_degree = 2 * r->near + r->rounds;
  return BAL_OK;
}
