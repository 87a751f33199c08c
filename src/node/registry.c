/* Creating and destroying a registry. The creator initialises the whole
 * segment (lock included) before writing the magic, so a participant that
 * opens it early sees BAL_EFORMAT rather than a half-made registry. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "node_internal.h"

int bal_node_registry_config_init(bal_node_registry_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->sharing_factor = BAL_SHARE_FACTOR_DEFAULT;
  return BAL_OK;
}

/* The group's id; BAL_ENOTFOUND for an unknown name. */
static int group_id(const char *name, gid_t *gid) {
  char buf[16384];
  struct group g, *res = NULL;
  int e = getgrnam_r(name, &g, buf, sizeof buf, &res);
  if (e != 0) return BAL_ESYS;
  if (!res) return BAL_ENOTFOUND;
  *gid = res->gr_gid;
  return BAL_OK;
}

static int init_lock(pthread_mutex_t *m) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a) != 0) return BAL_ESYS;
  int e = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  if (!e) e = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  if (!e) e = pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
  return e ? BAL_ESYS : BAL_OK;
}

int bal_node_registry_create(const bal_node_registry_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  char name[BAL_NODE_NAME_MAX + 1];
  int rc = bal__node_name(cfg->name, name);
  if (rc != BAL_OK) return rc;
  int64_t ncpus = cfg->virtual_cpus;
  if (ncpus < 0 || ncpus > BAL_NODE_MAX_CPUS || !bal_share_factor_valid(cfg->sharing_factor))
    return BAL_EINVAL;
  if (ncpus == 0) {
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n < 1 || n > BAL_NODE_MAX_CPUS) {
      bal__log(BAL_LOG_ERROR, "node", "this machine has %ld CPUs, past the limit of %d", n, BAL_NODE_MAX_CPUS);
      return BAL_EINVAL;
    }
    ncpus = n;
  }
  gid_t gid = 0;
  if (cfg->group && (rc = group_id(cfg->group, &gid)) != BAL_OK) return rc;
  mode_t mode = cfg->group ? 0660 : 0600;
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    switch (errno) {
    case EEXIST: return BAL_EBUSY;
    case EACCES:
    case EPERM: return BAL_EPERM;
    default: return BAL_ESYS;
    }
  }
  /* fchmod: the umask must not narrow the mode the caller asked for. */
  if ((cfg->group && fchown(fd, (uid_t)-1, gid) != 0) || fchmod(fd, mode) != 0) {
    rc = errno == EPERM ? BAL_EPERM : BAL_ESYS;
  } else if (ftruncate(fd, (off_t)sizeof(bal__node_shm)) != 0) {
    rc = BAL_ESYS;
  }
  void *p = MAP_FAILED;
  if (rc == BAL_OK) {
    p = mmap(NULL, sizeof(bal__node_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) rc = BAL_ESYS;
  }
  close(fd);
  if (rc == BAL_OK) {
    bal__node_shm *s = p; /* zero-filled by ftruncate */
    s->version = BAL__NODE_VERSION;
    s->is_virtual = cfg->virtual_cpus > 0;
    s->size = sizeof *s;
    s->ncpus = ncpus;
    s->sf = cfg->sharing_factor;
    for (int32_t c = 0; c < BAL_NODE_MAX_CPUS; c++) {
      s->holder[c] = -1;
      s->lender[c] = -1;
      s->borrower[c] = -1;
    }
    rc = init_lock(&s->lock);
    if (rc == BAL_OK) __atomic_store_n(&s->magic, BAL__NODE_MAGIC, __ATOMIC_RELEASE);
    munmap(p, sizeof *s);
  }
  if (rc != BAL_OK) shm_unlink(name);
  return rc;
}

int bal_node_registry_destroy(const char *name) {
  char n[BAL_NODE_NAME_MAX + 1];
  int rc = bal__node_name(name, n);
  if (rc != BAL_OK) return rc;
  if (shm_unlink(n) == 0) return BAL_OK;
  switch (errno) {
  case ENOENT: return BAL_ENOTFOUND;
  case EISDIR: return BAL_EFORMAT; /* a directory under the name: not ours to remove */
  case EACCES:
  case EPERM: return BAL_EPERM;
  default: return BAL_ESYS;
  }
}
