/* Task messages: a batch of tasks taken from the front of the queue
 * (thieves' end) for a steal reply or a policy's push, and the same batch
 * queued at the receiver. Wire format: uint64 count, then per task a
 * bal__steal_wire_hdr and its stored input bytes (sim_bulk.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_bulk.h"
#include "steal_internal.h"

/* Largest batch we build (at least one task is always sent). */
#define BATCH_MAX_BYTES ((size_t)64 << 20)

int64_t bal__steal_pack_front(bal_steal *s, size_t k, unsigned char **out, size_t *out_bytes,
                              size_t *out_bulk) {
  size_t bytes = sizeof(uint64_t), take = 0, bulk = 0;
  if (k > bal__steal_q_size(s)) k = bal__steal_q_size(s);
  while (take < k) {
    size_t len = bal__steal_q_front(s, take)->len, kept = bal__steal_stored_len(len);
    size_t add = sizeof(bal__steal_wire_hdr) + kept;
    if (take > 0 && bytes + bulk + add + (len - kept) > BATCH_MAX_BYTES) break;
    bytes += add;
    bulk += len - kept;
    take++;
  }
  unsigned char *buf = malloc(bytes);
  if (!buf) {
    /* An empty batch still answers a thief. */
    take = 0;
    bulk = 0;
    bytes = sizeof(uint64_t);
    if (!(buf = malloc(bytes))) return BAL_ENOMEM;
  }
  uint64_t cnt = take;
  memcpy(buf, &cnt, sizeof cnt);
  size_t off = sizeof cnt;
  for (size_t i = 0; i < take; i++) {
    bal__steal_task *t = bal__steal_q_front(s, i);
    bal__steal_wire_hdr h = {t->owner, 0, t->idx, t->len};
    memcpy(buf + off, &h, sizeof h);
    off += sizeof h;
    size_t kept = bal__steal_stored_len(t->len);
    if (kept) memcpy(buf + off, t->data, kept);
    off += kept;
    if (t->own_data) free(t->data);
  }
  bal__steal_q_drop_front(s, take);
  s->st.tasks_given += (int64_t)take;
  *out = buf;
  *out_bytes = bytes;
  *out_bulk = bulk;
  return (int64_t)take;
}

int64_t bal__steal_unpack_tasks(bal_steal *s, const unsigned char *buf, size_t len) {
  uint64_t cnt = 0;
  if (len < sizeof cnt) return BAL_EMPI;
  memcpy(&cnt, buf, sizeof cnt);
  if (cnt == 0) return 0;
  pthread_mutex_lock(&s->mu);
  int rc = cnt > len ? BAL_EMPI : bal__steal_q_reserve(s, (size_t)cnt);
  size_t off = sizeof cnt;
  for (uint64_t i = 0; rc == BAL_OK && i < cnt; i++) {
    bal__steal_wire_hdr h;
    if (off + sizeof h > len) {
      rc = BAL_EMPI;
      break;
    }
    memcpy(&h, buf + off, sizeof h);
    off += sizeof h;
    size_t kept = bal__steal_stored_len((size_t)h.len);
    if (kept > len - off || h.owner < 0 || h.owner >= s->size) { /* as handle_results */
      rc = BAL_EMPI;
      break;
    }
    bal__steal_task t = {h.owner, 1, h.idx, (size_t)h.len, NULL};
    if (kept && !(t.data = malloc(kept))) {
      rc = BAL_ENOMEM;
      break;
    }
    if (kept) memcpy(t.data, buf + off, kept);
    off += kept;
    /* Received tasks go to the back: they are this rank's work now, and
     * their front end is what its own thieves will take. */
    bal__steal_q_push_back(s, t);
  }
  pthread_cond_broadcast(&s->work_cv); /* several tasks for several workers */
  pthread_mutex_unlock(&s->mu);
  return rc == BAL_OK ? (int64_t)cnt : rc;
}

int bal__steal_handle_push(bal_steal *s, const unsigned char *buf, size_t len) {
  int64_t got = bal__steal_unpack_tasks(s, buf, len);
  if (got < 0) return (int)got;
  if (got > 0) {
    s->st.thefts++; /* a transfer, counted as a theft is */
    bal__steal_ll_woke(s); /* a lifeline's push, or a policy's */
  }
  return BAL_OK;
}
