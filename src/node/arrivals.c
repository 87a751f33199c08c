/* Processes that arrive in an order the admission rule (rule.c) does not
 * cover: a further process of a job already on the node (a guest or an
 * owner with several ranks here), and a mate arriving after its guest
 * (SLURM may start a guest's step on a node before its mate's). Both keep
 * every CPU's lender right, so CPUs return to the job that lent them. Run
 * under the registry lock on a validated segment, as rule.c. */
#include <ballast/share.h>

#include "node_internal.h"

/* A further process of a job: an equal part of what the job's processes
 * hold, each CPU with its lender. */

int bal__node_admit_sibling(bal__node_shm *s, int32_t g) {
  int64_t job = s->slot[g].job;
  int32_t held[BAL_NODE_MAX_PROCS] = {0};
  int64_t total = 0, procs = 0;
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (i != g && s->slot[i].state != SLOT_FREE && s->slot[i].job == job) procs++;
  if (procs == 0) return BAL_ENOTFOUND;
  for (int32_t c = 0; c < s->ncpus; c++) {
    int32_t h = s->holder[c];
    if (h >= 0 && h != g && s->slot[h].job == job) {
      held[h]++;
      total++;
    }
  }
  /* An equal part, never a sibling's last CPU. */
  int64_t want = total / (procs + 1);
  if (want == 0) return BAL_EBUSY;
  for (; want > 0; want--) {
    /* The richest sibling (lowest slot on ties) gives its highest CPU, so
     * each keeps a contiguous block when it had one. */
    int32_t from = -1;
    for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
      if (held[i] > 1 && (from < 0 || held[i] > held[from])) from = i;
    if (from < 0) break;
    for (int32_t c = s->ncpus - 1; c >= 0; c--)
      if (s->holder[c] == from) {
        bal__node_move(s, c, g, s->lender[c]);
        held[from]--;
        break;
      }
  }
  return BAL_OK;
}

/* A mate after its guest: the guest's own CPUs become the mate's, and the
 * guest's processes get back, lent by the mate, what the sharing rule
 * lends (its highest CPUs), in contiguous blocks, one per process. */
int bal__node_admit_mate(bal__node_shm *s, int32_t g, int64_t guest) {
  int64_t job = s->slot[g].job;
  int32_t gs[BAL_NODE_MAX_PROCS];
  int64_t ng = 0, own = 0;
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (i != g && s->slot[i].state != SLOT_FREE && s->slot[i].job == guest) gs[ng++] = i;
  if (ng == 0) return BAL_ENOTFOUND;
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->holder[c] >= 0 && s->slot[s->holder[c]].job == guest && s->lender[c] < 0) own++;
  int64_t lend = bal_share_lend(s->sf, own, s->slot[g].ranks);
  /* Each guest process must keep a CPU (the mate keeps one per rank:
   * bal_share_lend). */
  if (own == 0 || lend < ng) return BAL_EBUSY;
  int64_t k = 0; /* the guest's own CPUs seen so far, in increasing order */
  for (int32_t c = 0; c < s->ncpus; c++) {
    if (s->holder[c] < 0 || s->slot[s->holder[c]].job != guest || s->lender[c] >= 0) continue;
    int64_t back = k++ - (own - lend); /* < 0: the mate keeps it */
    if (back < 0) {
      bal__node_move(s, c, g, -1);
    } else { /* block i of ng: sizes differ by at most one, larger first */
      int64_t i = back * ng / lend;
      bal__node_move(s, c, gs[i], job);
    }
  }
  return BAL_OK;
}
