#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, n, ".");
  else if (slash == path)
    snprintf(dir, n, "/");
  else
    snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

static bool writable_dir(const char *prog, const char *flag, const char *shown,
                         const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) != 0) {
    fprintf(stderr, "%s: %s: %s: directory %s: %s\n", prog, flag, shown, dir, strerror(errno));
    return false;
  }
  if (!S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "%s: %s: %s: %s is not a directory\n", prog, flag, shown, dir);
    return false;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "%s: %s: %s: directory %s: %s\n", prog, flag, shown, dir, strerror(errno));
    return false;
  }
  return true;
}

bool out_check_dir(const char *prog, const char *flag, const char *path) {
  char dir[4096];
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "%s: %s: %s is a directory, not a file\n", prog, flag, path);
    return false;
  }
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) { /* a device or pipe, written in place */
    if (access(path, W_OK) == 0) return true;
    fprintf(stderr, "%s: %s: %s: %s\n", prog, flag, path, strerror(errno));
    return false;
  }
  char real[PATH_MAX];
  const char *shown = path;
  if (stat(path, &sb) == 0 && realpath(path, real)) path = real; /* links are written through */
  dir_of(path, dir, sizeof dir);
  return writable_dir(prog, flag, shown, dir);
}

bool out_check_dir_itself(const char *prog, const char *flag, const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) == 0) return writable_dir(prog, flag, dir, dir);
  char parent[4096];
  dir_of(dir, parent, sizeof parent);
  return writable_dir(prog, flag, dir, parent);
}

/* The process's umask, read without setting it: umask() can only be
 * read by changing it, which other threads (MPI's) would see meanwhile. */
static mode_t current_umask(void) {
  mode_t mask = 022;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return mask;
  char line[256];
  unsigned m;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Umask: %o", &m) == 1) {
      mask = (mode_t)m;
      break;
    }
  fclose(f);
  return mask;
}

static bool make_temp(out_file *o, const char *prog, const char *flag, const char *path) {
  o->prog = prog;
  o->flag = flag;
  o->f = NULL;
  o->direct = false;
  o->tmp[0] = '\0';
  struct stat sb;
  char real[PATH_MAX];
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    /* A device or pipe (/dev/stdout, a FIFO): written in place, since
     * renaming over it would replace the node itself. */
    o->direct = true;
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s", path);
    return true;
  }
  /* An existing symbolic link is written through, not replaced. */
  if (stat(path, &sb) == 0 && realpath(path, real)) {
    path = real;
  } else if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) { /* to a file yet to be made */
    char target[PATH_MAX], dir[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0) {
      target[n] = '\0';
      dir_of(path, dir, sizeof dir);
      int w = target[0] == '/' ? snprintf(real, sizeof real, "%s", target)
                               : snprintf(real, sizeof real, "%s/%s", dir, target);
      if (w > 0 && (size_t)w < sizeof real) path = real;
    }
  }
  /* The file replaced keeps its permissions; a new one gets what a plain
   * fopen() would give it. */
  mode_t mode = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? sb.st_mode & 07777
                                                            : 0666 & ~current_umask();
  char dir[4096];
  dir_of(path, dir, sizeof dir);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  int n = snprintf(o->path, sizeof o->path, "%s", path);
  /* A hidden temporary beside the destination, so the rename is atomic. */
  char prefix[512];
  int m = snprintf(prefix, sizeof prefix, ".%s.", base);
  if (n < 0 || (size_t)n >= sizeof o->path || m < 0 || (size_t)m >= sizeof prefix ||
      !cli_mkstemp_template(o->tmp, sizeof o->tmp, dir, prefix)) {
    fprintf(stderr, "%s: %s: %s: the name is too long\n", prog, flag, path);
    return false;
  }
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    fprintf(stderr, "%s: %s: %s: %s\n", prog, flag, path, strerror(errno));
    o->tmp[0] = '\0';
    return false;
  }
  /* mkstemp makes the file private (0600) */
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
    fprintf(stderr, "%s: %s: %s: %s\n", prog, flag, path, strerror(errno));
    close(fd);
    unlink(o->tmp);
    o->tmp[0] = '\0';
    return false;
  }
  return true;
}

bool out_open(out_file *o, const char *prog, const char *flag, const char *path) {
  if (!make_temp(o, prog, flag, path)) return false;
  if (o->direct && !(o->f = fopen(o->path, "w"))) {
    fprintf(stderr, "%s: %s: %s: %s\n", prog, flag, o->path, strerror(errno));
    return false;
  }
  return true;
}

bool out_reserve(out_file *o, const char *prog, const char *flag, const char *path) {
  if (!make_temp(o, prog, flag, path)) return false;
  if (o->direct) return true; /* the other program writes to the node itself */
  fclose(o->f); /* nothing written yet: cannot fail to flush */
  o->f = NULL;
  return true;
}

/* fsync() the file or directory at path; 0 or the errno. A file system
 * that cannot sync a directory (EINVAL) has nothing to make durable. */
static int sync_path(const char *path, bool dir) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
  if (fd < 0) return errno;
  int err = fsync(fd) == 0 || (dir && errno == EINVAL) ? 0 : errno;
  close(fd);
  return err;
}

bool out_commit(out_file *o) {
  int err = 0;
  bool reserved = !o->f;
  if (o->f) {
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
    /* on disk before it takes the final name: a crash after the rename
     * must not leave an empty or partial file there */
    if (!err && !o->direct && fsync(fileno(o->f)) != 0) err = errno;
    if (fclose(o->f) != 0 && !err) err = errno ? errno : EIO;
    o->f = NULL;
  }
  if (o->direct) {
    if (err) fprintf(stderr, "%s: %s: %s: %s\n", o->prog, o->flag, o->path, strerror(err));
    return !err;
  }
  struct stat sb;
  if (!err && reserved && (stat(o->tmp, &sb) != 0 || sb.st_size == 0)) {
    fprintf(stderr, "%s: %s: %s: nothing was written\n", o->prog, o->flag, o->path);
    unlink(o->tmp);
    return false;
  }
  if (!err && reserved) err = sync_path(o->tmp, false); /* another program wrote it */
  if (!err && rename(o->tmp, o->path) != 0) err = errno;
  if (err) {
    fprintf(stderr, "%s: %s: %s: %s\n", o->prog, o->flag, o->path, strerror(err));
    unlink(o->tmp);
    return false;
  }
  /* the rename itself is durable once its directory is synced */
  char dir[4096];
  dir_of(o->path, dir, sizeof dir);
  if ((err = sync_path(dir, true)) != 0) {
    fprintf(stderr, "%s: %s: %s: written, but its directory %s could not be synced: %s\n",
            o->prog, o->flag, o->path, dir, strerror(err));
    return false;
  }
  return true;
}

void out_discard(out_file *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (!o->direct && o->tmp[0]) unlink(o->tmp);
}
