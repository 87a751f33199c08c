/* The registry segment: its name, mapping an existing one, the lock, and
 * validation. The segment is written by other processes, possibly of other
 * users, possibly killed half-way, so nothing read from it is trusted
 * before bal__node_validate has checked it: indices are range-checked
 * before use and a bad segment is BAL_EFORMAT, never a crash; a resized
 * one too (node_internal.h, bal__node_map, says how and what is left). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "node_internal.h"

#if BAL__TSAN
#include <sanitizer/tsan_interface.h>
#endif

int bal__node_name(const char *name, char out[BAL_NODE_NAME_MAX + 1]) {
  if (!name) name = getenv(BAL_NODE_REGISTRY_ENV);
  if (!name || !*name) return BAL_EINVAL;
  const char *base = name[0] == '/' ? name + 1 : name;
  size_t len = strlen(base);
  /* shm_open names are one path component: no further '/', not "." or "..".
   * No control character either: a name with a newline or an escape
   * sequence would garble every message that names it. */
  if (len == 0 || len + 1 >= BAL_NODE_NAME_MAX || strchr(base, '/') || !strcmp(base, ".") ||
      !strcmp(base, ".."))
    return BAL_EINVAL;
  for (const char *c = base; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) return BAL_EINVAL;
  out[0] = '/';
  memcpy(out + 1, base, len + 1);
  return BAL_OK;
}

static int errno_code(int e) {
  switch (e) {
  case ENOENT: return BAL_ENOTFOUND;
  case EACCES:
  case EPERM: return BAL_EPERM;
  case EEXIST: return BAL_EBUSY;
  case EINVAL:
  case ENAMETOOLONG: return BAL_EINVAL;
  case ENOMEM: return BAL_ENOMEM;
  default: return BAL_ESYS;
  }
}

/* The header, checked at open and at every lock (another participant may
 * have overwritten it since): `magic` as the caller loaded it. */
static bool header_ok(const bal__node_shm *s, uint64_t magic) {
  return magic == BAL__NODE_MAGIC && s->version == BAL__NODE_VERSION &&
         s->size == sizeof(bal__node_shm) && s->ncpus >= 1 && s->ncpus <= BAL_NODE_MAX_CPUS &&
         s->is_virtual <= 1 && bal_share_factor_valid(s->sf);
}

int bal__node_open(const char *name, bal__node_map *map) {
  int rc = bal__node_name(name, map->name);
  if (rc != BAL_OK) return rc;
  int fd = shm_open(map->name, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    /* The name is valid, so these mean something else is under it: a
     * directory (EISDIR, which glibc reports as EINVAL), a symbolic link
     * (shm_open does not follow them: ELOOP). Not a registry. */
    if (errno == EINVAL || errno == EISDIR || errno == ELOOP) return BAL_EFORMAT;
    return errno_code(errno);
  }
  map->fd = fd;
  if ((rc = bal__node_check(map)) != BAL_OK) {
    close(fd);
    return rc;
  }
  void *p = mmap(NULL, sizeof(bal__node_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    rc = errno_code(errno);
    close(fd);
    return rc;
  }
  bal__node_shm *s = p;
  /* The creator writes the magic last (release): once we see it, the lock
   * and the rest are initialised. Checked just above, so a shrink since is
   * the window node_internal.h states. */
  if (!header_ok(s, __atomic_load_n(&s->magic, __ATOMIC_ACQUIRE))) {
    munmap(p, sizeof(bal__node_shm));
    close(fd);
    return BAL_EFORMAT;
  }
  map->shm = s;
  map->ncpus = s->ncpus;
  map->is_virtual = s->is_virtual != 0;
  return BAL_OK;
}

void bal__node_close(bal__node_map *map) {
  if (!map || !map->shm) return;
  munmap(map->shm, sizeof(bal__node_shm));
  close(map->fd);
  map->shm = NULL;
  map->fd = -1;
}

int bal__node_check(const bal__node_map *map) {
  struct stat st;
  if (fstat(map->fd, &st) != 0) return BAL_ESYS;
  return (uint64_t)st.st_size == sizeof(bal__node_shm) ? BAL_OK : BAL_EFORMAT;
}

/* pread returns short past the end where a load would fault. The kernel's
 * copy is not promised to be one 8-byte access, so a value stored during
 * it could be read torn: it is read until two reads in a row agree (a
 * torn read needs a store inside it, and the next read then sees the
 * stored value whole unless yet another store lands inside that one).
 * The counters change at most once per locked operation (microseconds),
 * so two reads agree at once in practice; READ_TRIES bounds the loop all
 * the same, and past it the last value is taken (torn only if every one
 * of those reads had a store inside it). */
#define READ_TRIES 64
int bal__node_read_u64(const bal__node_map *map, const _Atomic uint64_t *field, uint64_t *out) {
  off_t off = (off_t)((const char *)field - (const char *)map->shm);
  uint64_t prev = 0;
  for (int n = 0;; n++) {
    uint64_t v;
    ssize_t got;
    while ((got = pread(map->fd, &v, sizeof v, off)) < 0 && errno == EINTR) {
    }
    if (got < 0) return BAL_ESYS;
    if (got != (ssize_t)sizeof v) return BAL_EFORMAT;
    if ((n > 0 && v == prev) || n == READ_TRIES) {
      *out = v;
      return BAL_OK;
    }
    prev = v;
  }
}

/* The lock waits in slices of LOCK_SLICE_NS and tries again after each.
 * A robust futex's owner that dies wakes one waiter; when that waiter dies
 * too before taking the lock (a process SIGKILLed with one thread holding
 * the lock and another waiting for it), no one wakes the waiters of other
 * processes, and they would sleep on a free lock forever (seen in
 * test_node_lend's lend_races). A waiter that times out reads the lock
 * word again and takes the lock if it is free. An uncontended lock is one
 * trylock, as before; only a contended one reads the clock. */
#define LOCK_SLICE_NS 10000000L /* 10 ms: a lost wake-up costs at most this */

static int lock_retrying(pthread_mutex_t *m) {
  int e = pthread_mutex_trylock(m); /* uncontended: no clock read */
  if (e != EBUSY) return e;
  for (;;) {
    struct timespec until;
    /* CLOCK_REALTIME, as pthread_mutex_timedlock takes it (sanitizers
     * intercept it, not pthread_mutex_clocklock): a clock step only
     * lengthens or shortens one slice. */
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += LOCK_SLICE_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    e = pthread_mutex_timedlock(m, &until);
#if BAL__TSAN
    /* TSan's pthread_mutex_timedlock records a lock taken with 0 only (its
     * lock and trylock also count EOWNERDEAD): tell it, or it reports the
     * unlock that follows (pre_lock, then post_lock, is the annotation's
     * required pair). */
    if (e == EOWNERDEAD) {
      __tsan_mutex_pre_lock(m, __tsan_mutex_try_lock);
      __tsan_mutex_post_lock(m, __tsan_mutex_try_lock, 0);
    }
#endif
    if (e != ETIMEDOUT) return e;
  }
}

int bal__node_lock(const bal__node_map *map) {
  int rc = bal__node_check(map);
  if (rc != BAL_OK) return rc;
  bal__node_shm *s = map->shm;
  int e = lock_retrying(&s->lock);
  if (e == 0) {
    if (bal__node_validate(s, false) == BAL_OK) return BAL_OK;
    pthread_mutex_unlock(&s->lock);
    return BAL_EFORMAT;
  }
  if (e == EOWNERDEAD) {
    /* The previous holder died inside an operation: make what it left
     * valid (each CPU still has at most one holder by construction), then
     * mark the lock usable again. */
    rc = bal__node_validate(s, true);
    pthread_mutex_consistent(&s->lock);
    if (rc != BAL_OK) pthread_mutex_unlock(&s->lock);
    return rc;
  }
  return BAL_ESYS; /* ENOTRECOVERABLE and friends */
}

void bal__node_unlock(bal__node_shm *s) { pthread_mutex_unlock(&s->lock); }

static bool slot_ok(const bal__node_slot *sl) {
  if (sl->state == SLOT_FREE) return true;
  if (sl->state != SLOT_ADMITTED && sl->state != SLOT_ATTACHED) return false;
  return sl->pid > 0 && sl->job >= 0 && sl->ranks >= 1 && sl->ranks <= BAL_NODE_MAX_CPUS;
}

static bool job_live(const bal__node_shm *s, int64_t job) {
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++)
    if (s->slot[i].state != SLOT_FREE && s->slot[i].job == job) return true;
  return false;
}

int bal__node_validate(bal__node_shm *s, bool repair) {
  /* The header was checked at open, but another participant may have
   * overwritten it since; it cannot be repaired, only refused. */
  if (!header_ok(s, s->magic)) return BAL_EFORMAT;
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++) {
    bal__node_slot *sl = &s->slot[i];
    if (slot_ok(sl)) continue;
    if (!repair) return BAL_EFORMAT;
    sl->state = SLOT_FREE;
    atomic_fetch_add(&sl->gen, 1);
  }
  for (int32_t c = 0; c < BAL_NODE_MAX_CPUS; c++) {
    int32_t h = s->holder[c];
    bool in_node = c < s->ncpus;
    bool h_ok = h == -1 || (in_node && h >= 0 && h < BAL_NODE_MAX_PROCS && s->slot[h].state != SLOT_FREE);
    if (!h_ok) {
      if (!repair) return BAL_EFORMAT;
      s->holder[c] = h = -1;
    }
    /* A claim on a lent CPU: an attached process other than its holder.
     * Lenders never write it (lend.c), so no lock-free step leaves it
     * half-done. */
    int32_t b = s->borrower[c];
    bool b_ok = b == -1 || (h >= 0 && b >= 0 && b < BAL_NODE_MAX_PROCS && b != h &&
                            s->slot[b].state == SLOT_ATTACHED);
    if (!b_ok) {
      if (!repair) return BAL_EFORMAT;
      s->borrower[c] = -1;
    }
    int64_t l = s->lender[c];
    bool l_ok = l == -1 || (h >= 0 && l >= 0 && l != s->slot[h].job && job_live(s, l));
    if (!l_ok) {
      if (!repair) return BAL_EFORMAT;
      s->lender[c] = -1;
    }
  }
  /* Each slot's held count is its CPUs (lenders read it without the
   * lock); a lending word is 0 or 1 (a free slot's is not looked at: a
   * lender removed during its lend may write it, node.h). */
  int32_t held[BAL_NODE_MAX_PROCS] = {0};
  for (int32_t c = 0; c < s->ncpus; c++)
    if (s->holder[c] >= 0) held[s->holder[c]]++;
  for (int32_t i = 0; i < BAL_NODE_MAX_PROCS; i++) {
    bal__node_slot *sl = &s->slot[i];
    bool ok = atomic_load(&sl->held) == held[i] &&
              (sl->state == SLOT_FREE || atomic_load(&sl->lending) <= 1);
    if (ok) continue;
    if (!repair) return BAL_EFORMAT;
    atomic_store(&sl->held, held[i]);
    if (atomic_load(&sl->lending) > 1) atomic_store(&sl->lending, 0);
  }
  return BAL_OK;
}
