/* "sharing": hierarchical work sharing, the baseline of [Fontenaille 2018]
 * §5.2 (YALES2's scheduler), run by the same progress loop, transport and
 * termination as stealing so that the comparison measures the policy only.
 *
 * Groups. At the start of a run the ranks exchange their work estimates
 * (bal_steal_set_estimate(), by default their task counts) and form groups
 * of at most sharing_group_size ranks with about equal estimated work
 * (bal__steal_sharing_groups), as YALES2 forms them from the previous iteration.
 * There is no balancing between groups: that is what the estimates are for.
 *
 * Token. Each group has one master token, which travels round-robin
 * through the members (ascending ranks). It carries the members' queue
 * lengths as last known. Its holder records its own, computes the group's
 * fair share (total / members, rounded up) and pushes the part of its queue
 * above that share to the members below it, from the front of its queue,
 * then passes the token on. So masters distribute work pro-actively, in
 * proportion to its amount, whether or not the others would have run out
 * -- the opposite of work-first. A token that went a whole lap without
 * moving anything waits before its next hop, backing off like a thief.
 *
 * Termination. A token's arrival is acknowledged, and a rank enters the
 * final barrier only once its tokens are acknowledged (terminate.c), so no
 * token is in flight when a run ends. Once the termination waves have
 * found no work left, a token is kept by whoever holds it and dropped at
 * the end of the run.
 *
 * Everything above goes through the policy hooks (steal_internal.h):
 * start forms the groups, step moves the token and pushes, handle takes
 * the token and its acknowledgements, settled holds the final barrier for
 * them, end drops them; the state is this file's (struct sharing). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sharing.h"
#include "steal_internal.h"
#include "transport.h"

#define DEFAULT_GROUP_SIZE 32

/* The policy's messages. */
enum {
  TAG_TOKEN = BAL__STEAL_TAG_POLICY,        /* the group's master token */
  TAG_TOKEN_ACK = BAL__STEAL_TAG_POLICY + 1 /* the token arrived (settled()) */
};

/* One rank's part (s->policy_state): its group of this run, in ring order,
 * and the token while held here. */
typedef struct sharing {
  int *group;            /* members (ranks), ascending */
  int gsize, gpos;       /* members, this rank's index */
  int64_t *token;        /* the token while held here (layout below) */
  int64_t token_release; /* when a held token may be passed on */
  bool token_waited;     /* this visit of the token already waited out a quiet lap */
  int token_unacked;     /* tokens sent from here whose arrival is not yet acknowledged */
} sharing;

/* The token: laps without a move so far, current hold (ns), then the
 * members' queue lengths as last known. */
enum { TOKEN_QUIET = 0, TOKEN_NAP = 1, TOKEN_LOADS = 2 };

int bal__steal_sharing_groups(const double *estimate, int p, int gsize, int *group_of) {
  if (gsize < 1) gsize = 1;
  int ngroups = (p + gsize - 1) / gsize;
  int *order = malloc((size_t)p * sizeof *order);
  double *load = calloc((size_t)ngroups, sizeof *load);
  int *members = calloc((size_t)ngroups, sizeof *members);
  if (!order || !load || !members) {
    free(order);
    free(load);
    free(members);
    return BAL_ENOMEM;
  }
  /* Largest estimate first (ties: lower rank), by a Shell sort of the ranks
   * (halving gaps, in place): qsort's comparator gets no context through
   * which to reach the estimates, and a global would not be thread-safe. */
  for (int r = 0; r < p; r++) order[r] = r;
  for (int gap = p / 2; gap > 0; gap /= 2)
    for (int i = gap; i < p; i++) {
      int v = order[i], j = i;
      while (j >= gap && (estimate[order[j - gap]] < estimate[v] ||
                          (estimate[order[j - gap]] == estimate[v] && order[j - gap] > v))) {
        order[j] = order[j - gap];
        j -= gap;
      }
      order[j] = v;
    }
  /* Groups hold ceil or floor of p / ngroups members, so none is left tiny. */
  int base = p / ngroups, extra = p % ngroups;
  for (int i = 0; i < p; i++) {
    int best = -1;
    for (int g = 0; g < ngroups; g++) {
      int cap = base + (g < extra ? 1 : 0);
      if (members[g] < cap && (best < 0 || load[g] < load[best])) best = g;
    }
    group_of[order[i]] = best;
    load[best] += estimate[order[i]];
    members[best]++;
  }
  free(order);
  free(load);
  free(members);
  return ngroups;
}

static int init(bal_steal *s, void **state) {
  (void)s;
  *state = calloc(1, sizeof(sharing));
  return *state ? BAL_OK : BAL_ENOMEM;
}

/* Drop the run's group and token (a token held here ends with the run):
 * the state is init's again, as start expects it. */
static void end(bal_steal *s) {
  sharing *sh = s->policy_state;
  if (!sh) return;
  free(sh->group);
  free(sh->token);
  memset(sh, 0, sizeof *sh);
}

/* Groups of the run (collective), from everyone's estimate; the state is
 * as init made it (the core calls end after every run). */
static int start(bal_steal *s, int *peers) {
  sharing *sh = s->policy_state;
  double mine[2] = {s->has_estimate ? s->estimate : (double)s->own_n, (double)s->own_n};
  double *all = malloc((size_t)s->size * sizeof mine), *est = NULL;
  int *group_of = NULL;
  int rc = BAL_ENOMEM;
  if (!all) goto out;
  if ((rc = bal__tp_allgather(&s->tp, mine, sizeof mine, all)) != BAL_OK) goto out;
  /* Taken after the allgather, during which every rank holds `all`: under
   * SMPI, thousands of ranks in one process would otherwise hold these
   * two arrays of P at once too (28 rather than 16 bytes of P per rank). */
  est = malloc((size_t)s->size * sizeof *est);
  group_of = malloc((size_t)s->size * sizeof *group_of);
  rc = BAL_ENOMEM;
  if (!est || !group_of) goto out;
  for (int r = 0; r < s->size; r++) est[r] = all[2 * r];
  int gsize = s->cfg.sharing_group_size ? s->cfg.sharing_group_size : DEFAULT_GROUP_SIZE;
  if (gsize > s->size) gsize = s->size;
  int ng = bal__steal_sharing_groups(est, s->size, gsize, group_of);
  rc = ng < 0 ? ng : BAL_OK;
  if (rc != BAL_OK) goto out;
  int mine_g = group_of[s->rank], n = 0;
  for (int r = 0; r < s->size; r++) n += group_of[r] == mine_g;
  rc = BAL_ENOMEM;
  if (!(sh->group = malloc((size_t)n * sizeof *sh->group))) goto out;
  sh->gsize = 0;
  for (int r = 0; r < s->size; r++)
    if (group_of[r] == mine_g) {
      if (r == s->rank) sh->gpos = sh->gsize;
      sh->group[sh->gsize++] = r;
    }
  /* The first member starts with the token, knowing everyone's task count. */
  if (sh->gpos == 0) {
    if (!(sh->token = malloc((size_t)(sh->gsize + TOKEN_LOADS) * sizeof *sh->token))) goto out;
    sh->token[TOKEN_QUIET] = sh->token[TOKEN_NAP] = 0;
    for (int i = 0; i < sh->gsize; i++)
      sh->token[TOKEN_LOADS + i] = (int64_t)all[2 * sh->group[i] + 1];
    sh->token_release = bal__now_ns();
  }
  *peers = sh->gsize - 1; /* the ranks this one may talk to */
  rc = BAL_OK;
out:
  free(all);
  free(est);
  free(group_of);
  return rc;
}

/* Push the holder's work above the group's fair share to the members below it. */
static int distribute(bal_steal *s, sharing *sh, int64_t *loads) {
  int g = sh->gsize, moved = 0;
  pthread_mutex_lock(&s->mu);
  loads[sh->gpos] = (int64_t)bal__steal_q_size(s);
  int64_t total = 0;
  for (int i = 0; i < g; i++) total += loads[i];
  int64_t share = (total + g - 1) / g;
  for (int step = 1; step < g && loads[sh->gpos] > share; step++) {
    int j = (sh->gpos + step) % g;
    if (loads[j] >= share) continue;
    int64_t give = share - loads[j];
    if (give > loads[sh->gpos] - share) give = loads[sh->gpos] - share;
    unsigned char *buf;
    size_t bytes, bulk;
    int64_t took = bal__steal_pack_front(s, (size_t)give, &buf, &bytes, &bulk);
    if (took <= 0) {
      if (took == 0) free(buf);
      pthread_mutex_unlock(&s->mu);
      return took < 0 ? (int)took : moved;
    }
    loads[sh->gpos] -= took;
    loads[j] += took;
    pthread_mutex_unlock(&s->mu);
    int rc = bal__steal_send_basic(s, sh->group[j], BAL__STEAL_TAG_PUSH, buf, bytes, bulk);
    if (rc != BAL_OK) return rc;
    moved = 1;
    pthread_mutex_lock(&s->mu);
  }
  pthread_mutex_unlock(&s->mu);
  return moved;
}

/* The token, or the acknowledgement of one this rank passed on. */
static int handle(bal_steal *s, int src, int tag, const unsigned char *buf, size_t len) {
  sharing *sh = s->policy_state;
  if (tag == TAG_TOKEN_ACK) {
    if (sh->token_unacked <= 0) return BAL_EMPI;
    sh->token_unacked--;
    return BAL_OK;
  }
  if (tag != TAG_TOKEN) return BAL_EMPI;
  size_t need = (size_t)(sh->gsize + TOKEN_LOADS) * sizeof *sh->token;
  if (sh->gsize == 0 || len != need || sh->token) return BAL_EMPI;
  if (!(sh->token = malloc(need))) return BAL_ENOMEM;
  memcpy(sh->token, buf, need);
  sh->token_release = bal__now_ns();
  return bal__tp_send_msg(&s->tp, src, TAG_TOKEN_ACK, NULL, 0, 0);
}

/* Every token passed on from here has arrived. */
static bool settled(const bal_steal *s) {
  const sharing *sh = s->policy_state;
  return sh->token_unacked == 0;
}

/* Pass a held token on when due; 1 if it moved or pushed, 0 if not, or a
 * negative error. */
static int step(bal_steal *s, int64_t now) {
  sharing *sh = s->policy_state;
  if (!sh->token || !bal__steal_tasks_open(s) || now < sh->token_release) return 0;
  int moved = distribute(s, sh, sh->token + TOKEN_LOADS);
  if (moved < 0) return moved;
  int64_t *quiet = &sh->token[TOKEN_QUIET], *nap = &sh->token[TOKEN_NAP];
  if (moved) {
    *quiet = 0;
    *nap = 0;
  } else if (!sh->token_waited) {
    *quiet += 1;
  }
  if (sh->gsize == 1 || (*quiet >= sh->gsize && !sh->token_waited)) {
    /* A quiet lap: hold the token a while before passing it on, doubling
     * the hold while laps stay quiet, like a thief's back-off. */
    int64_t first = (int64_t)(s->cfg.poll_interval_s * 1e9) + 1000;
    int64_t cap = (int64_t)(s->cfg.backoff_max_s * 1e9);
    if (cap < first) cap = first;
    *nap = *nap ? 2 * *nap : first;
    if (*nap > cap) *nap = cap;
    sh->token_release = now + *nap;
    sh->token_waited = sh->gsize > 1;
    return moved;
  }
  sh->token_waited = false;
  size_t bytes = (size_t)(sh->gsize + TOKEN_LOADS) * sizeof *sh->token;
  unsigned char *msg = (unsigned char *)sh->token;
  sh->token = NULL;
  int rc = bal__tp_send_msg(&s->tp, sh->group[(sh->gpos + 1) % sh->gsize], TAG_TOKEN, msg, bytes, 0);
  if (rc != BAL_OK) return rc;
  sh->token_unacked++;
  return 1;
}

const bal__steal_policy bal__steal_policy_sharing = {.name = "sharing",
                                                     .init = init,
                                                     .start = start,
                                                     .step = step,
                                                     .handle = handle,
                                                     .settled = settled,
                                                     .end = end};
