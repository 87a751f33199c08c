/* The manager side: a node manager (not the job, perhaps another user's
 * process) lists, sets, admits and removes. Every call cleans dead
 * processes first, so their CPUs are handed on before anything is decided;
 * every check is made before the first change, so a refused call changes
 * nothing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/clock.h"
#include "node_internal.h"

struct bal_node_manager {
  bal__node_map map;
};

int bal_node_manager_open(const char *name, bal_node_manager **out) {
  if (!out) return BAL_EINVAL;
  bal_node_manager *m = calloc(1, sizeof *m);
  if (!m) return BAL_ENOMEM;
  int rc = bal__node_open(name, &m->map);
  if (rc != BAL_OK) {
    free(m);
    return rc;
  }
  *out = m;
  return BAL_OK;
}

void bal_node_manager_close(bal_node_manager *m) {
  if (!m) return;
  bal__node_close(&m->map);
  free(m);
}

int bal_node_manager_info(const bal_node_manager *m, int64_t *ncpus, bool *is_virtual) {
  if (!m) return BAL_EINVAL;
  if (ncpus) *ncpus = m->map.ncpus;
  if (is_virtual) *is_virtual = m->map.is_virtual;
  return BAL_OK;
}

/* Lock and clean: the start of every manager call. */
static int begin(bal_node_manager *m) {
  int rc = bal__node_lock(&m->map);
  if (rc == BAL_OK) bal__node_clean(m->map.shm);
  return rc;
}

int bal_node_manager_list(bal_node_manager *m, bal_node_proc_info *out, int64_t cap) {
  if (!m || cap < 0 || (cap > 0 && !out)) return BAL_EINVAL;
  int rc = begin(m);
  if (rc != BAL_OK) return rc;
  const bal__node_shm *s = m->map.shm;
  int n = 0;
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++) {
    const bal__node_slot *sl = &s->slot[i];
    if (sl->state == SLOT_FREE) continue;
    if (n < cap) {
      bal_node_proc_info *o = &out[n];
      o->pid = sl->pid;
      o->job = sl->job;
      o->ranks = sl->ranks;
      o->attached = sl->state == SLOT_ATTACHED;
      o->applied = atomic_load(&sl->applied) == atomic_load(&sl->gen);
      bal__node_slot_mask(s, i, &o->mask, &o->borrowed);
    }
    n++;
  }
  bal__node_unlock(m->map.shm);
  return n;
}

int bal_node_manager_cpus(bal_node_manager *m, bal_node_cpu_info *out, int64_t cap) {
  if (!m || cap < 0 || (cap > 0 && !out)) return BAL_EINVAL;
  int rc = begin(m);
  if (rc != BAL_OK) return rc;
  const bal__node_shm *s = m->map.shm;
  bool lends[BAL_NODE_MAX_PROCS];
  bal__node_lends(s, lends);
  for (int32_t c = 0; c < s->ncpus && c < cap; c++) {
    int32_t h = s->holder[c];
    out[c].pid = h >= 0 ? s->slot[h].pid : -1;
    out[c].job = h >= 0 ? s->slot[h].job : -1;
    out[c].owner = s->lender[c];
    int32_t u = bal__node_user(s, lends, c);
    out[c].user = u >= 0 ? s->slot[u].pid : -1;
    out[c].lent = h >= 0 && lends[h];
  }
  int n = (int)s->ncpus;
  bal__node_unlock(m->map.shm);
  return n;
}

/* Under the lock: set slot i's CPUs to mask, or refuse with nothing changed. */
static int set_locked(bal__node_shm *s, int32_t i, const bal_node_mask *mask) {
  for (int32_t c = 0; c < s->ncpus; c++)
    if (bal_node_mask_has(mask, c) && s->holder[c] >= 0 && s->holder[c] != i) return BAL_EBUSY;
  for (int32_t c = 0; c < s->ncpus; c++) {
    bool want = bal_node_mask_has(mask, c);
    if (want && s->holder[c] != i) bal__node_move(s, c, i, -1);
    else if (!want && s->holder[c] == i) bal__node_move(s, c, -1, -1);
  }
  return BAL_OK;
}

/* The deadline timeout_s from now on the monotonic clock, INT64_MAX (never)
 * when it is past what int64 nanoseconds hold (about 292 years): the
 * product would overflow, and converting it is undefined. */
static int64_t deadline_ns(double timeout_s) {
  int64_t now = bal__now_ns();
  double ns = timeout_s * 1e9;
  if (ns >= (double)(INT64_MAX - now)) return INT64_MAX;
  return now + (int64_t)ns;
}

int bal_node_manager_set(bal_node_manager *m, int64_t pid, const bal_node_mask *mask, double timeout_s) {
  if (!m || !mask || !(timeout_s >= 0.0) || !isfinite(timeout_s) || bal_node_mask_count(mask) == 0)
    return BAL_EINVAL;
  bal__node_shm *s = m->map.shm;
  for (int64_t c = m->map.ncpus; c < BAL_NODE_MAX_CPUS; c++)
    if (bal_node_mask_has(mask, c)) return BAL_EINVAL;
  int rc = begin(m);
  if (rc != BAL_OK) return rc;
  int32_t i = pid > 0 && pid <= INT32_MAX ? bal__node_find_pid(s, (pid_t)pid) : -1;
  rc = i < 0 ? BAL_ENOTFOUND : set_locked(s, i, mask);
  uint64_t target = i >= 0 ? atomic_load(&s->slot[i].gen) : 0;
  bal__node_unlock(s);
  if (rc != BAL_OK || timeout_s == 0.0) return rc;
  /* Wait without the lock: the process stores `applied` when it polls. A
   * slot released meanwhile bumps gen past target but never `applied`.
   * `applied` is read with pread, not loaded: a registry truncated at any
   * moment of the wait is BAL_EFORMAT, never SIGBUS (a size check before
   * a load left a window between the two, hit under ASan in CI), and a
   * manager installs no signal handler. A grown one is caught by the
   * size check. */
  int64_t deadline = deadline_ns(timeout_s);
  for (;;) {
    uint64_t applied;
    if ((rc = bal__node_check(&m->map)) != BAL_OK) return rc;
    if ((rc = bal__node_read_u64(&m->map, &s->slot[i].applied, &applied)) != BAL_OK) return rc;
    if (applied >= target) return BAL_OK;
    if (bal__now_ns() >= deadline) return BAL_ETIMEDOUT;
    bal__sleep_ns(20000);
  }
}

/* How a new process gets its CPUs. */
typedef enum { BY_RULE, AS_SIBLING, AS_LATE_MATE } admission;

/* A new slot for pid, filled by the rule next to jobs (next_to, n_next_to),
 * as a sibling of its job's processes, or as the mate of job `guest`. */
static int admit_slot(bal_node_manager *m, int64_t pid, int64_t job, int64_t ranks,
                      const int64_t *next_to, int64_t n_next_to, admission how, int64_t guest,
                      bal_node_mask *granted) {
  uint64_t start;
  if (bal__node_pid_start((pid_t)pid, &start) != BAL_OK) return BAL_ENOTFOUND;
  bal__node_shm *s = m->map.shm;
  int rc = begin(m);
  if (rc != BAL_OK) return rc;
  int32_t g = -1;
  if (bal__node_find_pid(s, (pid_t)pid) >= 0) rc = BAL_EINVAL;
  else if ((g = bal__node_new_slot(s)) < 0) rc = BAL_EBUSY;
  if (rc == BAL_OK) {
    bal__node_slot *sl = &s->slot[g];
    sl->pid = (int32_t)pid;
    sl->start = start;
    sl->job = job;
    sl->ranks = ranks;
    sl->state = SLOT_ADMITTED;
    rc = how == AS_SIBLING     ? bal__node_admit_sibling(s, g)
         : how == AS_LATE_MATE ? bal__node_admit_mate(s, g, guest)
                               : bal__node_admit(s, g, next_to, n_next_to);
    if (rc != BAL_OK) sl->state = SLOT_FREE;
    else if (granted) bal__node_slot_mask(s, g, granted, NULL);
  }
  bal__node_unlock(s);
  return rc;
}

/* The arguments every admission takes, in the ranges node.h states. */
static bool admission_ok(const bal_node_manager *m, int64_t pid, int64_t job, int64_t ranks) {
  return m && pid > 0 && pid <= INT32_MAX && job >= 0 && ranks >= 1 && ranks <= BAL_NODE_MAX_CPUS;
}

int bal_node_manager_admit(bal_node_manager *m, int64_t pid, int64_t job, int64_t ranks,
                           const int64_t *next_to, int64_t n_next_to, bal_node_mask *granted) {
  if (!admission_ok(m, pid, job, ranks) || n_next_to < 0 || n_next_to > BAL_NODE_MAX_PROCS ||
      (n_next_to > 0 && !next_to))
    return BAL_EINVAL;
  return admit_slot(m, pid, job, ranks, next_to, n_next_to, BY_RULE, -1, granted);
}

int bal_node_manager_admit_sibling(bal_node_manager *m, int64_t pid, int64_t job, int64_t ranks,
                                   bal_node_mask *granted) {
  if (!admission_ok(m, pid, job, ranks)) return BAL_EINVAL;
  return admit_slot(m, pid, job, ranks, NULL, 0, AS_SIBLING, -1, granted);
}

int bal_node_manager_admit_mate(bal_node_manager *m, int64_t pid, int64_t job, int64_t ranks,
                                int64_t guest, bal_node_mask *granted) {
  if (!admission_ok(m, pid, job, ranks) || guest < 0 || job == guest) return BAL_EINVAL;
  return admit_slot(m, pid, job, ranks, NULL, 0, AS_LATE_MATE, guest, granted);
}

int bal_node_manager_remove(bal_node_manager *m, int64_t pid) {
  if (!m) return BAL_EINVAL;
  bal__node_shm *s = m->map.shm;
  int rc = begin(m);
  if (rc != BAL_OK) return rc;
  int32_t i = pid > 0 && pid <= INT32_MAX ? bal__node_find_pid(s, (pid_t)pid) : -1;
  if (i < 0) rc = BAL_ENOTFOUND;
  else bal__node_release(s, i);
  bal__node_unlock(s);
  return rc;
}
