/* Reading the simulated programs' --json output (result.h) with json-c. */
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

/* A number, or NaN if absent or null (an undefined figure: no tasks). */
static double num(json_object *o, const char *key) {
  json_object *v;
  return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : NAN;
}

static void str(json_object *o, const char *key, char *out, size_t n) {
  json_object *v;
  snprintf(out, n, "%s", json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "");
}

bool dlb_output_parse(const char *text, dlb_output *out) {
  json_object *o = json_tokener_parse(text), *runs, *v;
  if (!o) return false;
  bool ok = json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, "runs", &runs) &&
            json_object_is_type(runs, json_type_array);
  if (ok) {
    memset(out, 0, sizeof *out);
    str(o, "distribution", out->distribution, sizeof out->distribution);
    str(o, "idle_wait", out->idle_wait, sizeof out->idle_wait);
    out->work_per_rank = num(o, "work_per_rank");
    out->tasks_per_rank = num(o, "tasks_per_rank");
    out->bytes_per_rank = num(o, "bytes_per_rank");
    out->tasks = num(o, "tasks");
    out->seed = num(o, "seed");
    out->lifelines = num(o, "lifelines");
    size_t n = json_object_array_length(runs);
    for (size_t k = 0; k < n && out->nruns < (int)(sizeof out->runs / sizeof out->runs[0]); k++) {
      json_object *r = json_object_array_get_idx(runs, k);
      dlb_run_result *d = &out->runs[out->nruns++];
      str(r, "policy", d->policy, sizeof d->policy);
      d->efficiency = num(r, "efficiency");
      d->resolution_s = num(r, "resolution_s");
      d->thefts = num(r, "thefts");
      d->messages = num(r, "messages");
      d->bytes_moved = num(r, "bytes_moved");
      d->peers_max = num(r, "peers_max");
      d->results_ok = json_object_object_get_ex(r, "results_ok", &v) && json_object_get_boolean(v);
    }
  }
  json_object_put(o);
  return ok;
}

/* The member at a dotted key, or NULL. */
static json_object *at(json_object *o, const char *key) {
  char part[64];
  while (o && *key) {
    size_t len = strcspn(key, ".");
    if (len >= sizeof part) return NULL;
    memcpy(part, key, len);
    part[len] = '\0';
    json_object *v;
    o = json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, part, &v) ? v : NULL;
    key += len + (key[len] == '.');
  }
  return o;
}

bool res_fields(const char *text, const char *const *keys, int n, double *nums,
                const char *const *skeys, int ns, char (*strs)[32]) {
  json_object *o = json_tokener_parse(text);
  if (!o) return false;
  bool ok = json_object_is_type(o, json_type_object);
  for (int i = 0; ok && i < n; i++) {
    json_object *v = at(o, keys[i]);
    nums[i] = v ? json_object_get_double(v) : NAN;
    if (v && json_object_is_type(v, json_type_boolean)) nums[i] = json_object_get_boolean(v);
  }
  for (int i = 0; ok && i < ns; i++) {
    json_object *v = at(o, skeys[i]);
    snprintf(strs[i], sizeof strs[i], "%s", v ? json_object_get_string(v) : "");
  }
  json_object_put(o);
  return ok;
}
