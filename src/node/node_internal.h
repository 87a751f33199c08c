/* Private map of the node module ([D'Amico 2018] DROM's registry,
 * [D'Amico 2019] §3.3's node level).
 *
 *  mask.c      the public CPU-mask value type: add, count, parse, format
 *  pid.c       process identity: start time from /proc/PID/stat, liveness
 *  shm.c       the segment: names, create/open/map, the robust lock and its
 *              repair, validation of a segment we did not write
 *  rule.c      the distribution rule: admit a guest, release a process,
 *              clean dead processes
 *  registry.c  public create/destroy of a registry
 *  attach.c    the process side: attach, poll, detach
 *  guard.c     the poll's SIGBUS guard: its one load survives a truncated segment
 *  manager.c   the manager side: open, list, set, admit, remove
 *  lend.c      lending (LeWI-style): lend and reclaim, O(1) and lock-free;
 *              borrowing, in the borrower's locked poll
 *
 * The life of one process: a manager admits pid P next to job A
 * (rule.c takes CPUs of A, P's slot is ADMITTED) or P attaches by itself
 * (ATTACHED with free CPUs); P polls at malleability points: one atomic
 * load of its slot's gen, and only when gen moved the lock and a scan of
 * holder[]; P detaches, or a later caller finds it dead, and rule.c hands
 * its CPUs on.
 *
 * Invariants (checked by bal__node_validate, restored by its repair):
 *  - holder[c] is the one slot holding CPU c, or -1: a CPU can never be in
 *    two masks, whatever a crash leaves;
 *  - lender[c] >= 0 only when CPU c is held, and then names a job other than
 *    the holder's that still has a live slot (the job it returns to);
 *  - a slot's gen only grows (also across reuse of the slot), so a process
 *    never takes another incarnation's gen for its own;
 *  - lending (lend.c) is per process: slot[i].lending says that process i
 *    lends every CPU it holds. borrower[c] is the attached process that
 *    claimed CPU c while its holder lent it, or -1. The process using CPU c
 *    is a function of the three (bal__node_user): the holder, unless it
 *    lends; then the borrower, unless that one lends too; else nobody. So
 *    a CPU has one user at any instant, whatever order lenders and
 *    borrowers act in, and a lent CPU always has its holder to return to.
 *    Lenders write only their own lending word and read their borrowers
 *    set, without the lock (O(1) whatever their CPU count); borrower[],
 *    held and the borrowers sets change under the lock. */
#ifndef BALLAST_NODE_INTERNAL_H
#define BALLAST_NODE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ballast/error.h>
#include <ballast/node.h>
#include <ballast/share.h>

/* BAL__TSAN: a ThreadSanitizer build, where some calls take another path
 * that TSan can follow (guard.c, shm.c). */
#if defined(__SANITIZE_THREAD__)
#define BAL__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BAL__TSAN 1
#endif
#endif
#ifndef BAL__TSAN
#define BAL__TSAN 0
#endif

#define BAL__NODE_MAGIC 0x3145444f4e4c4142ull /* "BALNODE1" in little-endian bytes */
#define BAL__NODE_VERSION 3u /* 2: use[], lend_gen, lending; 3: borrower[], held, borrowers */

enum { SLOT_FREE = 0, SLOT_ADMITTED = 1, SLOT_ATTACHED = 2 };

typedef struct bal__node_slot {
  _Atomic uint64_t gen;     /* bumped whenever this slot's CPUs change or it is released */
  _Atomic uint64_t applied; /* the gen its process last polled */
  _Atomic uint32_t lending; /* 1 between bal_node_lend and bal_node_reclaim */
  _Atomic int32_t held;     /* CPUs it holds (holder[c] == it); written under the lock */
  _Atomic uint64_t lend_seq; /* lend_gen just after its last lend: how old its lend is */
  /* Slots that claimed a CPU of this one (bit j: slot j), so that its
   * reclaim can tell them without scanning CPUs. Bits are set under the
   * lock before the claim; a stale bit costs its slot one locked poll. */
  _Atomic uint64_t borrowers[BAL_NODE_MAX_PROCS / 64];
  int32_t state;            /* SLOT_* */
  int32_t pid;
  uint64_t start;           /* process start time, clock ticks since boot */
  int64_t job;
  int64_t ranks;
} bal__node_slot;

typedef struct bal__node_shm {
  uint64_t magic;
  uint32_t version;
  uint32_t is_virtual;
  uint64_t size; /* sizeof(bal__node_shm): another build's layout is refused */
  int64_t ncpus;
  double sf;
  pthread_mutex_t lock; /* robust, process-shared */
  int32_t holder[BAL_NODE_MAX_CPUS];
  int64_t lender[BAL_NODE_MAX_CPUS];
  _Atomic uint64_t lend_gen; /* bumped whenever CPUs become free to borrow: borrowers look */
  int32_t borrower[BAL_NODE_MAX_CPUS]; /* slot that claimed the lent CPU, or -1; under the lock */
  bal__node_slot slot[BAL_NODE_MAX_PROCS];
} bal__node_shm;

/* A mapping of one registry.
 *
 * A shrink of the object under a live mapping (a participant with write
 * access running `truncate`) turns every access past the new end into
 * SIGBUS. Ballast never resizes a registry once created, so it checks
 * instead: the descriptor stays open, and every entry that touches the
 * segment first checks its size with fstat (bal__node_check, taken by
 * bal__node_lock), except two. bal_node_poll's fast path, where a system
 * call would cost ~100x the poll, runs its one load under a SIGBUS guard
 * (guard.c), the only signal handler Ballast installs, and only in
 * attached processes. bal_node_manager_set's wait reads the process's
 * progress with pread (bal__node_read_u64), which cannot fault. What this
 * guarantees: a segment shrunk (or grown) before a locked call is
 * BAL_EFORMAT from that call, and neither the poll's fast path nor the
 * manager's wait dies of a shrink at any moment. What it does not: a
 * shrink that lands inside a locked operation, after its check, still
 * faults there (a window of one operation, microseconds). ncpus and
 * is_virtual are copied at open so that reading them touches nothing. */
typedef struct bal__node_map {
  bal__node_shm *shm;
  int fd;
  int64_t ncpus;
  bool is_virtual;
  char name[BAL_NODE_NAME_MAX + 1];
} bal__node_map;

/* pid.c: start time of pid (field 22 of /proc/PID/stat); BAL_ENOTFOUND if
 * there is no such process or it is a zombie. */
int bal__node_pid_start(pid_t pid, uint64_t *start);
/* pid.c: pid is alive and started at `start`. */
bool bal__node_pid_alive(pid_t pid, uint64_t start);

/* shm.c: the shm name for name (NULL: the environment), with a leading '/'. */
int bal__node_name(const char *name, char out[BAL_NODE_NAME_MAX + 1]);
/* shm.c: map an existing registry, checking magic, version and size. */
int bal__node_open(const char *name, bal__node_map *map);
void bal__node_close(bal__node_map *map);
/* shm.c: BAL_OK if the object still has the registry's size, else
 * BAL_EFORMAT (BAL_ESYS if fstat fails). */
int bal__node_check(const bal__node_map *map);
/* shm.c: *field (a counter inside map's segment) read with pread, never
 * a load: BAL_EFORMAT instead of SIGBUS if the segment no longer holds it,
 * with no signal handler needed. Two system calls or more per read (~1 µs
 * each; it reads until two reads agree): for waits and for the TSan
 * build, not for the poll's fast path. */
int bal__node_read_u64(const bal__node_map *map, const _Atomic uint64_t *field, uint64_t *out);
/* guard.c: install the process's SIGBUS guard (once; chained to the
 * handler before it). BAL_OK, or BAL_ESYS if sigaction failed. */
int bal__node_guard_init(void);
/* guard.c: slot `slot`'s gen and (lend non-NULL) the registry's lend_gen,
 * with acquire loads; BAL_EFORMAT instead of SIGBUS if a page under them
 * is gone (the guard must be installed). */
int bal__node_load_gen(const bal__node_map *map, int32_t slot, uint64_t *out, uint64_t *lend);
/* shm.c: check the size, take the lock; after a holder died, repair and go
 * on. BAL_OK, BAL_EFORMAT (object resized, or contents invalid and not
 * after a crash), BAL_ESYS. */
int bal__node_lock(const bal__node_map *map);
void bal__node_unlock(bal__node_shm *s);
/* shm.c: BAL_OK if the contents satisfy the invariants, else BAL_EFORMAT;
 * with repair, fix what is invalid instead (after a crash). */
int bal__node_validate(bal__node_shm *s, bool repair);

/* lend.c: slot i lends (its lending word). */
bool bal__node_lending(const bal__node_shm *s, int32_t i);
/* lend.c: every slot's lending word, each read once: lenders change them
 * without the lock, so a scan that derives users from them reads them
 * once first, for a view in which each process lends all or nothing. */
void bal__node_lends(const bal__node_shm *s, bool lends[BAL_NODE_MAX_PROCS]);
/* lend.c: the slot using CPU c (under the lock), or -1, by `lends`. */
int32_t bal__node_user(const bal__node_shm *s, const bool *lends, int32_t c);
/* lend.c: the CPUs slot i uses (its mask as bal_node_poll reports it). */
void bal__node_use_mask(const bal__node_shm *s, int32_t i, bal_node_mask *m);

/* The process side's handle (attach.c, lend.c). */
struct bal_node_proc {
  bal__node_map map;
  int32_t slot;
  pid_t pid;
  uint64_t start;
  uint64_t seen;      /* the slot gen p->mask was read at (0: never) */
  uint64_t lend_seen; /* the registry's lend_gen at that read */
  /* lend.c: lend_gen just after this process's last lend, and what its
   * reclaim leaves for the next poll (0: nothing): lends older than this
   * are not claimed at that poll (bal__node_borrow). Atomic: lend and
   * reclaim may run on another thread than the poll. */
  _Atomic uint64_t my_lend;
  _Atomic uint64_t skip_before;
  uint64_t skipped_below; /* lends below this were left once already (poll only) */
  bool gone;          /* removed or cleaned: the mask is empty for good */
  bal_node_mask mask; /* the mask at gen `seen` */
};

/* rule.c: mask of slot i. */
void bal__node_slot_mask(const bal__node_shm *s, int32_t i, bal_node_mask *m, bal_node_mask *borrowed);
/* rule.c: slot holding pid (any state), or -1. */
int32_t bal__node_find_pid(const bal__node_shm *s, pid_t pid);
/* rule.c: a slot for a new process (gen bumped past its last use), or -1. */
int32_t bal__node_new_slot(bal__node_shm *s);
/* rule.c: hand slot i's CPUs on by the rule and free it. */
void bal__node_release(bal__node_shm *s, int32_t i);
/* rule.c: release every slot whose process is dead. */
void bal__node_clean(bal__node_shm *s);
/* rule.c: admit a guest into (free) slot g, already filled with pid, start,
 * job and ranks: the CPUs by the rule, BAL_EBUSY (nothing changed) if none;
 * BAL_ENOTFOUND if a job of next_to has no slot. */
int bal__node_admit(bal__node_shm *s, int32_t g, const int64_t *next_to, int64_t n_next_to);
/* arrivals.c: slot g (a new process of a job with processes here) takes an
 * equal part of its job's CPUs here, lenders kept. BAL_ENOTFOUND (no other
 * process of the job), BAL_EBUSY (the part would be empty). */
int bal__node_admit_sibling(bal__node_shm *s, int32_t g);
/* arrivals.c: slot g, a mate of job `guest` that arrived first, takes the
 * guest's own CPUs and lends it back the rule's share. BAL_ENOTFOUND (no
 * process of guest), BAL_EBUSY (nothing to take, or a guest process or
 * the mate would be left without a CPU). */
int bal__node_admit_mate(bal__node_shm *s, int32_t g, int64_t guest);
/* lend.c: slot i (leaving, under the lock) gives back every CPU it
 * claimed: they are lent again, free to borrow; its bit leaves every
 * borrowers set. */
void bal__node_unborrow(bal__node_shm *s, int32_t i);
/* lend.c: slot i (attached, under the lock, not lending) claims every lent
 * CPU nobody uses and drops its stale claims (CPUs whose holder
 * reclaimed), except that it claims no CPU of a lend whose lend_seq is in
 * [skip_from, skip_before) (lend_gen values; an empty range skips
 * nothing). Returns how many CPUs it left for that reason. */
int64_t bal__node_borrow(bal__node_shm *s, int32_t i, uint64_t skip_from, uint64_t skip_before);

/* rule.c: give CPU c to slot i (-1: free) lent by job `lender` (-1: none),
 * bumping the gen of the slots that lose and gain it. */
void bal__node_move(bal__node_shm *s, int32_t c, int32_t i, int64_t lender);

#endif
