/* SWF readers: file (plain or gzip, through zlib, which reads uncompressed
 * files transparently) and memory; options and machine resolution. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "swf_internal.h"

int bal_swf_options_init(bal_swf_options *opt) {
  if (!opt) return BAL_EINVAL;
  opt->partition = -1;
  opt->from = INT64_MIN;
  opt->to = INT64_MAX;
  opt->first = 0;
  opt->lenient = false;
  return BAL_OK;
}

static int check_options(const bal_swf_options *opt) {
  if (opt->first < 0 || opt->from > opt->to || opt->partition < -1) return BAL_EINVAL;
  return BAL_OK;
}

int bal_swf_read_mem(const char *buf, size_t len, const bal_swf_options *opt, bal_swf_trace **out,
                     bal_swf_error *err) {
  bal_swf_options defaults;
  if (!out || (!buf && len > 0)) return BAL_EINVAL;
  if (!opt) {
    bal_swf_options_init(&defaults);
    opt = &defaults;
  }
  if (check_options(opt) != BAL_OK) return BAL_EINVAL;
  if (err) {
    err->line = 0;
    err->message[0] = '\0';
  }
  bal_swf_trace *t = calloc(1, sizeof *t);
  if (!t) return BAL_ENOMEM;
  int rc = bal__sched_swf_parse(buf ? buf : "", len, opt, t, err);
  if (rc != BAL_OK) {
    free(t);
    return rc;
  }
  *out = t;
  return BAL_OK;
}

/* Lines read so far and the length of the unfinished one, for the line
 * limit: checked as the data arrives, so that a file without newlines is
 * refused after BAL_SWF_MAX_LINE bytes rather than buffered whole. */
typedef struct line_guard {
  int64_t lines;
  size_t run;
} line_guard;

/* Account for n more bytes at p; false once a line is too long. */
static bool lines_fit(line_guard *g, const char *p, size_t n) {
  const char *end = p + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    g->run += (size_t)((nl ? nl : end) - p);
    if (g->run > BAL_SWF_MAX_LINE) return false;
    if (!nl) break;
    g->lines++;
    g->run = 0;
    p = nl + 1;
  }
  return true;
}

/* Whole decompressed file in one buffer: the largest archive logs are a few
 * hundred MB uncompressed at most, and one pass over memory is the fastest
 * way to parse them. */
static int slurp(const char *path, char **data, size_t *size, bal_swf_error *err) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) {
    if (err) snprintf(err->message, sizeof err->message, "cannot open: %s", strerror(errno));
    return BAL_EIO;
  }
  gzbuffer(gz, 1 << 18);
  size_t cap = 1 << 22, n = 0;
  line_guard lg = {0, 0};
  char *buf = malloc(cap);
  if (!buf) {
    gzclose(gz);
    return BAL_ENOMEM;
  }
  for (;;) {
    if (cap - n < (1 << 20)) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        gzclose(gz);
        return BAL_ENOMEM;
      }
      buf = nb;
      cap *= 2;
    }
    int got = gzread(gz, buf + n, (unsigned)(cap - n));
    if (got < 0) {
      int zerr;
      const char *msg = gzerror(gz, &zerr);
      if (err) snprintf(err->message, sizeof err->message, "read error: %s", msg);
      free(buf);
      gzclose(gz);
      return BAL_EIO;
    }
    if (got == 0) break;
    if (!lines_fit(&lg, buf + n, (size_t)got)) {
      if (err) {
        err->line = lg.lines + 1;
        snprintf(err->message, sizeof err->message, "line longer than %d bytes", BAL_SWF_MAX_LINE);
      }
      free(buf);
      gzclose(gz);
      return BAL_EFORMAT;
    }
    n += (size_t)got;
  }
  /* a truncated gzip stream ends without a read error: ask zlib */
  int zerr;
  const char *msg = gzerror(gz, &zerr);
  if (zerr != Z_OK) {
    if (err) snprintf(err->message, sizeof err->message, "corrupt gzip data: %s", msg);
    free(buf);
    gzclose(gz);
    return BAL_EIO;
  }
  gzclose(gz);
  *data = buf;
  *size = n;
  return BAL_OK;
}

int bal_swf_read_file(const char *path, const bal_swf_options *opt, bal_swf_trace **out,
                      bal_swf_error *err) {
  if (!path || !out) return BAL_EINVAL;
  if (opt && check_options(opt) != BAL_OK) return BAL_EINVAL;
  if (err) {
    err->line = 0;
    err->message[0] = '\0';
  }
  char *data = NULL;
  size_t size = 0;
  int rc = slurp(path, &data, &size, err);
  if (rc != BAL_OK) return rc;
  rc = bal_swf_read_mem(data, size, opt, out, err);
  free(data);
  return rc;
}

void bal_swf_trace_destroy(bal_swf_trace *trace) {
  if (!trace) return;
  free(trace->jobs);
  free(trace);
}

int bal_swf_machine(const bal_swf_trace *trace, int64_t nodes, int64_t cores_per_node,
                    int64_t *out_nodes, int64_t *out_cores) {
  if (!trace || !out_nodes || !out_cores || nodes < 0 || cores_per_node < 0) return BAL_EINVAL;
  int64_t hn = trace->header.max_nodes, hp = trace->header.max_procs;
  bool header_ok = hn > 0 && hp > 0 && hp % hn == 0;
  if (nodes == 0 && cores_per_node == 0) {
    if (!header_ok) return BAL_EINVAL;
    nodes = hn;
    cores_per_node = hp / hn;
  } else if (nodes == 0) {
    if (!(hp > 0 && hp % cores_per_node == 0)) return BAL_EINVAL;
    nodes = hp / cores_per_node;
  } else if (cores_per_node == 0) {
    if (!(hp > 0 && hp % nodes == 0)) return BAL_EINVAL;
    cores_per_node = hp / nodes;
  }
  *out_nodes = nodes;
  *out_cores = cores_per_node;
  return BAL_OK;
}
