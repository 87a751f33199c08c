/* "biased": an overlay neighbour drawn with probability proportional to
 * latency^-latency_bias (bal_overlay_victim_biased()), so near neighbours
 * are asked more often while far ones keep a chance.
 *
 * The latencies are the thief's own measurements, at no extra message: the
 * round-trip time of each steal request, from sending it to receiving the
 * reply, smoothed per neighbour (new = 3/4 old + 1/4 sample, as TCP smooths
 * its round-trip estimate, a little faster). It includes the victim's
 * delay in answering (in POLL mode, until its task yields), which a thief
 * pays as much as the wire's. A neighbour not asked yet counts as the
 * lowest latency measured so far (1 before any), so it is tried rather
 * than starved. Measurements live as long as the balancer: the next run
 * starts from them. */
#include <stdlib.h>

#include <ballast/overlay.h>

#include "core/rng.h"
#include "steal_internal.h"

typedef struct biased {
  int deg;
  const int64_t *nb; /* the overlay's neighbour list of this rank */
  double *rtt;       /* smoothed round trip per neighbour (ns), 0 if none yet */
  double *lat;       /* the latencies handed to the overlay (scratch) */
} biased;

static int init(bal_steal *s, void **state) {
  *state = NULL;
  if (!s->ov) return BAL_OK; /* one rank: no neighbour, no steal */
  const int64_t *nb;
  int deg;
  int rc = bal_overlay_neighbors(s->ov, s->rank, &nb, &deg);
  if (rc != BAL_OK) return rc;
  biased *b = calloc(1, sizeof *b + 2 * (size_t)deg * sizeof(double));
  if (!b) return BAL_ENOMEM;
  b->deg = deg;
  b->nb = nb;
  b->rtt = (double *)(b + 1);
  b->lat = b->rtt + deg;
  *state = b;
  return BAL_OK;
}

static int pick(bal_steal *s) {
  biased *b = s->policy_state;
  double lowest = 0;
  for (int i = 0; i < b->deg; i++)
    if (b->rtt[i] > 0 && (lowest == 0 || b->rtt[i] < lowest)) lowest = b->rtt[i];
  if (lowest == 0) lowest = 1;
  for (int i = 0; i < b->deg; i++) b->lat[i] = b->rtt[i] > 0 ? b->rtt[i] : lowest;
  int64_t v = -1;
  uint64_t st = bal__rng_next(&s->rng);
  int rc = bal_overlay_victim_biased(s->ov, s->rank, b->lat, s->cfg.latency_bias, &st, &v);
  return rc != BAL_OK ? rc : (int)v;
}

static void replied(bal_steal *s, int victim, int64_t t_req, int64_t now) {
  biased *b = s->policy_state;
  double sample = now > t_req ? (double)(now - t_req) : 1.0;
  for (int i = 0; b && i < b->deg; i++)
    if (b->nb[i] == victim) {
      b->rtt[i] = b->rtt[i] > 0 ? 0.75 * b->rtt[i] + 0.25 * sample : sample;
      return;
    }
}

const bal__steal_policy bal__steal_policy_biased = {.name = "biased",
                                                    .needs_overlay = true,
                                                    .steals = true,
                                                    .init = init,
                                                    .pick = pick,
                                                    .replied = replied};
