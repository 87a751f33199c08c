/* Lending (LeWI-style, ballast/node.h "Lending"): a process waiting in a
 * blocking call lends the CPUs it uses; attached processes borrow them at
 * their next poll; the lender reclaims them when it returns.
 *
 * Lend and reclaim run at every blocking MPI call, so they take no lock,
 * make no system call and never look for dead processes: each changes the
 * use word of a CPU (node_internal.h) with one compare-and-swap that keeps
 * its owner, so a manager that moves the CPU meanwhile (under the lock,
 * with an exchange) wins and the lender's swap fails. Borrowing happens in
 * the borrower's poll, under the lock, where the borrower is known to be
 * attached: a dead borrower's CPUs are handed back by the cleaning that
 * releases its slot (bal__node_unborrow), a dead lender's by the rule that
 * hands its owned CPUs on (bal__node_move overwrites the word). */
#include <assert.h>

#include "node_internal.h"

static_assert(BAL_NODE_MAX_PROCS % 64 == 0, "reclaim's borrower set is whole 64-bit words");

void bal__node_use_mask(const bal__node_shm *s, int32_t i, bal_node_mask *m) {
  bal_node_mask_zero(m);
  for (int32_t c = 0; c < s->ncpus; c++)
    if (BAL__USE_USER(atomic_load_explicit(&s->use[c], memory_order_acquire)) == i)
      bal_node_mask_add(m, c, c);
}

void bal__node_unborrow(bal__node_shm *s, int32_t i) {
  bool lent = false;
  for (int32_t c = 0; c < s->ncpus; c++) {
    uint32_t w = atomic_load(&s->use[c]);
    /* A lender's reclaim may swap it back meanwhile: then it is not ours. */
    while (BAL__USE_USER(w) == i && BAL__USE_OWNER(w) != i &&
           !atomic_compare_exchange_weak(&s->use[c], &w, BAL__USE(BAL__USE_OWNER(w), -1, true))) {
    }
    if (BAL__USE_USER(w) == i && BAL__USE_OWNER(w) != i) lent = true;
  }
  if (lent) atomic_fetch_add(&s->lend_gen, 1);
}

int64_t bal__node_borrow(bal__node_shm *s, int32_t i) {
  int64_t n = 0;
  for (int32_t c = 0; c < s->ncpus; c++) {
    uint32_t w = atomic_load(&s->use[c]);
    /* The swap fails if the lender reclaimed it since: then it stays its. */
    if (BAL__USE_LENT(w) && BAL__USE_USER(w) < 0 && BAL__USE_OWNER(w) != i &&
        atomic_compare_exchange_strong(&s->use[c], &w, BAL__USE(BAL__USE_OWNER(w), i, true)))
      n++;
  }
  if (n > 0) atomic_fetch_add(&s->slot[i].gen, 1);
  return n;
}

/* The handle still names this process's slot. The fields are read without
 * the lock (a plain load of words that change only under it): what this
 * misses is the window node.h states for bal_node_lend. */
static int check(const bal_node_proc *p) {
  uint64_t gen;
  int rc = bal__node_load_gen(&p->map, p->slot, &gen, NULL); /* guarded: the segment is there */
  if (rc != BAL_OK) return rc;
  const bal__node_slot *sl = &p->map.shm->slot[p->slot];
  if (__atomic_load_n(&sl->state, __ATOMIC_RELAXED) != SLOT_ATTACHED ||
      __atomic_load_n(&sl->pid, __ATOMIC_RELAXED) != p->pid ||
      __atomic_load_n(&sl->start, __ATOMIC_RELAXED) != p->start)
    return BAL_ENOTFOUND;
  return BAL_OK;
}

int bal_node_lend(bal_node_proc *p) {
  if (!p) return BAL_EINVAL;
  int rc = check(p);
  if (rc != BAL_OK) return rc;
  bal__node_shm *s = p->map.shm;
  int32_t me = p->slot;
  atomic_store(&s->slot[me].lending, 1); /* before the swaps: our poll borrows nothing now */
  int n = 0;
  for (int32_t c = 0; c < p->map.ncpus; c++) {
    uint32_t w = atomic_load_explicit(&s->use[c], memory_order_relaxed);
    if (BAL__USE_USER(w) != me) continue;
    /* Ours (me, me) becomes lent; one we borrowed (owner, me) is passed
     * on, lent by its owner still. */
    if (atomic_compare_exchange_strong(&s->use[c], &w, BAL__USE(BAL__USE_OWNER(w), -1, true))) n++;
  }
  if (n > 0) atomic_fetch_add(&s->lend_gen, 1);
  return n;
}

int bal_node_reclaim(bal_node_proc *p) {
  if (!p) return BAL_EINVAL;
  int rc = check(p);
  if (rc != BAL_OK) return rc;
  bal__node_shm *s = p->map.shm;
  int32_t me = p->slot;
  atomic_store(&s->slot[me].lending, 0);
  int n = 0;
  uint64_t took_from[BAL_NODE_MAX_PROCS / 64] = {0}; /* borrowers that lost a CPU */
  for (int32_t c = 0; c < p->map.ncpus; c++) {
    uint32_t w = atomic_load_explicit(&s->use[c], memory_order_relaxed);
    /* A borrower's poll may take it between the load and the swap: retry. */
    while (BAL__USE_OWNER(w) == me && BAL__USE_LENT(w) &&
           !atomic_compare_exchange_weak(&s->use[c], &w, BAL__USE(me, me, false))) {
    }
    if (BAL__USE_OWNER(w) != me || !BAL__USE_LENT(w)) continue;
    n++;
    int32_t u = BAL__USE_USER(w);
    if (u >= 0 && u < BAL_NODE_MAX_PROCS) took_from[u / 64] |= UINT64_C(1) << (u % 64);
  }
  /* Each borrower gives its CPUs back at its next poll: one bump of its
   * gen, after every swap, so a poll that sees it sees them all (one bump
   * per CPU would hit the borrower's slot once per CPU). */
  for (int32_t k = 0; k < BAL_NODE_MAX_PROCS / 64; k++)
    for (uint64_t b = took_from[k]; b; b &= b - 1)
      atomic_fetch_add(&s->slot[k * 64 + __builtin_ctzll(b)].gen, 1);
  if (n > 0) atomic_fetch_add(&s->slot[me].gen, 1); /* our pools take the CPUs back */
  return n;
}
