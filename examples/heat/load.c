/* The artificial competing load of seed 002 §3: a process that shares a
 * rank's processor, constantly or in cycles (loaded for the first
 * duty*period seconds of every period, idle for the rest). While it runs,
 * a rank with slowdown F advances its own computation at 1/F of the
 * dedicated speed, i.e. the load takes (1 - 1/F) of the CPU. Emulated by
 * stretching each compute phase (sleeping for the difference), so that the
 * emulation costs no CPU on a shared, oversubscribed machine. */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "heat.h"

static bool active_at(const heat_load *l, double t) {
  if (!l->here || l->kind == LOAD_NONE || l->slowdown <= 1) return false;
  if (l->kind == LOAD_CONSTANT) return true;
  double phase = fmod(t - l->t0, l->period);
  if (phase < 0) phase += l->period;
  return phase < l->duty * l->period;
}

bool load_active(const heat_load *l, double t) { return active_at(l, t); }

/* End of the current on/off segment containing t (oscillating load). */
static double segment_end(const heat_load *l, double t) {
  double k = floor((t - l->t0) / l->period);
  double on_end = l->t0 + k * l->period + l->duty * l->period;
  double cycle_end = l->t0 + (k + 1) * l->period;
  double end = t < on_end ? on_end : cycle_end;
  /* rounding can land exactly on t: step past it */
  return end > t ? end : nextafter(t, INFINITY);
}

double load_finish(const heat_load *l, double start, double work) {
  if (work <= 0) return start;
  if (!l->here || l->kind == LOAD_NONE || l->slowdown <= 1) return start + work;
  if (l->kind == LOAD_CONSTANT) return start + work * l->slowdown;
  double t = start, left = work;
  while (left > 0) {
    double end = segment_end(l, t), speed = active_at(l, t) ? 1.0 / l->slowdown : 1.0;
    double can = (end - t) * speed;
    if (can >= left) return t + left / speed;
    left -= can;
    t = end;
  }
  return t;
}

double load_compete(const heat_load *l, double a, double b) {
  if (b <= a || !l->here || l->kind == LOAD_NONE || l->slowdown <= 1) return 0;
  double share = 1.0 - 1.0 / l->slowdown, on = 0;
  if (l->kind == LOAD_CONSTANT) return share * (b - a);
  for (double t = a; t < b;) {
    double end = segment_end(l, t);
    if (end > b) end = b;
    if (active_at(l, t)) on += end - t;
    t = end;
  }
  return share * on;
}

void sleep_until(double t) {
  struct timespec ts;
  ts.tv_sec = (time_t)floor(t);
  ts.tv_nsec = (long)((t - floor(t)) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
  /* absolute deadline: signals and late wake-ups do not accumulate */
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}
