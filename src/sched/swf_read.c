/* SWF readers: file (plain or gzip, through zlib, which reads uncompressed
 * files transparently) parsed as it is read, and memory; options and
 * machine resolution. */
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

/* What both readers do first: NULL options are the defaults (stored in
 * *defaults), checked; err cleared. NULL for options out of range. */
static const bal_swf_options *resolve(const bal_swf_options *opt, bal_swf_options *defaults,
                                      bal_swf_error *err) {
  if (!opt) {
    bal_swf_options_init(defaults);
    opt = defaults;
  }
  if (check_options(opt) != BAL_OK) return NULL;
  if (err) {
    err->line = 0;
    err->message[0] = '\0';
  }
  return opt;
}

/* What both readers do last, with rc the text's parse: finish p and hand
 * its trace to *out, or free what p and its trace hold. */
static int conclude(bal__sched_swf_parser *p, int rc, bal_swf_trace **out) {
  if (rc == BAL_OK) rc = bal__sched_swf_finish(p);
  if (rc != BAL_OK) {
    bal__sched_swf_abandon(p);
    free(p->t);
    return rc;
  }
  *out = p->t;
  return BAL_OK;
}

int bal_swf_read_mem(const char *buf, size_t len, const bal_swf_options *opt, bal_swf_trace **out,
                     bal_swf_error *err) {
  bal_swf_options defaults;
  if (!out || (!buf && len > 0)) return BAL_EINVAL;
  if (!(opt = resolve(opt, &defaults, err))) return BAL_EINVAL;
  bal_swf_trace *t = calloc(1, sizeof *t);
  if (!t) return BAL_ENOMEM;
  bal__sched_swf_parser p;
  bal__sched_swf_begin(&p, opt, t, err);
  size_t used;
  return conclude(&p, bal__sched_swf_feed(&p, buf ? buf : "", len, true, &used), out);
}

/* Decompressed text is parsed a chunk at a time as it arrives, the
 * unfinished last line carried to the front of the buffer for the next
 * chunk: a bad line stops the read at once, and memory holds the jobs, not
 * the text. With 1 MiB chunks the largest archive log (Curie, 29 MB of
 * text) reads no slower than it did whole, in half the peak memory. */
#define CHUNK (1 << 20)

static int read_error(bal_swf_error *err, gzFile gz, const char *what) {
  int zerr;
  const char *msg = gzerror(gz, &zerr);
  if (err) snprintf(err->message, sizeof err->message, "%s: %s", what, msg);
  return BAL_EIO;
}

/* Read and parse the whole of gz into p. */
static int parse_stream(gzFile gz, bal__sched_swf_parser *p, bal_swf_error *err) {
  /* room for a chunk after an unfinished line, which feed keeps at or
   * under BAL_SWF_MAX_LINE bytes */
  char *buf = malloc((size_t)CHUNK + BAL_SWF_MAX_LINE);
  if (!buf) return BAL_ENOMEM;
  size_t have = 0, used;
  int rc;
  for (;;) {
    int got = gzread(gz, buf + have, CHUNK);
    if (got < 0) {
      rc = read_error(err, gz, "read error");
      break;
    }
    if (got == 0) {
      /* a truncated gzip stream ends without a read error: ask zlib before
       * taking its last, perhaps cut, line */
      int zerr;
      gzerror(gz, &zerr);
      rc = zerr != Z_OK ? read_error(err, gz, "corrupt gzip data")
                        : bal__sched_swf_feed(p, buf, have, true, &used);
      break;
    }
    have += (size_t)got;
    if ((rc = bal__sched_swf_feed(p, buf, have, false, &used)) != BAL_OK) break;
    memmove(buf, buf + used, have - used);
    have -= used;
  }
  free(buf);
  return rc;
}

int bal_swf_read_file(const char *path, const bal_swf_options *opt, bal_swf_trace **out,
                      bal_swf_error *err) {
  bal_swf_options defaults;
  if (!path || !out) return BAL_EINVAL;
  if (!(opt = resolve(opt, &defaults, err))) return BAL_EINVAL;
  gzFile gz = gzopen(path, "rb");
  if (!gz) {
    if (err) snprintf(err->message, sizeof err->message, "cannot open: %s", strerror(errno));
    return BAL_EIO;
  }
  gzbuffer(gz, 1 << 18);
  bal_swf_trace *t = calloc(1, sizeof *t);
  if (!t) {
    gzclose(gz);
    return BAL_ENOMEM;
  }
  bal__sched_swf_parser p;
  bal__sched_swf_begin(&p, opt, t, err);
  p.max_bad_run = BAL_SWF_MAX_BAD_RUN;
  int rc = parse_stream(gz, &p, err);
  gzclose(gz);
  return conclude(&p, rc, out);
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
