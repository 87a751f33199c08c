/* The process side: attach, poll at malleability points, detach. The poll
 * is on the application's hot path, so when nothing changed it is two
 * acquire loads, of the slot's gen and of the registry's lend count
 * (guarded: guard.c), compared with the last ones seen; the lock is taken
 * only when one moved (a manager or the rule changed the mask, the slot
 * was released, or some process lent CPUs: lend.c). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/decimal.h"
#include "core/log.h"
#include "node_internal.h"

int bal_node_attach_config_init(bal_node_attach_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->job = -1;
  cfg->ranks = 1;
  return BAL_OK;
}

/* The job id: configured, else $SLURM_JOB_ID (a strict decimal >= 0, as
 * SLURM writes it), else the pid. */
static int job_id(const bal_node_attach_config *cfg, pid_t pid, int64_t *job) {
  if (cfg->job >= 0) {
    *job = cfg->job;
    return BAL_OK;
  }
  const char *env = getenv("SLURM_JOB_ID");
  if (!env) {
    *job = pid;
    return BAL_OK;
  }
  if (!bal__decimal(env, 0, INT64_MAX, job)) {
    bal__log(BAL_LOG_ERROR, "node", "SLURM_JOB_ID='%s': expected a decimal job id >= 0 (no "
                                    "sign, spaces or leading zeros), or unset", env);
    return BAL_EINVAL;
  }
  return BAL_OK;
}

/* The CPUs a process attaching by itself claims (all must be free). */
static int claim(const bal__node_shm *s, const bal_node_attach_config *cfg, bal_node_mask *m) {
  bal_node_mask_zero(m);
  if (cfg->cpus) {
    for (int64_t c = 0; c < BAL_NODE_MAX_CPUS; c++) {
      if (!bal_node_mask_has(cfg->cpus, c)) continue;
      if (c >= s->ncpus) return BAL_EINVAL;
      if (s->holder[c] >= 0) return BAL_EBUSY;
      bal_node_mask_add(m, c, c);
    }
    return bal_node_mask_count(m) ? BAL_OK : BAL_EINVAL;
  }
  cpu_set_t aff;
  CPU_ZERO(&aff);
  if (!s->is_virtual && sched_getaffinity(0, sizeof aff, &aff) != 0) return BAL_ESYS;
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->holder[c] < 0 && (s->is_virtual || CPU_ISSET(c, &aff))) bal_node_mask_add(m, c, c);
  return bal_node_mask_count(m) ? BAL_OK : BAL_EBUSY;
}

/* Under the lock: take the admitted entry of this process or make one. */
static int enter(bal__node_shm *s, const bal_node_attach_config *cfg, bal_node_proc *p, int64_t job) {
  bal__node_clean(s);
  int32_t i = bal__node_find_pid(s, p->pid);
  if (i >= 0) {
    bal__node_slot *sl = &s->slot[i];
    if (sl->state != SLOT_ADMITTED || sl->start != p->start) return BAL_EBUSY;
    sl->state = SLOT_ATTACHED;
    atomic_fetch_add(&sl->gen, 1);
    p->slot = i;
    return BAL_OK;
  }
  bal_node_mask m;
  int rc = claim(s, cfg, &m);
  if (rc != BAL_OK) return rc;
  if ((i = bal__node_new_slot(s)) < 0) return BAL_EBUSY;
  bal__node_slot *sl = &s->slot[i];
  sl->pid = p->pid;
  sl->start = p->start;
  sl->job = job;
  sl->ranks = cfg->ranks;
  sl->state = SLOT_ATTACHED;
  for (int32_t c = 0; c < s->ncpus; c++)
    if (bal_node_mask_has(&m, c)) bal__node_move(s, c, i, -1);
  p->slot = i;
  return BAL_OK;
}

int bal_node_attach(const bal_node_attach_config *cfg, bal_node_proc **out) {
  if (!cfg || !out || cfg->job < -1 || cfg->ranks < 1 || cfg->ranks > BAL_NODE_MAX_CPUS) return BAL_EINVAL;
  bal_node_proc *p = calloc(1, sizeof *p);
  if (!p) return BAL_ENOMEM;
  p->pid = getpid();
  int64_t job;
  int rc = job_id(cfg, p->pid, &job);
  if (rc == BAL_OK) rc = bal__node_guard_init(); /* before the first poll */
  if (rc == BAL_OK && bal__node_pid_start(p->pid, &p->start) != BAL_OK) rc = BAL_ESYS;
  if (rc == BAL_OK) rc = bal__node_open(cfg->registry, &p->map);
  if (rc != BAL_OK) {
    free(p);
    return rc;
  }
  bal__node_shm *s = p->map.shm;
  if ((rc = bal__node_lock(&p->map)) == BAL_OK) {
    rc = enter(s, cfg, p, job);
    bal__node_unlock(s);
  }
  if (rc != BAL_OK) {
    bal__node_close(&p->map);
    free(p);
    return rc;
  }
  *out = p;
  return BAL_OK;
}

static int apply(const bal__node_map *map, const bal_node_mask *m) {
  if (map->is_virtual || bal_node_mask_count(m) == 0) return BAL_OK;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int64_t c = 0; c < map->ncpus && c < CPU_SETSIZE; c++)
    if (bal_node_mask_has(m, c)) CPU_SET(c, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0 ? BAL_OK : BAL_ESYS;
}

int bal_node_poll(bal_node_proc *p, bal_node_mask *mask, bool *changed) {
  if (!p) return BAL_EINVAL;
  if (p->gone) {
    if (mask) bal_node_mask_zero(mask);
    if (changed) *changed = false;
    return BAL_ENOTFOUND;
  }
  bal__node_shm *s = p->map.shm;
  bal__node_slot *sl = &s->slot[p->slot];
  /* Guarded: a registry truncated under us is BAL_EFORMAT here, where a
   * plain load would raise SIGBUS (guard.c). */
  uint64_t gen, lend;
  int rc = bal__node_load_gen(&p->map, p->slot, &gen, &lend);
  if (rc != BAL_OK) return rc;
  if (gen == p->seen && lend == p->lend_seen) {
    if (mask) *mask = p->mask;
    if (changed) *changed = false;
    return BAL_OK;
  }
  rc = bal__node_lock(&p->map);
  if (rc != BAL_OK) return rc;
  if (sl->state != SLOT_ATTACHED || sl->pid != p->pid || sl->start != p->start) {
    bal__node_unlock(s);
    p->gone = true;
    bal_node_mask_zero(&p->mask);
    if (mask) bal_node_mask_zero(mask);
    if (changed) *changed = true;
    return BAL_ENOTFOUND;
  }
  /* The gen and lend count first, then borrow and read the mask: a
   * reclaim that bumps our gen after this load is seen at the next poll,
   * even if the mask below still read the CPUs as lent. A lender borrows
   * nothing; what it claimed is passed on while it lends (lend.c). */
  uint64_t g = atomic_load_explicit(&sl->gen, memory_order_acquire);
  lend = atomic_load_explicit(&s->lend_gen, memory_order_acquire);
  if (!bal__node_lending(s, p->slot)) {
    uint64_t skip = atomic_exchange_explicit(&p->skip_before, 0, memory_order_relaxed);
    if (bal__node_borrow(s, p->slot, p->skipped_below, skip) > 0) {
      p->skipped_below = skip; /* each lend is left once at most */
      lend--;                  /* CPUs left for this poll only: the next one comes back here */
    }
  }
  bal_node_mask m;
  bal__node_use_mask(s, p->slot, &m);
  atomic_store_explicit(&sl->applied, g, memory_order_release);
  bal__node_unlock(s);
  bool moved = !bal_node_mask_equal(&m, &p->mask) || p->seen == 0;
  p->mask = m;
  p->seen = g;
  p->lend_seen = lend;
  if (mask) *mask = m;
  if (changed) *changed = moved;
  return moved ? apply(&p->map, &m) : BAL_OK;
}

int bal_node_detach(bal_node_proc *p) {
  if (!p) return BAL_OK;
  int rc = BAL_OK;
  if (!p->gone) {
    bal__node_shm *s = p->map.shm;
    if ((rc = bal__node_lock(&p->map)) == BAL_OK) {
      bal__node_clean(s);
      bal__node_slot *sl = &s->slot[p->slot];
      if (sl->state == SLOT_ATTACHED && sl->pid == p->pid && sl->start == p->start)
        bal__node_release(s, p->slot);
      bal__node_unlock(s);
    }
  }
  bal__node_close(&p->map);
  free(p);
  return rc;
}

int bal_node_proc_cpus(const bal_node_proc *p, int64_t *ncpus, bool *is_virtual) {
  if (!p) return BAL_EINVAL;
  if (ncpus) *ncpus = p->map.ncpus;
  if (is_virtual) *is_virtual = p->map.is_virtual;
  return BAL_OK;
}

int bal_node_bind_thread(const bal_node_proc *p, const bal_node_mask *mask, int64_t k) {
  if (!p || !mask || k < -1) return BAL_EINVAL;
  int64_t n = bal_node_mask_count(mask);
  if (n == 0 || k >= n) return BAL_EINVAL;
  if (p->map.is_virtual) return BAL_OK;
  if (k < 0) return apply(&p->map, mask);
  for (int64_t c = 0, seen = 0; c < BAL_NODE_MAX_CPUS; c++) {
    if (!bal_node_mask_has(mask, c)) continue;
    if (seen++ < k) continue;
    if (c >= CPU_SETSIZE) return BAL_EINVAL;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)c, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? BAL_OK : BAL_ESYS;
  }
  return BAL_EINVAL;
}
