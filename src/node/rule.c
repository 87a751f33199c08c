/* The distribution rule (stated in ballast/node.h): which CPUs a guest
 * takes at admission, where a leaving process's CPUs go, and cleaning of
 * dead processes. Every function runs under the registry lock on a
 * validated segment; CPUs only ever change hands through bal__node_move,
 * which keeps one holder per CPU. */
#include <assert.h>

#include "node_internal.h"

static bool active(const bal__node_shm *s, int32_t i) { return s->slot[i].state != SLOT_FREE; }

void bal__node_slot_mask(const bal__node_shm *s, int32_t i, bal_node_mask *m, bal_node_mask *borrowed) {
  bal_node_mask_zero(m);
  if (borrowed) bal_node_mask_zero(borrowed);
  for (int32_t c = 0; c < s->ncpus; c++) {
    if (s->holder[c] != i) continue;
    bal_node_mask_add(m, c, c);
    if (borrowed && s->lender[c] >= 0) bal_node_mask_add(borrowed, c, c);
  }
}

int32_t bal__node_find_pid(const bal__node_shm *s, pid_t pid) {
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (active(s, i) && s->slot[i].pid == pid) return i;
  return -1;
}

int32_t bal__node_new_slot(bal__node_shm *s) {
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++) {
    if (active(s, i)) continue;
    bal__node_slot *sl = &s->slot[i];
    atomic_fetch_add(&sl->gen, 1);
    /* A lender removed in the middle of its lend may have set its word
     * after the release (node.h states that window): not the new one's. */
    atomic_store(&sl->lending, 0);
    atomic_store(&sl->held, 0);
    atomic_store(&sl->lend_seq, 0);
    for (int32_t k = 0; k < BAL_NODE_MAX_PROCS / 64; k++) atomic_store(&sl->borrowers[k], 0);
    return i;
  }
  return -1;
}

void bal__node_move(bal__node_shm *s, int32_t c, int32_t i, int64_t lender) {
  int32_t old = s->holder[c];
  if (old >= 0) {
    atomic_fetch_add(&s->slot[old].gen, 1);
    atomic_fetch_sub(&s->slot[old].held, 1);
  }
  s->lender[c] = lender;
  s->holder[c] = i;
  /* The new holder uses it at once (or lends it at once, if it lends):
   * whoever had claimed it loses it at its next poll. */
  int32_t b = s->borrower[c];
  s->borrower[c] = -1;
  if (b >= 0 && b != old && b != i) atomic_fetch_add(&s->slot[b].gen, 1);
  if (i >= 0) {
    atomic_fetch_add(&s->slot[i].gen, 1);
    atomic_fetch_add(&s->slot[i].held, 1);
  }
}

/* Lowest active slot of job `job` other than `except`, or -1. */
static int32_t slot_of_job(const bal__node_shm *s, int64_t job, int32_t except) {
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (i != except && active(s, i) && s->slot[i].job == job) return i;
  return -1;
}

void bal__node_release(bal__node_shm *s, int32_t i) {
  bal__node_unborrow(s, i); /* what it borrowed goes back to its lenders first */
  atomic_store(&s->slot[i].lending, 0);
  int64_t job = s->slot[i].job;
  int32_t sibling = slot_of_job(s, job, i);
  /* With no other process of its job here, the owner's CPUs go to its
   * guest: the lowest slot holding a CPU this job lent. */
  int32_t guest = -1;
  if (sibling < 0)
    for (int32_t c = 0; c < s->ncpus; c++)
      if (s->lender[c] == job && s->holder[c] != i && (guest < 0 || s->holder[c] < guest))
        guest = s->holder[c];
  for (int32_t c = 0; c < s->ncpus; c++) {
    if (s->holder[c] != i) continue;
    int32_t back = s->lender[c] >= 0 ? slot_of_job(s, s->lender[c], i) : -1;
    if (back >= 0) bal__node_move(s, c, back, -1); /* borrowed: back to its lender */
    else if (sibling >= 0) bal__node_move(s, c, sibling, -1);
    else bal__node_move(s, c, guest, -1); /* guest, or free when -1 */
  }
  if (sibling < 0) /* the job is gone: what it lent now belongs to the holders */
    for (int32_t c = 0; c < s->ncpus; c++)
      if (s->lender[c] == job) s->lender[c] = -1;
  s->slot[i].state = SLOT_FREE;
  atomic_fetch_add(&s->slot[i].gen, 1);
}

void bal__node_clean(bal__node_shm *s) {
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (active(s, i) && !bal__node_pid_alive(s->slot[i].pid, s->slot[i].start)) bal__node_release(s, i);
}

/* CPUs mate job `job` lends to a guest, added to take/from: of its own
 * CPUs (not borrowed), the number ballast/share.h's rule gives, the
 * highest first, never a process's last CPU. */
static void lend(const bal__node_shm *s, int64_t job, int32_t *left, bal_node_mask *take,
                 int64_t *from) {
  int64_t own = 0, ranks = 0, procs = 0;
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (active(s, i) && s->slot[i].job == job) {
      procs++;
      if (s->slot[i].ranks > ranks) ranks = s->slot[i].ranks;
    }
  if (procs > ranks) ranks = procs; /* each process keeps a CPU */
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->holder[c] >= 0 && s->slot[s->holder[c]].job == job && s->lender[c] < 0) own++;
  int64_t n = bal_share_lend(s->sf, own, ranks); /* sf was validated: never negative */
  for (int32_t c = s->ncpus - 1; c >= 0 && n > 0; c--) {
    int32_t h = s->holder[c];
    if (h < 0 || s->slot[h].job != job || s->lender[c] >= 0 || left[h] <= 1) continue;
    left[h]--;
    bal_node_mask_add(take, c, c);
    from[c] = job;
    n--;
  }
}

int bal__node_admit(bal__node_shm *s, int32_t g, const int64_t *next_to, int64_t n_next_to) {
  int64_t guest_job = s->slot[g].job;
  int32_t left[BAL_NODE_MAX_PROCS] = {0};
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->holder[c] >= 0) left[s->holder[c]]++;
  for (int64_t k = 0; k < n_next_to; k++)
    if (slot_of_job(s, next_to[k], g) < 0) return BAL_ENOTFOUND;
  bal_node_mask take;
  bal_node_mask_zero(&take);
  static_assert(BAL_NODE_MAX_CPUS <= 1024, "from[] lives on the stack");
  int64_t from[BAL_NODE_MAX_CPUS];
  /* Each mate once: the first slot of each job, in registry order, or the
   * listed jobs in their order (a job listed twice lends once). */
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++) {
    if (!active(s, i) || i == g) continue;
    int64_t job = s->slot[i].job;
    if (job == guest_job || slot_of_job(s, job, -1) != i) continue;
    bool listed = n_next_to == 0;
    for (int64_t k = 0; k < n_next_to && !listed; k++) listed = next_to[k] == job;
    if (listed) lend(s, job, left, &take, from);
  }
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->holder[c] < 0) {
      bal_node_mask_add(&take, c, c);
      from[c] = -1;
    }
  if (bal_node_mask_count(&take) == 0) return BAL_EBUSY;
  for (int32_t c = 0; c < s->ncpus; c++)
    if (bal_node_mask_has(&take, c)) bal__node_move(s, c, g, from[c]);
  return BAL_OK;
}
