/* Results: a finished task's result is stored if this rank owns the task
 * (queued for the result callback if it is a spawned task), otherwise appended to the buffer of its next hop toward the owner
 * (bal_overlay_next_hop()), so that results heading the same way share
 * messages. A buffer is sent once full, once its oldest result is old, or
 * whenever this rank has no task to run. */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/overlay.h>

#include "core/clock.h"
#include "core/log.h"
#include "steal_internal.h"
#include "transport.h"

/* Largest result batch (the MPI count is an int). */
#define ROUTE_MAX_BYTES ((size_t)INT_MAX - 4096)

static void store_own(bal_steal *s, int status, int64_t idx, size_t len, unsigned char *data) {
  if (idx < 0 || idx >= s->own_n || s->res_have[idx]) {
    bal__log(BAL_LOG_ERROR, "steal", "rank %d: unexpected result for task %" PRId64, s->rank, idx);
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

/* The next hop toward owner (!= this rank): the owner itself without an
 * overlay, else the overlay's, computed once per owner. */
static int hop_of(bal_steal *s, int owner) {
  if (!s->ov) return owner;
  int h;
  if (bal__steal_rankmap_get(&s->next_hop, owner, &h)) return h;
  int64_t hop = bal_overlay_next_hop(s->ov, s->rank, owner);
  if (hop < 0) return (int)hop;
  int rc = bal__steal_rankmap_put(&s->next_hop, owner, (int)hop);
  return rc != BAL_OK ? rc : (int)hop;
}

/* dest's route buffer, made empty on first use; NULL if out of memory. */
static bal__steal_route_buf *route_buf(bal_steal *s, int dest) {
  int i;
  if (bal__steal_rankmap_get(&s->rb_of, dest, &i)) return &s->rb[i];
  if (s->nrb == s->caprb) {
    int cap = s->caprb ? 2 * s->caprb : 8;
    bal__steal_route_buf *rb = realloc(s->rb, (size_t)cap * sizeof *rb);
    if (!rb) return NULL;
    s->rb = rb;
    int *active = realloc(s->active, (size_t)cap * sizeof *active);
    if (!active) return NULL;
    s->active = active;
    s->caprb = cap;
  }
  if (bal__steal_rankmap_put(&s->rb_of, dest, s->nrb) != BAL_OK) return NULL;
  s->rb[s->nrb] = (bal__steal_route_buf){.dest = dest};
  return &s->rb[s->nrb++];
}

static int route_flush(bal_steal *s, int dest) {
  int slot;
  if (!bal__steal_rankmap_get(&s->rb_of, dest, &slot)) return BAL_OK;
  bal__steal_route_buf *b = &s->rb[slot];
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
    double t = bal__steal_secs(s, bal__now_ns());
    s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_ROUTE, t, t, dest);
  }
  return bal__steal_send_basic(s, dest, BAL__STEAL_TAG_RESULTS, buf, len, 0);
}

/* Append a result for another rank to the buffer of its next hop; takes data. */
static int route_append(bal_steal *s, int owner, int status, int64_t idx, size_t len,
                        unsigned char *data) {
  int dest = hop_of(s, owner);
  if (dest < 0) {
    free(data);
    return dest;
  }
  bal__steal_route_buf *b = route_buf(s, dest);
  if (!b) {
    free(data);
    return BAL_ENOMEM;
  }
  size_t need = sizeof(bal__steal_wire_hdr) + len;
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
  bal__steal_wire_hdr h = {owner, status, idx, len};
  memcpy(b->buf + b->len, &h, sizeof h);
  if (len) memcpy(b->buf + b->len + sizeof h, data, len);
  b->len += need;
  b->n++;
  free(data);
  return BAL_OK;
}

int bal__steal_deliver(bal_steal *s, int owner, int status, int64_t idx, size_t len,
                       unsigned char *data) {
  if (owner == s->rank) {
    if (idx == BAL__STEAL_SPAWNED) return bal__steal_cb_push(s, status, len, data);
    store_own(s, status, idx, len, data);
    return BAL_OK;
  }
  return route_append(s, owner, status, idx, len, data);
}

int bal__steal_handle_results(bal_steal *s, unsigned char *buf, size_t len) {
  size_t off = 0;
  while (off < len) {
    bal__steal_wire_hdr h;
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
    int rc = bal__steal_deliver(s, h.owner, h.status, h.idx, (size_t)h.len, d);
    if (rc != BAL_OK) return rc;
  }
  return BAL_OK;
}

int bal__steal_route_flush_due(bal_steal *s, bool idle, int64_t now) {
  int act = 0;
  int64_t flush_ns = (int64_t)(s->cfg.route_flush_s * 1e9);
  for (int i = s->nactive - 1; i >= 0; i--) {
    if (i >= s->nactive) continue;
    int d = s->active[i], slot = 0;
    bal__steal_rankmap_get(&s->rb_of, d, &slot); /* every active destination has one */
    bal__steal_route_buf *b = &s->rb[slot];
    if (idle || b->len >= s->cfg.route_buffer_bytes || now - b->t_first >= flush_ns) {
      int rc = route_flush(s, d);
      if (rc != BAL_OK) return rc;
      act = 1;
    }
  }
  return act;
}
