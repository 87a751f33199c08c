/* Distributed work stealing over MPI on the small-world overlay.
 *
 * One progress loop per rank (progress_once) does all communication: it
 * answers steal requests from the front of the task queue, sends a steal
 * request when the queue runs dry, routes finished results toward their
 * owners (buffered per next hop) and drives termination. Tasks run either
 * on a worker thread (THREAD mode) or between polls on the same thread
 * (POLL mode), always from the back of the queue (work-first).
 *
 * Termination, in two non-blocking barriers (a tree barrier over
 * point-to-point messages, see transport.c):
 *  1. a rank enters barrier 1 once the results of all its own tasks are
 *     home. It keeps stealing, running and forwarding afterwards: tasks it
 *     still receives belong to owners that have not entered yet. Since
 *     tasks cannot create tasks, barrier 1 completes only when every result
 *     of the run is at its owner, hence no task and no result remains.
 *  2. steal requests may still be in flight then. Each rank stops asking,
 *     waits for the reply to its own outstanding request (answering others'
 *     requests with empty replies) and enters barrier 2; when it completes
 *     every request has been answered, so no message is in flight and the
 *     remaining sends can be completed with MPI_Wait. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ballast/overlay.h>
#include <ballast/steal.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/rng.h"
#include "transport.h"

enum { TAG_REQ = 1, TAG_TASKS = 2, TAG_RESULTS = 3 };

/* Largest steal reply we build (at least one task is always sent). */
#define STEAL_MAX_BYTES ((size_t)64 << 20)
/* Largest result batch (the MPI count is an int). */
#define ROUTE_MAX_BYTES ((size_t)INT_MAX - 4096)

typedef struct task {
  int owner;
  int own_data; /* data was malloc'd here (stolen task) */
  long long idx;
  size_t len;
  unsigned char *data;
} task;

typedef struct result {
  int owner;
  int status;
  long long idx;
  size_t len;
  unsigned char *data;
} result;

/* Wire header of one task or one result (homogeneous machines assumed). */
typedef struct wire_hdr {
  int32_t owner;
  int32_t status;
  int64_t idx;
  uint64_t len;
} wire_hdr;

typedef struct route_buf {
  unsigned char *buf;
  size_t len, cap;
  int64_t t_first;
  long long n;
} route_buf;

struct bal_steal {
  bal_steal_config cfg;
  bal_steal_progress mode; /* THREAD or POLL after AUTO is resolved */
  MPI_Comm comm;
  int rank, size;
  bal__tp tp;
  bal_overlay *ov;
  int ov_degree;
  int *next_hop; /* cached per destination, -1 unknown */
  bal__rng rng;

  /* own tasks of the current phase */
  unsigned char **own_in;
  size_t *own_len;
  long long own_n, own_cap;
  bool ran; /* a run finished: the next add_task starts a new phase */
  bool running;
  bool in_task;

  /* own results */
  unsigned char **res_data;
  size_t *res_len;
  int *res_status;
  unsigned char *res_have;
  long long own_home;

  /* queue shared with the worker: front = [qhead], back = [qtail-1] */
  pthread_mutex_t mu;
  pthread_cond_t work_cv, prog_cv;
  task *q;
  size_t qhead, qtail, qcap;
  result *done; /* finished by the worker, not yet handled */
  size_t ndone, capdone;
  bool worker_busy, stop;
  int err; /* first error seen by the worker */

  /* run state (progress thread only) */
  bal_steal_fn fn;
  size_t max_out;
  void *arg;
  unsigned char *scratch;
  int phase; /* 0 working, 1 barrier 1 posted, 2 draining, 3 barrier 2 posted, 4 done */
  bool outstanding;
  int victim;
  int64_t t_req, next_steal, backoff, t0;
  route_buf *rb;
  int *active; /* destinations with a non-empty route buffer */
  int nactive;
  bal_steal_stats st;
};

static double secs(const bal_steal *s, int64_t t) { return (double)(t - s->t0) * 1e-9; }

const char *bal_steal_policy_name(bal_steal_policy policy) {
  switch (policy) {
  case BAL_STEAL_SMALLWORLD: return "smallworld";
  case BAL_STEAL_RANDOM: return "random";
  case BAL_STEAL_NONE: return "none";
  }
  return NULL;
}

int bal_steal_policy_parse(const char *name, bal_steal_policy *out) {
  if (!name || !out) return BAL_EINVAL;
  for (int p = BAL_STEAL_SMALLWORLD; p <= BAL_STEAL_NONE; p++)
    if (!strcmp(name, bal_steal_policy_name((bal_steal_policy)p))) {
      *out = (bal_steal_policy)p;
      return BAL_OK;
    }
  return BAL_EINVAL;
}

int bal_steal_config_init(bal_steal_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->policy = BAL_STEAL_SMALLWORLD;
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
  return BAL_OK;
}

static bool nonneg_finite(double x) { return isfinite(x) && x >= 0.0; }

static bool config_valid(const bal_steal_config *c) {
  return (c->policy == BAL_STEAL_SMALLWORLD || c->policy == BAL_STEAL_RANDOM ||
          c->policy == BAL_STEAL_NONE) &&
         (c->progress == BAL_STEAL_PROGRESS_AUTO || c->progress == BAL_STEAL_PROGRESS_THREAD ||
          c->progress == BAL_STEAL_PROGRESS_POLL) &&
         (c->overlay_degree == 0 || c->overlay_degree >= 2) && isfinite(c->overlay_exponent) &&
         isfinite(c->steal_fraction) && c->steal_fraction > 0.0 && c->steal_fraction <= 1.0 &&
         c->route_buffer_bytes >= 1 && nonneg_finite(c->route_flush_s) &&
         c->route_flush_s <= 3600.0 && nonneg_finite(c->poll_interval_s) &&
         c->poll_interval_s <= 1.0 && nonneg_finite(c->backoff_max_s) && c->backoff_max_s <= 60.0;
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
  if (mode == BAL_STEAL_PROGRESS_THREAD && !thread_ok) return BAL_EINVAL;

  bal_steal *s = calloc(1, sizeof *s);
  if (!s) return BAL_ENOMEM;
  s->cfg = c;
  s->mode = mode;
  if (MPI_Comm_dup(comm, &s->comm) != MPI_SUCCESS) {
    free(s);
    return BAL_EMPI;
  }
  int rc = bal__tp_init(&s->tp, s->comm);
  if (rc != BAL_OK) goto fail;
  s->rank = s->tp.rank;
  s->size = s->tp.size;
  rc = BAL_ENOMEM;
  s->next_hop = malloc((size_t)s->size * sizeof *s->next_hop);
  s->rb = calloc((size_t)s->size, sizeof *s->rb);
  s->active = malloc((size_t)s->size * sizeof *s->active);
  if (!s->next_hop || !s->rb || !s->active) goto fail;
  for (int r = 0; r < s->size; r++) s->next_hop[r] = r;
  if (c.policy == BAL_STEAL_SMALLWORLD && s->size > 1) {
    int deg = c.overlay_degree ? c.overlay_degree : default_degree(s->size);
    rc = bal_overlay_create_local(s->size, deg, c.overlay_exponent, c.overlay_seed, s->rank, &s->ov);
    if (rc != BAL_OK) goto fail;
    const int64_t *nb;
    if (bal_overlay_neighbors(s->ov, s->rank, &nb, &s->ov_degree) != BAL_OK) {
      rc = BAL_ENOMEM;
      goto fail;
    }
    for (int r = 0; r < s->size; r++) s->next_hop[r] = -1;
    s->next_hop[s->rank] = s->rank;
  }
  bal__rng_seed(&s->rng, c.seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(s->rank + 1)));
  if (pthread_mutex_init(&s->mu, NULL) != 0) {
    rc = BAL_ESYS;
    goto fail;
  }
  pthread_cond_init(&s->work_cv, NULL);
  pthread_cond_init(&s->prog_cv, NULL);
  *out = s;
  return BAL_OK;
fail:
  bal_overlay_destroy(s->ov);
  bal__tp_free(&s->tp);
  free(s->next_hop);
  free(s->rb);
  free(s->active);
  MPI_Comm_free(&s->comm);
  free(s);
  return rc;
}

static void free_results(bal_steal *s) {
  for (long long i = 0; i < s->own_n; i++) {
    if (s->res_data) free(s->res_data[i]);
  }
  free(s->res_data);
  free(s->res_len);
  free(s->res_status);
  free(s->res_have);
  s->res_data = NULL;
  s->res_len = NULL;
  s->res_status = NULL;
  s->res_have = NULL;
}

/* Release the previous phase's tasks and results. */
static void new_phase(bal_steal *s) {
  free_results(s);
  for (long long i = 0; i < s->own_n; i++) free(s->own_in[i]);
  s->own_n = 0;
  s->ran = false;
}

int bal_steal_add_task(bal_steal *s, const void *input, size_t len, long long *id) {
  if (!s || (!input && len > 0) || len >= (size_t)INT_MAX - 64) return BAL_EINVAL;
  if (s->running) return BAL_EBUSY;
  if (s->ran) new_phase(s);
  if (s->own_n == s->own_cap) {
    long long cap = s->own_cap ? 2 * s->own_cap : 64;
    unsigned char **ni = realloc(s->own_in, (size_t)cap * sizeof *ni);
    if (!ni) return BAL_ENOMEM;
    s->own_in = ni;
    size_t *nl = realloc(s->own_len, (size_t)cap * sizeof *nl);
    if (!nl) return BAL_ENOMEM;
    s->own_len = nl;
    s->own_cap = cap;
  }
  unsigned char *copy = NULL;
  if (len > 0) {
    if (!(copy = malloc(len))) return BAL_ENOMEM;
    memcpy(copy, input, len);
  }
  s->own_in[s->own_n] = copy;
  s->own_len[s->own_n] = len;
  if (id) *id = s->own_n;
  s->own_n++;
  return BAL_OK;
}

/* ---- queue (callers hold s->mu) ---- */

static int q_reserve(bal_steal *s, size_t extra) {
  if (s->qhead > 0 && s->qtail + extra > s->qcap) {
    memmove(s->q, s->q + s->qhead, (s->qtail - s->qhead) * sizeof *s->q);
    s->qtail -= s->qhead;
    s->qhead = 0;
  }
  if (s->qtail + extra <= s->qcap) return BAL_OK;
  size_t cap = s->qcap ? s->qcap : 64;
  while (cap < s->qtail + extra) cap *= 2;
  task *n = realloc(s->q, cap * sizeof *n);
  if (!n) return BAL_ENOMEM;
  s->q = n;
  s->qcap = cap;
  return BAL_OK;
}

static size_t q_size(const bal_steal *s) { return s->qtail - s->qhead; }

/* ---- results ---- */

static void store_own(bal_steal *s, int status, long long idx, size_t len, unsigned char *data) {
  if (idx < 0 || idx >= s->own_n || s->res_have[idx]) {
    bal__log(BAL_LOG_ERROR, "steal", "rank %d: unexpected result for task %lld", s->rank, idx);
    free(data);
    return;
  }
  s->res_have[idx] = 1;
  s->res_status[idx] = status;
  s->res_len[idx] = len;
  s->res_data[idx] = data;
  s->own_home++;
  if (status != 0) s->st.failed++;
}

static int hop_of(bal_steal *s, int owner) {
  if (s->next_hop[owner] < 0) {
    int64_t h = bal_overlay_next_hop(s->ov, s->rank, owner);
    if (h < 0) return (int)h;
    s->next_hop[owner] = (int)h;
  }
  return s->next_hop[owner];
}

static int route_flush(bal_steal *s, int dest) {
  route_buf *b = &s->rb[dest];
  if (b->len == 0) return BAL_OK;
  unsigned char *buf = b->buf;
  size_t len = b->len;
  s->st.results_routed += b->n;
  s->st.route_messages++;
  b->buf = NULL;
  b->len = b->cap = 0;
  b->n = 0;
  for (int i = 0; i < s->nactive; i++)
    if (s->active[i] == dest) {
      s->active[i] = s->active[--s->nactive];
      break;
    }
  if (s->cfg.trace) {
    double t = secs(s, bal__now_ns());
    s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_ROUTE, t, t, dest);
  }
  return bal__tp_send_msg(&s->tp, dest, TAG_RESULTS, buf, len);
}

/* Append a result for another rank to the buffer of its next hop; takes data. */
static int route_append(bal_steal *s, int owner, int status, long long idx, size_t len,
                        unsigned char *data) {
  int dest = hop_of(s, owner);
  if (dest < 0) {
    free(data);
    return dest;
  }
  route_buf *b = &s->rb[dest];
  size_t need = sizeof(wire_hdr) + len;
  if (b->len > 0 && b->len + need > ROUTE_MAX_BYTES) {
    int rc = route_flush(s, dest);
    if (rc != BAL_OK) {
      free(data);
      return rc;
    }
  }
  if (b->len + need > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + need) cap *= 2;
    unsigned char *n = realloc(b->buf, cap);
    if (!n) {
      free(data);
      return BAL_ENOMEM;
    }
    b->buf = n;
    b->cap = cap;
  }
  if (b->len == 0) {
    b->t_first = bal__now_ns();
    s->active[s->nactive++] = dest;
  }
  wire_hdr h = {owner, status, idx, len};
  memcpy(b->buf + b->len, &h, sizeof h);
  if (len) memcpy(b->buf + b->len + sizeof h, data, len);
  b->len += need;
  b->n++;
  free(data);
  return BAL_OK;
}

static int deliver(bal_steal *s, int owner, int status, long long idx, size_t len,
                   unsigned char *data) {
  if (owner == s->rank) {
    store_own(s, status, idx, len, data);
    return BAL_OK;
  }
  return route_append(s, owner, status, idx, len, data);
}

/* ---- executing one task (worker thread or polling thread) ---- */

static void run_task(bal_steal *s, task *t) {
  size_t out_len = 0;
  int64_t a = bal__now_ns();
  bool poll = s->mode == BAL_STEAL_PROGRESS_POLL;
  if (poll) s->in_task = true;
  int status = s->fn(t->len ? t->data : NULL, t->len, s->scratch, s->max_out, &out_len, s->arg);
  if (poll) s->in_task = false;
  int64_t b = bal__now_ns();
  if (status == 0 && out_len > s->max_out) status = BAL_ERANGE;
  if (status != 0) out_len = 0;
  unsigned char *copy = NULL;
  if (out_len > 0 && (copy = malloc(out_len)) != NULL) memcpy(copy, s->scratch, out_len);
  if (out_len > 0 && !copy) {
    status = BAL_ENOMEM;
    out_len = 0;
  }
  if (t->own_data) free(t->data);
  if (s->cfg.trace) s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_WORK, secs(s, a), secs(s, b), t->owner);
  pthread_mutex_lock(&s->mu);
  s->st.work_s += (double)(b - a) * 1e-9;
  if (t->owner == s->rank)
    s->st.executed_own++;
  else
    s->st.executed_stolen++;
  if (s->ndone == s->capdone) {
    size_t cap = s->capdone ? 2 * s->capdone : 64;
    result *n = realloc(s->done, cap * sizeof *n);
    if (!n) {
      /* Cannot queue the result: record the failure; the run would not
       * terminate without it, so report it as the run's error. */
      s->err = BAL_ENOMEM;
      free(copy);
      pthread_mutex_unlock(&s->mu);
      return;
    }
    s->done = n;
    s->capdone = cap;
  }
  s->done[s->ndone++] = (result){t->owner, status, t->idx, out_len, copy};
  s->worker_busy = false;
  pthread_cond_signal(&s->prog_cv);
  pthread_mutex_unlock(&s->mu);
}

/* Pop from the back for local execution; returns false if empty. */
static bool pop_back(bal_steal *s, task *t) {
  if (s->qtail == s->qhead) return false;
  *t = s->q[--s->qtail];
  s->worker_busy = true;
  return true;
}

static void *worker_main(void *arg) {
  bal_steal *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    task t;
    if (pop_back(s, &t)) {
      pthread_mutex_unlock(&s->mu);
      run_task(s, &t);
      pthread_mutex_lock(&s->mu);
      continue;
    }
    if (s->stop) break;
    int64_t a = bal__now_ns();
    pthread_cond_wait(&s->work_cv, &s->mu);
    int64_t b = bal__now_ns();
    s->st.idle_s += (double)(b - a) * 1e-9;
    if (s->cfg.trace && !s->stop) s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_IDLE, secs(s, a), secs(s, b), -1);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* ---- messages ---- */

static int handle_request(bal_steal *s, int src) {
  pthread_mutex_lock(&s->mu);
  size_t n = q_size(s);
  size_t k = 0;
  if (s->phase < 2 && s->cfg.policy != BAL_STEAL_NONE) {
    k = (size_t)((double)n * s->cfg.steal_fraction);
    if (k == 0 && n >= 2) k = 1;
  }
  size_t bytes = sizeof(uint64_t), take = 0;
  while (take < k) {
    size_t add = sizeof(wire_hdr) + s->q[s->qhead + take].len;
    if (take > 0 && bytes + add > STEAL_MAX_BYTES) break;
    bytes += add;
    take++;
  }
  unsigned char *buf = malloc(bytes);
  if (!buf) {
    take = 0;
    bytes = sizeof(uint64_t);
    buf = malloc(bytes);
    if (!buf) {
      pthread_mutex_unlock(&s->mu);
      return BAL_ENOMEM;
    }
  }
  uint64_t cnt = take;
  memcpy(buf, &cnt, sizeof cnt);
  size_t off = sizeof cnt;
  for (size_t i = 0; i < take; i++) {
    task *t = &s->q[s->qhead + i];
    wire_hdr h = {t->owner, 0, t->idx, t->len};
    memcpy(buf + off, &h, sizeof h);
    off += sizeof h;
    if (t->len) memcpy(buf + off, t->data, t->len);
    off += t->len;
    if (t->own_data) free(t->data);
  }
  s->qhead += take;
  s->st.tasks_given += (long long)take;
  pthread_mutex_unlock(&s->mu);
  return bal__tp_send_msg(&s->tp, src, TAG_TASKS, buf, bytes);
}

static int handle_tasks(bal_steal *s, int src, const unsigned char *buf, size_t len) {
  uint64_t cnt = 0;
  if (len < sizeof cnt) return BAL_EMPI;
  memcpy(&cnt, buf, sizeof cnt);
  int64_t now = bal__now_ns();
  s->outstanding = false;
  if (s->cfg.trace) s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_STEAL, secs(s, s->t_req), secs(s, now), src);
  if (cnt == 0) {
    int64_t cap = (int64_t)(s->cfg.backoff_max_s * 1e9);
    s->backoff = s->backoff ? s->backoff * 2 : (int64_t)(s->cfg.poll_interval_s * 1e9) + 1000;
    if (s->backoff > cap) s->backoff = cap;
    s->next_steal = now + s->backoff;
    return BAL_OK;
  }
  s->backoff = 0;
  s->next_steal = now;
  s->st.thefts++;
  pthread_mutex_lock(&s->mu);
  int rc = q_reserve(s, (size_t)cnt);
  size_t off = sizeof cnt;
  for (uint64_t i = 0; rc == BAL_OK && i < cnt; i++) {
    wire_hdr h;
    if (off + sizeof h > len) {
      rc = BAL_EMPI;
      break;
    }
    memcpy(&h, buf + off, sizeof h);
    off += sizeof h;
    if (h.len > len - off) {
      rc = BAL_EMPI;
      break;
    }
    task t = {h.owner, 1, h.idx, (size_t)h.len, NULL};
    if (t.len && !(t.data = malloc(t.len))) {
      rc = BAL_ENOMEM;
      break;
    }
    if (t.len) memcpy(t.data, buf + off, t.len);
    off += t.len;
    /* Stolen tasks go to the back too: they are this rank's work now,
     * and their front end is what its own thieves will take. */
    s->q[s->qtail++] = t;
  }
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  return rc;
}

static int handle_results(bal_steal *s, unsigned char *buf, size_t len) {
  size_t off = 0;
  while (off < len) {
    wire_hdr h;
    if (off + sizeof h > len) return BAL_EMPI;
    memcpy(&h, buf + off, sizeof h);
    off += sizeof h;
    if (h.len > len - off || h.owner < 0 || h.owner >= s->size) return BAL_EMPI;
    unsigned char *d = NULL;
    if (h.len) {
      if (!(d = malloc(h.len))) return BAL_ENOMEM;
      memcpy(d, buf + off, h.len);
    }
    off += h.len;
    int rc = deliver(s, h.owner, h.status, h.idx, (size_t)h.len, d);
    if (rc != BAL_OK) return rc;
  }
  return BAL_OK;
}

static int pick_victim(bal_steal *s) {
  if (s->cfg.policy == BAL_STEAL_SMALLWORLD) {
    int64_t v = -1;
    uint64_t st = bal__rng_next(&s->rng);
    if (bal_overlay_victim_uniform(s->ov, s->rank, &st, &v) != BAL_OK) return -1;
    return (int)v;
  }
  int v = (int)bal__rng_below(&s->rng, (uint64_t)(s->size - 1));
  return v >= s->rank ? v + 1 : v;
}

/* One round of communication; returns >0 if anything happened, 0 if idle,
 * or a negative error. */
static int progress_once(bal_steal *s) {
  int act = 0, rc;
  for (int m = 0; m < 64; m++) {
    int src, tag;
    void *buf;
    size_t len;
    rc = bal__tp_recv_msg(&s->tp, &src, &tag, &buf, &len);
    if (rc < 0) return rc;
    if (rc == 0) break;
    act = 1;
    if (tag == TAG_REQ)
      rc = handle_request(s, src);
    else if (tag == TAG_TASKS)
      rc = handle_tasks(s, src, buf, len);
    else if (tag == TAG_RESULTS)
      rc = handle_results(s, buf, len);
    else
      rc = BAL_EMPI;
    free(buf);
    if (rc != BAL_OK) return rc;
  }

  pthread_mutex_lock(&s->mu);
  result *done = s->done;
  size_t ndone = s->ndone;
  int werr = s->err;
  s->done = NULL;
  s->ndone = s->capdone = 0;
  bool empty = q_size(s) == 0;
  bool idle = empty && !s->worker_busy;
  pthread_mutex_unlock(&s->mu);
  if (werr) {
    for (size_t i = 0; i < ndone; i++) free(done[i].data);
    free(done);
    return werr;
  }
  rc = BAL_OK;
  for (size_t i = 0; i < ndone; i++) {
    if (rc == BAL_OK)
      rc = deliver(s, done[i].owner, done[i].status, done[i].idx, done[i].len, done[i].data);
    else
      free(done[i].data);
  }
  free(done);
  if (rc != BAL_OK) return rc;
  if (ndone) act = 1;

  int64_t now = bal__now_ns();
  if (s->phase < 2 && empty && !s->outstanding && s->cfg.policy != BAL_STEAL_NONE &&
      s->size > 1 && now >= s->next_steal) {
    int v = pick_victim(s);
    if (v >= 0) {
      rc = bal__tp_send_msg(&s->tp, v, TAG_REQ, NULL, 0);
      if (rc != BAL_OK) return rc;
      s->outstanding = true;
      s->victim = v;
      s->t_req = now;
      s->st.steal_attempts++;
      act = 1;
    }
  }

  int64_t flush_ns = (int64_t)(s->cfg.route_flush_s * 1e9);
  for (int i = s->nactive - 1; i >= 0; i--) {
    if (i >= s->nactive) continue;
    int d = s->active[i];
    route_buf *b = &s->rb[d];
    if (idle || b->len >= s->cfg.route_buffer_bytes || now - b->t_first >= flush_ns) {
      rc = route_flush(s, d);
      if (rc != BAL_OK) return rc;
      act = 1;
    }
  }
  rc = bal__tp_progress(&s->tp);
  if (rc != BAL_OK) return rc;

  int done_flag = 0;
  switch (s->phase) {
  case 0:
    if (s->own_home == s->own_n) {
      if ((rc = bal__tp_barrier_start(&s->tp)) != BAL_OK) return rc;
      s->phase = 1;
      act = 1;
    }
    break;
  case 1:
    if ((rc = bal__tp_barrier_test(&s->tp, &done_flag)) != BAL_OK) return rc;
    if (done_flag) {
      s->phase = 2;
      pthread_mutex_lock(&s->mu);
      s->stop = true;
      pthread_cond_signal(&s->work_cv);
      pthread_mutex_unlock(&s->mu);
      act = 1;
    }
    break;
  case 2:
    if (!s->outstanding) {
      if ((rc = bal__tp_barrier_start(&s->tp)) != BAL_OK) return rc;
      s->phase = 3;
      act = 1;
    }
    break;
  case 3:
    if ((rc = bal__tp_barrier_test(&s->tp, &done_flag)) != BAL_OK) return rc;
    if (done_flag) {
      s->phase = 4;
      act = 1;
    }
    break;
  default: break;
  }
  return act;
}

int bal_steal_poll(bal_steal *s) {
  if (!s) return BAL_EINVAL;
  if (s->mode != BAL_STEAL_PROGRESS_POLL || !s->in_task) return BAL_ENOTSUP;
  s->in_task = false; /* a task function calling bal_steal_run() is refused */
  int rc = progress_once(s);
  s->in_task = true;
  return rc < 0 ? rc : BAL_OK;
}

static void sleep_s(double t) {
  if (t > 0) bal__sleep_ns((int64_t)(t * 1e9));
}

static int run_poll(bal_steal *s) {
  while (s->phase < 4) {
    int act = progress_once(s);
    if (act < 0) return act;
    pthread_mutex_lock(&s->mu);
    task t;
    bool got = pop_back(s, &t);
    pthread_mutex_unlock(&s->mu);
    if (got) {
      run_task(s, &t);
      continue;
    }
    if (!act) {
      int64_t a = bal__now_ns();
      sleep_s(s->cfg.poll_interval_s);
      if (s->phase < 2) {
        int64_t b = bal__now_ns();
        s->st.idle_s += (double)(b - a) * 1e-9;
        if (s->cfg.trace) s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_IDLE, secs(s, a), secs(s, b), -1);
      }
    }
  }
  return BAL_OK;
}

static int run_thread(bal_steal *s) {
  pthread_t th;
  if (pthread_create(&th, NULL, worker_main, s) != 0) return BAL_ESYS;
  int rc = BAL_OK;
  while (s->phase < 4) {
    int act = progress_once(s);
    if (act < 0) {
      rc = act;
      break;
    }
    if (!act) {
      pthread_mutex_lock(&s->mu);
      if (s->ndone == 0 && s->cfg.poll_interval_s > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long ns = ts.tv_nsec + (long)(s->cfg.poll_interval_s * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&s->prog_cv, &s->mu, &ts);
      }
      pthread_mutex_unlock(&s->mu);
    }
  }
  pthread_mutex_lock(&s->mu);
  s->stop = true;
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(th, NULL);
  return rc;
}

int bal_steal_run(bal_steal *s, bal_steal_fn fn, size_t max_out, void *arg) {
  if (!s || !fn || max_out >= (size_t)INT_MAX - 64) return BAL_EINVAL;
  if (s->in_task || s->running) return BAL_EBUSY;
  if (s->ran) new_phase(s);
  int rc = BAL_ENOMEM;
  long long n = s->own_n;
  size_t nn = (size_t)(n ? n : 1);
  s->res_data = calloc(nn, sizeof *s->res_data);
  s->res_len = calloc(nn, sizeof *s->res_len);
  s->res_status = calloc(nn, sizeof *s->res_status);
  s->res_have = calloc(nn, 1);
  s->scratch = malloc(max_out ? max_out : 1);
  pthread_mutex_lock(&s->mu);
  int qrc = q_reserve(s, (size_t)n);
  pthread_mutex_unlock(&s->mu);
  if (!s->res_data || !s->res_len || !s->res_status || !s->res_have || !s->scratch || qrc) {
    /* Every rank must take part in the barriers; a rank that cannot even
     * start reports the error, the others would wait: MPI_Abort is the
     * application's call, so fail before any message is sent. */
    free(s->scratch);
    s->scratch = NULL;
    free_results(s);
    return rc;
  }
  memset(&s->st, 0, sizeof s->st);
  bal__tp_reset_stats(&s->tp);
  s->st.tasks_own = n;
  s->st.overlay_degree = s->ov ? s->ov_degree : (s->cfg.policy == BAL_STEAL_RANDOM ? s->size - 1 : 0);
  /* Own tasks in order: the owner pops the back, thieves take the front. */
  for (long long i = 0; i < n; i++)
    s->q[s->qtail++] = (task){s->rank, 0, i, s->own_len[i], s->own_in[i]};
  s->fn = fn;
  s->max_out = max_out;
  s->arg = arg;
  s->own_home = 0;
  s->phase = 0;
  s->outstanding = false;
  s->backoff = 0;
  s->stop = false;
  s->worker_busy = false;
  s->err = 0;
  s->running = true;
  s->t0 = bal__now_ns();
  s->next_steal = s->t0;
  rc = s->mode == BAL_STEAL_PROGRESS_THREAD ? run_thread(s) : run_poll(s);
  if (rc == BAL_OK) rc = bal__tp_wait_sends(&s->tp);
  int64_t t1 = bal__now_ns();
  s->st.run_s = (double)(t1 - s->t0) * 1e-9;
  s->st.messages_sent = s->tp.messages;
  s->st.bytes_sent = s->tp.bytes;
  s->st.peers_contacted = s->tp.npeers;
  free(s->scratch);
  s->scratch = NULL;
  pthread_mutex_lock(&s->mu);
  for (size_t i = s->qhead; i < s->qtail; i++)
    if (s->q[i].own_data) free(s->q[i].data);
  s->qhead = s->qtail = 0;
  for (size_t i = 0; i < s->ndone; i++) free(s->done[i].data);
  s->ndone = 0;
  pthread_mutex_unlock(&s->mu);
  s->running = false;
  s->ran = true;
  return rc;
}

int bal_steal_result(const bal_steal *s, long long id, const void **data, size_t *len,
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
  new_phase(s);
  free(s->own_in);
  free(s->own_len);
  free(s->q);
  free(s->done);
  for (int r = 0; r < s->size; r++) free(s->rb[r].buf);
  free(s->rb);
  free(s->active);
  free(s->next_hop);
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
