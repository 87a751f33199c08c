/* Public API of the `steal` module: configuration checks, create and
 * destroy, tasks in and results out, phases. The balancer's layout and the
 * map of the module are in steal_internal.h. */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/overlay.h>
#include <ballast/steal.h>

#include "core/check.h"
#include "core/rng.h"
#include "sim_bulk.h"
#include "steal_internal.h"
#include "transport.h"

int bal_steal_config_init(bal_steal_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->policy = "smallworld";
  cfg->progress = BAL_STEAL_PROGRESS_AUTO;
  cfg->overlay_degree = 0;
  cfg->overlay_exponent = 0.0;
  cfg->overlay_seed = 1;
  cfg->seed = 1;
  cfg->steal_fraction = 0.5;
  cfg->route_buffer_bytes = 65536;
  cfg->route_flush_s = 0.002;
  cfg->poll_interval_s = 0.0001;
  cfg->backoff_max_s = 0.002;
  cfg->latency_bias = 1.0;
  cfg->workers = 1;
  return BAL_OK;
}

static bool config_valid(const bal_steal_config *c) {
  return bal__steal_policy_find(c->policy) != NULL && bal__finite_nonneg(c->latency_bias) &&
         c->sharing_group_size >= 0 &&
         (c->progress == BAL_STEAL_PROGRESS_AUTO || c->progress == BAL_STEAL_PROGRESS_THREAD ||
          c->progress == BAL_STEAL_PROGRESS_POLL) &&
         (c->overlay_degree == 0 || c->overlay_degree >= 2) && isfinite(c->overlay_exponent) &&
         isfinite(c->steal_fraction) && c->steal_fraction > 0.0 && c->steal_fraction <= 1.0 &&
         c->route_buffer_bytes >= 1 && c->workers >= 1 && c->workers <= BAL_STEAL_MAX_WORKERS &&
         bal__finite_nonneg(c->route_flush_s) && c->route_flush_s <= 3600.0 &&
         bal__finite_nonneg(c->poll_interval_s) &&
         c->poll_interval_s <= BAL_STEAL_MAX_POLL_INTERVAL_S &&
         bal__finite_nonneg(c->backoff_max_s) && c->backoff_max_s <= BAL_STEAL_MAX_BACKOFF_S &&
         (c->idle_wait == 0 || c->idle_wait == 1) && c->lifelines >= 0;
}

static int default_degree(int p) {
  int lg = 0;
  while ((1LL << lg) < p) lg++;
  return 2 * lg + 2;
}

int bal_steal_create(MPI_Comm comm, const bal_steal_config *cfg, bal_steal **out) {
  bal_steal_config c;
  if (!out) return BAL_EINVAL;
  if (cfg)
    c = *cfg;
  else
    bal_steal_config_init(&c);
  if (!config_valid(&c)) return BAL_EINVAL;
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (!inited || finalized || comm == MPI_COMM_NULL) return BAL_EINVAL;
  int provided = MPI_THREAD_SINGLE, is_main = 0;
  if (MPI_Query_thread(&provided) != MPI_SUCCESS || MPI_Is_thread_main(&is_main) != MPI_SUCCESS)
    return BAL_EMPI;
  bool thread_ok = provided >= MPI_THREAD_SERIALIZED || (provided == MPI_THREAD_FUNNELED && is_main);
  bal_steal_progress mode = c.progress;
  if (mode == BAL_STEAL_PROGRESS_AUTO) mode = thread_ok ? BAL_STEAL_PROGRESS_THREAD : BAL_STEAL_PROGRESS_POLL;
  /* Extra worker threads never call MPI, but they exist: MPI_THREAD_SINGLE
   * promises there is only one thread. */
  if ((mode == BAL_STEAL_PROGRESS_THREAD || c.workers > 1) && !thread_ok) return BAL_EINVAL;

  bal_steal *s = calloc(1, sizeof *s);
  if (!s) return BAL_ENOMEM;
  s->cfg = c;
  s->policy = bal__steal_policy_find(c.policy);
  s->cfg.policy = s->policy->name; /* the caller's string may not outlive this call */
  s->mode = mode;
  if (MPI_Comm_dup(comm, &s->comm) != MPI_SUCCESS) {
    free(s);
    return BAL_EMPI;
  }
  /* Errors on the balancer's own communicator come back as codes (BAL_EMPI)
   * instead of aborting the job under the default MPI_ERRORS_ARE_FATAL. */
  int rc = BAL_EMPI;
  if (MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS) goto fail;
  rc = bal__tp_init(&s->tp, s->comm);
  if (rc != BAL_OK) goto fail;
  /* idle_wait changes the wire (long messages after a header): a rank
   * without it would send a blocked one more than its buffer holds. */
  int iw[2] = {c.idle_wait, -c.idle_wait}, all[2];
  rc = BAL_EMPI;
  if (MPI_Allreduce(iw, all, 2, MPI_INT, MPI_MAX, s->comm) != MPI_SUCCESS) goto fail;
  rc = BAL_EINVAL;
  if (all[0] != -all[1]) goto fail;
  if (c.idle_wait) s->tp.split_above = BAL__STEAL_WAIT_BYTES;
  s->rank = s->tp.rank;
  s->size = s->tp.size;
  rc = BAL_ENOMEM;
  /* Nothing here is O(size): under SMPI thousands of ranks share one
   * process (rankmap.h). */
  if (s->policy->needs_overlay && s->size > 1) {
    int deg = c.overlay_degree ? c.overlay_degree : default_degree(s->size);
    rc = bal_overlay_create_local(s->size, deg, c.overlay_exponent, c.overlay_seed, s->rank, &s->ov);
    if (rc != BAL_OK) goto fail;
    const int64_t *nb;
    if (bal_overlay_neighbors(s->ov, s->rank, &nb, &s->ov_degree) != BAL_OK) {
      rc = BAL_ENOMEM;
      goto fail;
    }
  }
  bal__rng_seed(&s->rng, c.seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(s->rank + 1)));
  if (s->policy->init && (rc = s->policy->init(s, &s->policy_state)) != BAL_OK) goto fail;
  rc = BAL_ESYS;
  if (pthread_mutex_init(&s->mu, NULL) != 0) goto fail;
  pthread_cond_init(&s->work_cv, NULL);
  pthread_cond_init(&s->prog_cv, NULL);
  *out = s;
  return BAL_OK;
fail:
  free(s->policy_state);
  bal_overlay_destroy(s->ov);
  bal__tp_free(&s->tp);
  MPI_Comm_free(&s->comm);
  free(s);
  return rc;
}

void bal__steal_free_results(bal_steal *s) {
  for (int64_t i = 0; s->res_data && i < s->own_n; i++) free(s->res_data[i]);
  free(s->res_data);
  free(s->res_len);
  free(s->res_status);
  free(s->res_have);
  s->res_data = NULL;
  s->res_len = NULL;
  s->res_status = NULL;
  s->res_have = NULL;
}

void bal__steal_new_phase(bal_steal *s) {
  bal__steal_free_results(s);
  for (int64_t i = 0; i < s->own_n; i++) free(s->own_in[i]);
  s->own_n = 0;
  s->has_estimate = false;
  s->ran = false;
}

int bal_steal_add_task(bal_steal *s, const void *input, size_t len, int64_t *id) {
  if (!s || (!input && len > 0) || len >= (size_t)INT_MAX - 64) return BAL_EINVAL;
  if (s->running) return BAL_EBUSY;
  /* Everything that can fail comes first, so that on error the previous
   * run's results are still there (a new phase only starts on success). */
  int64_t n = s->ran ? 0 : s->own_n; /* tasks before this one */
  if (n == s->own_cap) {
    int64_t cap = s->own_cap ? 2 * s->own_cap : 64;
    unsigned char **ni = realloc(s->own_in, (size_t)cap * sizeof *ni);
    if (!ni) return BAL_ENOMEM;
    s->own_in = ni;
    size_t *nl = realloc(s->own_len, (size_t)cap * sizeof *nl);
    if (!nl) return BAL_ENOMEM;
    s->own_len = nl;
    s->own_cap = cap;
  }
  unsigned char *copy = NULL;
  size_t kept = bal__steal_stored_len(len);
  if (kept > 0) {
    if (!(copy = malloc(kept))) return BAL_ENOMEM;
    memcpy(copy, input, kept);
  }
  if (s->ran) bal__steal_new_phase(s);
  s->own_in[s->own_n] = copy;
  s->own_len[s->own_n] = len;
  if (id) *id = s->own_n;
  s->own_n++;
  return BAL_OK;
}

int bal_steal_set_estimate(bal_steal *s, double work) {
  if (!s || !isfinite(work) || work < 0) return BAL_EINVAL;
  if (s->running) return BAL_EBUSY;
  if (s->ran) bal__steal_new_phase(s);
  s->estimate = work;
  s->has_estimate = true;
  return BAL_OK;
}

int bal_steal_result(const bal_steal *s, int64_t id, const void **data, size_t *len,
                     int *status) {
  if (!s) return BAL_EINVAL;
  if (s->running) return BAL_EBUSY;
  if (!s->ran || id < 0 || id >= s->own_n || !s->res_have || !s->res_have[id]) return BAL_EINVAL;
  if (data) *data = s->res_data[id];
  if (len) *len = s->res_len[id];
  if (status) *status = s->res_status[id];
  return BAL_OK;
}

int bal_steal_stats_get(const bal_steal *s, bal_steal_stats *out) {
  if (!s || !out) return BAL_EINVAL;
  *out = s->st;
  return BAL_OK;
}

void bal_steal_destroy(bal_steal *s) {
  if (!s) return;
  bal__steal_new_phase(s);
  free(s->own_in);
  free(s->own_len);
  free(s->q);
  free(s->done);
  for (int i = 0; i < s->nrb; i++) free(s->rb[i].buf);
  free(s->rb);
  free(s->active);
  bal__steal_rankmap_free(&s->rb_of);
  bal__steal_rankmap_free(&s->next_hop);
  bal__steal_cb_clear(s);
  free(s->cbq);
  bal__steal_ll_end(s);
  if (s->policy->end) s->policy->end(s);
  free(s->policy_state);
  bal_overlay_destroy(s->ov);
  bal__tp_free(&s->tp);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->work_cv);
  pthread_cond_destroy(&s->prog_cv);
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) MPI_Comm_free(&s->comm);
  free(s);
}
