/* Sizes and field offsets of the C structs that the Fortran modules mirror
 * as bind(c) derived types, so that tests/fortran can compare them with the
 * Fortran compiler's (c_sizeof, c_loc differences) and fail when a C field
 * is added, removed, reordered or retyped without the binding following. */
#include <stddef.h>
#include <stdint.h>

#include <ballast/for.h>
#include <ballast/node.h>
#include <ballast/partition.h>
#ifdef BAL_TEST_LAYOUT_MPI
#include <ballast/rebalance.h>
#include <ballast/rebalance_geo.h>
#include <ballast/steal.h>
#endif

int bal_test_layout(int which, int64_t *out, int cap);

#define SIZE(T) (n < cap ? (void)(out[n++] = (int64_t)sizeof(T)) : (void)n++)
#define OFF(T, f) (n < cap ? (void)(out[n++] = (int64_t)offsetof(T, f)) : (void)n++)

/* which: 0 bal_for_stats, 9 bal_loop_info, 6 bal_node_mask, 7 bal_node_registry_config,
 * 8 bal_node_attach_config, 10 bal_partition_config, 11 bal_partition_input,
 * 12 bal_partition_region, 13 bal_partition_transfer, 14 bal_partition_quality;
 * with MPI 1 bal_steal_config, 2 bal_steal_stats, 3 bal_rebalance_config,
 * 4 bal_rebalance_callbacks, 5 bal_rebalance_stats, 15 bal_rebalance_geo_config
 * (with its partition config), 16 bal_rebalance_geo_callbacks.
 * Writes the size then every field's offset in declaration order; returns
 * how many values that is (more than cap: only cap written), -1 for an
 * unknown which. */
int bal_test_layout(int which, int64_t *out, int cap) {
  int n = 0;
  switch (which) {
  case 0:
    SIZE(bal_for_stats);
    OFF(bal_for_stats, items);
    OFF(bal_for_stats, chunks);
    OFF(bal_for_stats, steals_attempted);
    OFF(bal_for_stats, steals_won);
    OFF(bal_for_stats, busy_seconds);
    OFF(bal_for_stats, wall_seconds);
    return n;
  case 9:
    SIZE(bal_loop_info);
    OFF(bal_loop_info, calls);
    OFF(bal_loop_info, learned_calls);
    OFF(bal_loop_info, drops);
    OFF(bal_loop_info, blocks);
    OFF(bal_loop_info, bytes);
    OFF(bal_loop_info, last_error);
    return n;
  case 6:
    SIZE(bal_node_mask);
    OFF(bal_node_mask, bits);
    return n;
  case 7:
    SIZE(bal_node_registry_config);
    OFF(bal_node_registry_config, name);
    OFF(bal_node_registry_config, virtual_cpus);
    OFF(bal_node_registry_config, sharing_factor);
    OFF(bal_node_registry_config, group);
    return n;
  case 8:
    SIZE(bal_node_attach_config);
    OFF(bal_node_attach_config, registry);
    OFF(bal_node_attach_config, job);
    OFF(bal_node_attach_config, ranks);
    OFF(bal_node_attach_config, cpus);
    return n;
  case 10:
    SIZE(bal_partition_config);
    OFF(bal_partition_config, method);
    OFF(bal_partition_config, parts);
    OFF(bal_partition_config, grid);
    OFF(bal_partition_config, min_extent);
    OFF(bal_partition_config, max_move_fraction);
    OFF(bal_partition_config, tolerance);
    OFF(bal_partition_config, remap);
    OFF(bal_partition_config, incremental);
    return n;
  case 11:
    SIZE(bal_partition_input);
    OFF(bal_partition_input, dim);
    OFF(bal_partition_input, lo);
    OFF(bal_partition_input, hi);
    OFF(bal_partition_input, n);
    OFF(bal_partition_input, coords);
    OFF(bal_partition_input, weights);
    OFF(bal_partition_input, from);
    return n;
  case 12:
    SIZE(bal_partition_region);
    OFF(bal_partition_region, kind);
    OFF(bal_partition_region, lo);
    OFF(bal_partition_region, hi);
    OFF(bal_partition_region, key_lo);
    OFF(bal_partition_region, key_hi);
    return n;
  case 13:
    SIZE(bal_partition_transfer);
    OFF(bal_partition_transfer, from);
    OFF(bal_partition_transfer, to);
    OFF(bal_partition_transfer, count);
    OFF(bal_partition_transfer, items);
    return n;
  case 14:
    SIZE(bal_partition_quality);
    OFF(bal_partition_quality, imbalance);
    OFF(bal_partition_quality, max_weight);
    OFF(bal_partition_quality, avg_weight);
    OFF(bal_partition_quality, halo_faces);
    OFF(bal_partition_quality, neighbors_max);
    OFF(bal_partition_quality, neighbors_avg);
    OFF(bal_partition_quality, empty_parts);
    return n;
#ifdef BAL_TEST_LAYOUT_MPI
  case 1:
    SIZE(bal_steal_config);
    OFF(bal_steal_config, policy);
    OFF(bal_steal_config, progress);
    OFF(bal_steal_config, overlay_degree);
    OFF(bal_steal_config, overlay_exponent);
    OFF(bal_steal_config, overlay_seed);
    OFF(bal_steal_config, seed);
    OFF(bal_steal_config, steal_fraction);
    OFF(bal_steal_config, route_buffer_bytes);
    OFF(bal_steal_config, route_flush_s);
    OFF(bal_steal_config, poll_interval_s);
    OFF(bal_steal_config, backoff_max_s);
    OFF(bal_steal_config, latency_bias);
    OFF(bal_steal_config, sharing_group_size);
    OFF(bal_steal_config, trace);
    OFF(bal_steal_config, trace_arg);
    OFF(bal_steal_config, workers);
    OFF(bal_steal_config, on_result);
    OFF(bal_steal_config, idle_wait);
    OFF(bal_steal_config, lifelines);
    return n;
  case 2:
    SIZE(bal_steal_stats);
    OFF(bal_steal_stats, tasks_own);
    OFF(bal_steal_stats, executed_own);
    OFF(bal_steal_stats, executed_stolen);
    OFF(bal_steal_stats, tasks_given);
    OFF(bal_steal_stats, steal_attempts);
    OFF(bal_steal_stats, thefts);
    OFF(bal_steal_stats, results_routed);
    OFF(bal_steal_stats, route_messages);
    OFF(bal_steal_stats, failed);
    OFF(bal_steal_stats, messages_sent);
    OFF(bal_steal_stats, bytes_sent);
    OFF(bal_steal_stats, peers_contacted);
    OFF(bal_steal_stats, overlay_degree);
    OFF(bal_steal_stats, spawned);
    OFF(bal_steal_stats, results_delivered);
    OFF(bal_steal_stats, term_waves);
    OFF(bal_steal_stats, work_s);
    OFF(bal_steal_stats, idle_s);
    OFF(bal_steal_stats, run_s);
    return n;
  case 3:
    SIZE(bal_rebalance_config);
    OFF(bal_rebalance_config, balancer);
    OFF(bal_rebalance_config, filter);
    OFF(bal_rebalance_config, filter_h);
    OFF(bal_rebalance_config, threshold);
    OFF(bal_rebalance_config, profitability);
    OFF(bal_rebalance_config, benefit_weight);
    OFF(bal_rebalance_config, horizon_s);
    OFF(bal_rebalance_config, interval);
    OFF(bal_rebalance_config, max_interval);
    OFF(bal_rebalance_config, f_interact);
    OFF(bal_rebalance_config, workscale);
    OFF(bal_rebalance_config, quantum_s);
    OFF(bal_rebalance_config, quantum_scale);
    OFF(bal_rebalance_config, pipelined);
    return n;
  case 4:
    SIZE(bal_rebalance_callbacks);
    OFF(bal_rebalance_callbacks, count);
    OFF(bal_rebalance_callbacks, pack_size);
    OFF(bal_rebalance_callbacks, pack);
    OFF(bal_rebalance_callbacks, unpack);
    OFF(bal_rebalance_callbacks, remove);
    OFF(bal_rebalance_callbacks, item_bytes);
    OFF(bal_rebalance_callbacks, arg);
    OFF(bal_rebalance_callbacks, weights);
    return n;
  case 5:
    SIZE(bal_rebalance_stats);
    OFF(bal_rebalance_stats, steps);
    OFF(bal_rebalance_stats, interactions);
    OFF(bal_rebalance_stats, rebalances);
    OFF(bal_rebalance_stats, skipped_threshold);
    OFF(bal_rebalance_stats, skipped_profit);
    OFF(bal_rebalance_stats, items_sent);
    OFF(bal_rebalance_stats, items_received);
    OFF(bal_rebalance_stats, bytes_sent);
    OFF(bal_rebalance_stats, items_moved);
    OFF(bal_rebalance_stats, interval);
    OFF(bal_rebalance_stats, last_verdict);
    OFF(bal_rebalance_stats, error_rank);
    OFF(bal_rebalance_stats, rate_raw);
    OFF(bal_rebalance_stats, rate);
    OFF(bal_rebalance_stats, filter_h);
    OFF(bal_rebalance_stats, filter_state);
    OFF(bal_rebalance_stats, imbalance);
    OFF(bal_rebalance_stats, reduction);
    OFF(bal_rebalance_stats, predicted_cost_s);
    OFF(bal_rebalance_stats, predicted_benefit_s);
    OFF(bal_rebalance_stats, period_s);
    OFF(bal_rebalance_stats, interact_s);
    OFF(bal_rebalance_stats, move_s);
    OFF(bal_rebalance_stats, migrate_s);
    return n;
  case 15:
    SIZE(bal_rebalance_geo_config);
    OFF(bal_rebalance_geo_config, measure);
    OFF(bal_rebalance_geo_config, partition);
    OFF(bal_rebalance_geo_config, partition.method);
    OFF(bal_rebalance_geo_config, partition.parts);
    OFF(bal_rebalance_geo_config, partition.grid);
    OFF(bal_rebalance_geo_config, partition.min_extent);
    OFF(bal_rebalance_geo_config, partition.max_move_fraction);
    OFF(bal_rebalance_geo_config, partition.tolerance);
    OFF(bal_rebalance_geo_config, partition.remap);
    OFF(bal_rebalance_geo_config, partition.incremental);
    OFF(bal_rebalance_geo_config, dim);
    OFF(bal_rebalance_geo_config, lo);
    OFF(bal_rebalance_geo_config, hi);
    return n;
  case 16:
    SIZE(bal_rebalance_geo_callbacks);
    OFF(bal_rebalance_geo_callbacks, count);
    OFF(bal_rebalance_geo_callbacks, coords);
    OFF(bal_rebalance_geo_callbacks, weights);
    OFF(bal_rebalance_geo_callbacks, pack_size);
    OFF(bal_rebalance_geo_callbacks, pack);
    OFF(bal_rebalance_geo_callbacks, unpack);
    OFF(bal_rebalance_geo_callbacks, remove);
    OFF(bal_rebalance_geo_callbacks, item_bytes);
    OFF(bal_rebalance_geo_callbacks, arg);
    return n;
#endif
  default:
    return -1;
  }
}
