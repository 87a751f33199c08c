/* The artificial competing load of [Siegell 1997] §3: a process that shares a
 * rank's processor, constantly or in cycles (loaded for the first
 * duty*period seconds of every period, idle for the rest). While it runs,
 * a rank with slowdown F advances its own computation at 1/F of the
 * dedicated speed, i.e. the load takes (1 - 1/F) of the CPU. Emulated by
 * stretching each compute phase (sleeping for the difference), so that the
 * emulation costs no CPU on a shared, oversubscribed machine. */
#include <math.h>

#include "heat.h"

/* The oscillating load's segment containing t: whether it is on, and when
 * it ends. Both come from one phase computation: deriving them separately
 * (fmod for the state, floor for the end) disagreed by rounding at a
 * boundary and took a whole off-phase for an on-phase. */
static bool segment(const heat_load *l, double t, double *end) {
  double rel = t - l->t0, k = floor(rel / l->period), phase = rel - k * l->period;
  if (phase < 0) {
    k -= 1;
    phase += l->period;
  } else if (phase >= l->period) {
    k += 1;
    phase -= l->period;
  }
  double on_len = l->duty * l->period;
  bool on = phase < on_len;
  *end = l->t0 + k * l->period + (on ? on_len : l->period);
  if (*end <= t) *end = nextafter(t, INFINITY); /* t sits on the boundary */
  return on;
}

static bool loaded_now(const heat_load *l) {
  return l->here && l->kind != LOAD_NONE && l->slowdown > 1;
}

bool load_active(const heat_load *l, double t) {
  double end;
  if (!loaded_now(l)) return false;
  return l->kind == LOAD_CONSTANT || segment(l, t, &end);
}

double load_finish(const heat_load *l, double start, double work) {
  if (work <= 0) return start;
  if (!loaded_now(l)) return start + work;
  if (l->kind == LOAD_CONSTANT) return start + work * l->slowdown;
  double t = start, left = work;
  while (left > 0) {
    double end;
    double speed = segment(l, t, &end) ? 1.0 / l->slowdown : 1.0;
    double can = (end - t) * speed;
    if (can >= left) return t + left / speed;
    left -= can;
    t = end;
  }
  return t;
}

double load_compete(const heat_load *l, double a, double b) {
  if (b <= a || !loaded_now(l)) return 0;
  double share = 1.0 - 1.0 / l->slowdown, on = 0;
  if (l->kind == LOAD_CONSTANT) return share * (b - a);
  for (double t = a; t < b;) {
    double end;
    bool is_on = segment(l, t, &end);
    if (end > b) end = b;
    if (is_on) on += end - t;
    t = end;
  }
  return share * on;
}
