/* Weight fields of bench_partition (see fields.h). */
#include "fields.h"

#include <math.h>

#include "core/rng.h"

static const char *const names[] = {"gradient", "hotspot", "hotspots", "noise"};

const char *field_name(int kind) {
  return kind >= 0 && kind < FIELD_COUNT ? names[kind] : 0;
}

/* A hotspot's weight above the background at cell (x, y). */
static double bump(double x, double y, double cx, double cy, double s) {
  double dx = x - cx, dy = y - cy;
  return 50.0 * exp(-(dx * dx + dy * dy) / (2 * s * s));
}

void field_fill(field_kind kind, int64_t nx, int64_t ny, double cx, double cy, uint64_t seed,
                double *w) {
  bal__rng r;
  bal__rng_seed(&r, seed);
  double hx[4], hy[4], dx = (cx - 0.5) * (double)nx, dy = (cy - 0.5) * (double)ny;
  for (int k = 0; k < 4; k++) {
    hx[k] = 0.1 + 0.8 * bal__rng_uniform(&r);
    hy[k] = 0.1 + 0.8 * bal__rng_uniform(&r);
  }
  double s = 0.05 * (double)nx;
  if (kind == FIELD_NOISE) {
    int64_t sx = ((int64_t)llround(dx) % nx + nx) % nx, sy = ((int64_t)llround(dy) % ny + ny) % ny;
    for (int64_t y = 0; y < ny; y++)
      for (int64_t x = 0; x < nx; x++)
        w[((y + sy) % ny) * nx + (x + sx) % nx] = 0.5 + bal__rng_uniform(&r);
    return;
  }
  for (int64_t y = 0; y < ny; y++)
    for (int64_t x = 0; x < nx; x++) {
      double px = (double)x + 0.5, py = (double)y + 0.5, v = 1.0;
      switch (kind) {
      case FIELD_GRADIENT: v = 1.0 + 9.0 * (px - dx + py - dy) / (double)(nx + ny); break;
      case FIELD_HOTSPOT: v = 1.0 + bump(px, py, cx * (double)nx, cy * (double)ny, s); break;
      case FIELD_HOTSPOTS:
        for (int k = 0; k < 4; k++)
          v += bump(px, py, hx[k] * (double)nx + dx, hy[k] * (double)ny + dy, s);
        break;
      default: break;
      }
      w[y * nx + x] = v;
    }
}

/* A standard normal deviate (Box-Muller). */
static double normal(bal__rng *r) {
  double u = 1.0 - bal__rng_uniform(r), v = bal__rng_uniform(r);
  return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

void field_points(int64_t n, uint64_t seed, double *xy, double *w) {
  bal__rng r;
  bal__rng_seed(&r, seed);
  double cx[8], cy[8];
  for (int k = 0; k < 8; k++) {
    cx[k] = 0.1 + 0.8 * bal__rng_uniform(&r);
    cy[k] = 0.1 + 0.8 * bal__rng_uniform(&r);
  }
  for (int64_t j = 0; j < n; j++) {
    double x, y;
    if (bal__rng_uniform(&r) < 0.1) {
      x = bal__rng_uniform(&r);
      y = bal__rng_uniform(&r);
    } else {
      int k = (int)bal__rng_below(&r, 8);
      do {
        x = cx[k] + 0.03 * normal(&r);
        y = cy[k] + 0.03 * normal(&r);
      } while (x < 0 || x >= 1 || y < 0 || y >= 1);
    }
    xy[2 * j] = x;
    xy[2 * j + 1] = y;
    w[j] = 1.0;
  }
}
