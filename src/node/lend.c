/* Lending (LeWI-style, ballast/node.h "Lending"): a process waiting in a
 * blocking call lends the CPUs it holds; attached processes borrow them at
 * their next poll; the lender reclaims them when it returns.
 *
 * Lend and reclaim run at every blocking MPI call, so they cost the same
 * whatever the process's CPU count: no lock, no system call, no search for
 * dead processes and no word per CPU. A lend sets the process's lending
 * word and bumps the registry's lend_gen, which every attached process
 * compares at its poll. A reclaim clears the word and bumps the gen of the
 * process itself and of each process in its borrowers set, so that they
 * give the CPUs back at their next poll. Who uses a CPU is not stored but
 * derived (bal__node_user: the holder unless it lends, else the process
 * that claimed it unless that one lends too), so the lender uses its CPUs
 * again the moment its word is cleared, and a borrower's mask, as its last
 * poll read it, still lists them until its next poll (docs/node.md,
 * "Lending", says how the rule reads).
 *
 * Borrowing happens in the borrower's poll, under the lock, CPU by CPU
 * (borrower[c]). The borrower sets its bit in the lender's borrowers set
 * before it reads the lender's lending word again, and the lender clears
 * that word before it reads the set (both sequentially consistent): either
 * the borrower sees the reclaim and takes nothing, or the lender sees the
 * bit and bumps the borrower's gen. Dead processes are the locked calls'
 * cleaning: a dead borrower's claims are dropped (bal__node_unborrow), a
 * dead lender's CPUs handed on by the rule (bal__node_move drops their
 * claims). */
#include <assert.h>

#include "node_internal.h"

static_assert(BAL_NODE_MAX_PROCS % 64 == 0, "borrowers sets are whole 64-bit words");

static uint64_t bit(int32_t i) { return UINT64_C(1) << (i % 64); }

bool bal__node_lending(const bal__node_shm *s, int32_t i) {
  return atomic_load(&s->slot[i].lending) != 0; /* seq_cst: the order the file comment needs */
}

void bal__node_lends(const bal__node_shm *s, bool lends[BAL_NODE_MAX_PROCS]) {
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++) lends[i] = bal__node_lending(s, i);
}

int32_t bal__node_user(const bal__node_shm *s, const bool *lends, int32_t c) {
  int32_t h = s->holder[c];
  if (h < 0 || !lends[h]) return h;
  int32_t b = s->borrower[c];
  return b >= 0 && !lends[b] ? b : -1;
}

void bal__node_use_mask(const bal__node_shm *s, int32_t i, bal_node_mask *m) {
  bool lends[BAL_NODE_MAX_PROCS];
  bal__node_lends(s, lends);
  bal_node_mask_zero(m);
  if (lends[i]) return; /* a lender uses nothing */
  for (int32_t c = 0; c < s->ncpus; c++)
    if (bal__node_user(s, lends, c) == i) bal_node_mask_add(m, c, c);
}

void bal__node_unborrow(bal__node_shm *s, int32_t i) {
  bool freed = false;
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->borrower[c] == i) {
      s->borrower[c] = -1;
      freed = true;
    }
  for (int32_t j = 0; j < BAL_NODE_MAX_PROCS; j++)
    atomic_fetch_and(&s->slot[j].borrowers[i / 64], ~bit(i));
  for (int32_t k = 0; k < BAL_NODE_MAX_PROCS / 64; k++) atomic_store(&s->slot[i].borrowers[k], 0);
  if (freed) atomic_fetch_add(&s->lend_gen, 1); /* free to borrow again: pollers look */
}

int64_t bal__node_borrow(bal__node_shm *s, int32_t i, uint64_t skip_from, uint64_t skip_before) {
  uint64_t from[BAL_NODE_MAX_PROCS / 64] = {0}; /* lenders we still claim CPUs of */
  int64_t skipped = 0;
  for (int32_t c = 0; c < s->ncpus; c++) {
    int32_t h = s->holder[c];
    if (h < 0 || h == i) continue;
    int32_t b = s->borrower[c];
    if (!bal__node_lending(s, h)) {
      if (b == i) s->borrower[c] = -1; /* its holder reclaimed: a stale claim */
      continue;
    }
    if (b != i && b >= 0 && !bal__node_lending(s, b)) continue; /* another borrower uses it */
    uint64_t seq = atomic_load(&s->slot[h].lend_seq);
    if (seq >= skip_from && seq < skip_before) {
      /* Lent before our own wait began: its lender is likely back soon.
       * A claim we made before our wait goes too (it would give us the
       * CPU back the moment we reclaimed). */
      if (b == i) s->borrower[c] = -1;
      skipped++;
      continue;
    }
    /* The bit first, then the lender's word again: a reclaim in between
     * either reads the bit (and bumps our gen) or we read its word clear. */
    _Atomic uint64_t *set = &s->slot[h].borrowers[i / 64];
    if (!(atomic_load(set) & bit(i))) atomic_fetch_or(set, bit(i));
    if (!bal__node_lending(s, h)) continue;
    s->borrower[c] = i;
    from[h / 64] |= bit(h);
  }
  /* Leave the sets of lenders we claim nothing of: their reclaims no
   * longer need to wake us. */
  for (int32_t j = 0; j < BAL_NODE_MAX_PROCS; j++) {
    _Atomic uint64_t *set = &s->slot[j].borrowers[i / 64];
    if (!(from[j / 64] & bit(j)) && (atomic_load_explicit(set, memory_order_relaxed) & bit(i)))
      atomic_fetch_and(set, ~bit(i));
  }
  return skipped;
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
  bal__node_slot *sl = &s->slot[p->slot];
  if (atomic_exchange(&sl->lending, 1) != 0) return 0; /* lending already */
  /* Every attached process compares lend_gen at its poll: the next one
   * takes the locked path and borrows. This process's own pools see their
   * CPUs go the same way. The bump comes after the word, so a poll that
   * sees the bump sees the word; lend_seq after both (a borrower that
   * reads the previous one takes this lend for older, for one poll). */
  uint64_t seq = atomic_fetch_add(&s->lend_gen, 1) + 1;
  atomic_store(&sl->lend_seq, seq);
  atomic_store_explicit(&p->my_lend, seq, memory_order_relaxed);
  return atomic_load_explicit(&sl->held, memory_order_relaxed);
}

int bal_node_reclaim(bal_node_proc *p) {
  if (!p) return BAL_EINVAL;
  int rc = check(p);
  if (rc != BAL_OK) return rc;
  bal__node_shm *s = p->map.shm;
  bal__node_slot *sl = &s->slot[p->slot];
  if (atomic_exchange(&sl->lending, 0) == 0) return 0; /* nothing lent */
  /* Ours again from now on. Each borrower gives them back at its next
   * poll: its gen moves. After the exchange, so a borrower that set its
   * bit after this load read our word clear and took nothing. */
  for (int32_t k = 0; k < BAL_NODE_MAX_PROCS / 64; k++)
    for (uint64_t b = atomic_load(&sl->borrowers[k]); b; b &= b - 1)
      atomic_fetch_add(&s->slot[k * 64 + __builtin_ctzll(b)].gen, 1);
  /* Our own next poll claims no CPU lent before our lend: processes that
   * waited while we waited are often waiting for us (a barrier, a
   * message we send), and come back within microseconds of our return.
   * Claiming their CPU then would put a worker of ours on it as its owner
   * returns (docs/node.md, "Lending"); the poll after that claims it if it
   * is still lent. Each lend is left once at most (skipped_below), so a
   * process that returns from short calls between all its polls still
   * borrows from a long wait. */
  atomic_store_explicit(&p->skip_before, atomic_load_explicit(&p->my_lend, memory_order_relaxed),
                        memory_order_relaxed);
  atomic_fetch_add(&sl->gen, 1); /* our own pools take the CPUs back */
  return atomic_load_explicit(&sl->held, memory_order_relaxed);
}
