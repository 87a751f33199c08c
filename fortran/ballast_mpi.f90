!> @file fortran/ballast_mpi.f90
!> Fortran 2008 binding of Ballast's MPI modules: `steal` (distributed work
!> stealing) and `rebalance` (iterative rebalancing of domain-decomposed
!> codes). Communicators are mpi_f08's type(MPI_Comm); the C side converts
!> them with MPI_Comm_f2c (fortran/mpi_shim.c). Status codes and helpers
!> are those of module ballast; the status codes, bal_strerror,
!> bal_err_name and bal_is_null are re-exported here, so that
!> `use ballast_mpi` alone is enough for a program that uses only steal
!> or rebalance. See docs/fortran.md.
module ballast_mpi
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm
  use ballast
  use ballast_partition, only: bal_partition_config
  implicit none
  private
  ! Re-exported from module ballast (the list of codes is generated).
  include 'ballast_status_public.inc'
  public :: bal_strerror, bal_err_name
  ! The partition settings of bal_rebalance_geo_config: module
  ! ballast_partition's type, re-exported so that `use ballast_mpi` suffices.
  public :: bal_partition_config

  ! enum bal_steal_progress
  integer(c_int), parameter, public :: BAL_STEAL_PROGRESS_AUTO = 0
  integer(c_int), parameter, public :: BAL_STEAL_PROGRESS_THREAD = 1
  integer(c_int), parameter, public :: BAL_STEAL_PROGRESS_POLL = 2
  ! enum bal_steal_event
  integer(c_int), parameter, public :: BAL_STEAL_EV_WORK = 0
  integer(c_int), parameter, public :: BAL_STEAL_EV_STEAL = 1
  integer(c_int), parameter, public :: BAL_STEAL_EV_ROUTE = 2
  integer(c_int), parameter, public :: BAL_STEAL_EV_IDLE = 3
  ! enum bal_rebalance_filter
  integer(c_int), parameter, public :: BAL_REBALANCE_FILTER_ADAPTIVE = 0
  integer(c_int), parameter, public :: BAL_REBALANCE_FILTER_FIXED = 1
  integer(c_int), parameter, public :: BAL_REBALANCE_FILTER_NONE = 2
  ! enum bal_rebalance_end
  integer(c_int), parameter, public :: BAL_REBALANCE_LOW = 0
  integer(c_int), parameter, public :: BAL_REBALANCE_HIGH = 1
  ! enum bal_rebalance_verdict
  integer(c_int), parameter, public :: BAL_REBALANCE_MOVE = 0
  integer(c_int), parameter, public :: BAL_REBALANCE_BALANCED = 1
  integer(c_int), parameter, public :: BAL_REBALANCE_UNPROFITABLE = 2
  integer(c_int), parameter, public :: BAL_REBALANCE_NO_DATA = 3
  integer(c_int), parameter, public :: BAL_REBALANCE_DISABLED = 4
  ! enum bal_rebalance_filter_fstate
  integer(c_int), parameter, public :: BAL_REBALANCE_FS_STEADY = 0
  integer(c_int), parameter, public :: BAL_REBALANCE_FS_DOWN1 = 1
  integer(c_int), parameter, public :: BAL_REBALANCE_FS_DOWN2 = 2
  integer(c_int), parameter, public :: BAL_REBALANCE_FS_UP1 = 3
  integer(c_int), parameter, public :: BAL_REBALANCE_FS_UP2 = 4
  integer(c_int), parameter, public :: BAL_REBALANCE_FS_UP3 = 5
  !> compute_s of bal_rebalance_step: let Ballast measure the time.
  real(c_double), parameter, public :: BAL_REBALANCE_MEASURE = -1.0_c_double
  !> items of bal_rebalance_step: every item the count callback reports.
  integer(c_int64_t), parameter, public :: BAL_REBALANCE_ALL = -1_c_int64_t

  !> A work-stealing balancer (opaque; null until bal_steal_create).
  type, public :: bal_steal
    type(c_ptr) :: ptr = c_null_ptr
  end type bal_steal
  !> A rebalancer (opaque; null until bal_rebalance_create).
  type, public :: bal_rebalance
    type(c_ptr) :: ptr = c_null_ptr
  end type bal_rebalance

  !> struct bal_steal_config (field meanings in ballast/steal.h). Fill
  !> with bal_steal_config_init. `policy` is a C string pointer: set the
  !> policy through bal_steal_create's `policy` argument instead.
  type, bind(c), public :: bal_steal_config
    type(c_ptr) :: policy = c_null_ptr
    integer(c_int) :: progress = 0
    integer(c_int) :: overlay_degree = 0
    real(c_double) :: overlay_exponent = 0
    integer(c_int64_t) :: overlay_seed = 0 ! uint64_t in C
    integer(c_int64_t) :: seed = 0         ! uint64_t in C
    real(c_double) :: steal_fraction = 0
    integer(c_size_t) :: route_buffer_bytes = 0
    real(c_double) :: route_flush_s = 0
    real(c_double) :: poll_interval_s = 0
    real(c_double) :: backoff_max_s = 0
    real(c_double) :: latency_bias = 0
    integer(c_int) :: sharing_group_size = 0
    type(c_funptr) :: trace = c_null_funptr ! a bal_steal_trace_fn, via c_funloc
    type(c_ptr) :: trace_arg = c_null_ptr
    integer(c_int) :: workers = 0
    type(c_funptr) :: on_result = c_null_funptr ! a bal_steal_result_fn, via c_funloc
    integer(c_int) :: idle_wait = 0
    integer(c_int) :: lifelines = 0
  end type bal_steal_config

  !> struct bal_steal_stats (ballast/steal.h).
  type, bind(c), public :: bal_steal_stats
    integer(c_int64_t) :: tasks_own = 0
    integer(c_int64_t) :: executed_own = 0
    integer(c_int64_t) :: executed_stolen = 0
    integer(c_int64_t) :: tasks_given = 0
    integer(c_int64_t) :: steal_attempts = 0
    integer(c_int64_t) :: thefts = 0
    integer(c_int64_t) :: results_routed = 0
    integer(c_int64_t) :: route_messages = 0
    integer(c_int64_t) :: failed = 0
    integer(c_int64_t) :: messages_sent = 0
    integer(c_size_t) :: bytes_sent = 0
    integer(c_int) :: peers_contacted = 0
    integer(c_int) :: overlay_degree = 0
    integer(c_int64_t) :: spawned = 0
    integer(c_int64_t) :: results_delivered = 0
    integer(c_int64_t) :: term_waves = 0
    real(c_double) :: work_s = 0
    real(c_double) :: idle_s = 0
    real(c_double) :: run_s = 0
  end type bal_steal_stats

  !> struct bal_rebalance_config (ballast/rebalance.h). Fill with
  !> bal_rebalance_config_init; set the balancer through
  !> bal_rebalance_create's `balancer` argument.
  type, bind(c), public :: bal_rebalance_config
    type(c_ptr) :: balancer = c_null_ptr
    integer(c_int) :: filter = 0
    real(c_double) :: filter_h = 0
    real(c_double) :: threshold = 0
    logical(c_bool) :: profitability = .false.
    real(c_double) :: benefit_weight = 0
    real(c_double) :: horizon_s = 0
    integer(c_int64_t) :: interval = 0
    integer(c_int64_t) :: max_interval = 0
    real(c_double) :: f_interact = 0
    real(c_double) :: workscale = 0
    real(c_double) :: quantum_s = 0
    real(c_double) :: quantum_scale = 0
    logical(c_bool) :: pipelined = .false.
  end type bal_rebalance_config

  !> struct bal_rebalance_callbacks: set each with c_funloc of a bind(c)
  !> procedure of the matching interface below (bal_rebalance_count_fn,
  !> _pack_size_fn, _pack_fn, _unpack_fn, _remove_fn, _weights_fn).
  !> count, pack, unpack and remove are required (count only, for the
  !> balancer "none"); pack_size and weights are optional.
  type, bind(c), public :: bal_rebalance_callbacks
    type(c_funptr) :: count = c_null_funptr
    type(c_funptr) :: pack_size = c_null_funptr
    type(c_funptr) :: pack = c_null_funptr
    type(c_funptr) :: unpack = c_null_funptr
    type(c_funptr) :: remove = c_null_funptr
    integer(c_size_t) :: item_bytes = 0 !< bytes per item when pack_size is null
    type(c_ptr) :: arg = c_null_ptr     !< passed to every callback
    type(c_funptr) :: weights = c_null_funptr
  end type bal_rebalance_callbacks

  !> struct bal_rebalance_stats (ballast/rebalance.h).
  type, bind(c), public :: bal_rebalance_stats
    integer(c_int64_t) :: steps = 0
    integer(c_int64_t) :: interactions = 0
    integer(c_int64_t) :: rebalances = 0
    integer(c_int64_t) :: skipped_threshold = 0
    integer(c_int64_t) :: skipped_profit = 0
    integer(c_int64_t) :: items_sent = 0
    integer(c_int64_t) :: items_received = 0
    integer(c_size_t) :: bytes_sent = 0
    integer(c_int64_t) :: items_moved = 0
    integer(c_int64_t) :: interval = 0
    integer(c_int) :: last_verdict = 0
    integer(c_int) :: error_rank = 0
    real(c_double) :: rate_raw = 0
    real(c_double) :: rate = 0
    real(c_double) :: filter_h = 0
    integer(c_int) :: filter_state = 0
    real(c_double) :: imbalance = 0
    real(c_double) :: reduction = 0
    real(c_double) :: predicted_cost_s = 0
    real(c_double) :: predicted_benefit_s = 0
    real(c_double) :: period_s = 0
    real(c_double) :: interact_s = 0
    real(c_double) :: move_s = 0
    real(c_double) :: migrate_s = 0
  end type bal_rebalance_stats

  !> A geometric balancer (opaque; null until bal_rebalance_geo_create).
  type, public :: bal_rebalance_geo
    type(c_ptr) :: ptr = c_null_ptr
  end type bal_rebalance_geo

  !> struct bal_rebalance_geo_config (ballast/rebalance_geo.h). Fill with
  !> bal_rebalance_geo_config_init, then set dim, lo, hi and fields.
  type, bind(c), public :: bal_rebalance_geo_config
    type(bal_rebalance_config) :: measure
    type(bal_partition_config) :: partition
    integer(c_int) :: dim = 0
    real(c_double) :: lo(3) = 0
    real(c_double) :: hi(3) = 0
  end type bal_rebalance_geo_config

  !> struct bal_rebalance_geo_callbacks: set each with c_funloc of a
  !> bind(c) procedure of the matching interface (bal_rebalance_count_fn,
  !> bal_rebalance_geo_coords_fn, bal_rebalance_weights_fn,
  !> bal_rebalance_geo_pack_size_fn, _pack_fn, _unpack_fn, _remove_fn).
  !> Item indices are 0-based, as in C. count, coords, pack, unpack and
  !> remove are required; weights and pack_size optional.
  type, bind(c), public :: bal_rebalance_geo_callbacks
    type(c_funptr) :: count = c_null_funptr
    type(c_funptr) :: coords = c_null_funptr
    type(c_funptr) :: weights = c_null_funptr
    type(c_funptr) :: pack_size = c_null_funptr
    type(c_funptr) :: pack = c_null_funptr
    type(c_funptr) :: unpack = c_null_funptr
    type(c_funptr) :: remove = c_null_funptr
    integer(c_size_t) :: item_bytes = 0 !< bytes per item when pack_size is null
    type(c_ptr) :: arg = c_null_ptr     !< passed to every callback
  end type bal_rebalance_geo_callbacks

  ! Callback interfaces. Callbacks that may run concurrently (steal tasks in
  ! THREAD progress mode) should be `recursive`, like `for` bodies.
  abstract interface
    !> Task function: input(in_len bytes) -> output (at most out_cap
    !> bytes, length in out_len). Return 0 on success, non-zero marks the
    !> task failed. Must not call MPI on the balancer's communicator.
    function bal_steal_fn(input, in_len, output, out_cap, out_len, arg) bind(c) result(rc)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: input
      integer(c_size_t), value :: in_len
      type(c_ptr), value :: output
      integer(c_size_t), value :: out_cap
      integer(c_size_t), intent(out) :: out_len
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_steal_fn
    !> Trace callback (bal_steal_config%trace): ev is a BAL_STEAL_EV_*.
    subroutine bal_steal_trace_fn(arg, ev, t0, t1, peer) bind(c)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: arg
      integer(c_int), value :: ev
      real(c_double), value :: t0, t1
      integer(c_int), value :: peer
    end subroutine bal_steal_trace_fn
    !> Result callback (bal_steal_config%on_result, via c_funloc): the
    !> result (len bytes, c_f_pointer it; valid only during the call) and
    !> status of one task spawned on this rank (wherever it ran), exactly
    !> once, on the thread that called bal_steal_run; arg is bal_steal_run's.
    !> A failed task's result is delivered (its status, no bytes); only an
    !> empty successful result (status 0, no bytes) is not. Must not call
    !> MPI on the balancer's communicator nor any bal_steal_* of the
    !> balancer but bal_steal_stats_get, bal_steal_queued.
    subroutine bal_steal_result_fn(result, len, status, arg) bind(c)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: result
      integer(c_size_t), value :: len
      integer(c_int), value :: status
      type(c_ptr), value :: arg
    end subroutine bal_steal_result_fn
    !> Number of items this rank holds.
    function bal_rebalance_count_fn(n, arg) bind(c) result(rc)
      import :: c_int64_t, c_ptr, c_int
      integer(c_int64_t), intent(out) :: n
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_count_fn
    !> Bytes that pack needs for count items skip items away from end.
    function bal_rebalance_pack_size_fn(end, skip, count, bytes, arg) bind(c) result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: end
      integer(c_int64_t), value :: skip, count
      integer(c_size_t), intent(out) :: bytes
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_pack_size_fn
    !> Copy (without removing) count items skip items away from end
    !> (BAL_REBALANCE_LOW/HIGH) into buf, in sequence order.
    function bal_rebalance_pack_fn(end, skip, count, buf, bytes, arg) bind(c) result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: end
      integer(c_int64_t), value :: skip, count
      type(c_ptr), value :: buf
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_pack_fn
    !> Insert the count items of buf at end, keeping their order; all or
    !> nothing.
    function bal_rebalance_unpack_fn(end, count, buf, bytes, arg) bind(c) result(rc)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int), value :: end
      integer(c_int64_t), value :: count
      type(c_ptr), value :: buf
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_unpack_fn
    !> Drop count items at end. Cannot fail.
    subroutine bal_rebalance_remove_fn(end, count, arg) bind(c)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: end
      integer(c_int64_t), value :: count
      type(c_ptr), value :: arg
    end subroutine bal_rebalance_remove_fn
    !> Relative costs w(1:count) of the local items, in sequence order.
    function bal_rebalance_weights_fn(count, w, arg) bind(c) result(rc)
      import :: c_int64_t, c_double, c_ptr, c_int
      integer(c_int64_t), value :: count
      real(c_double), intent(out) :: w(count)
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_weights_fn
    !> A piece of work timed by bal_rebalance_time_min.
    subroutine bal_rebalance_work_fn(arg) bind(c)
      import :: c_ptr
      type(c_ptr), value :: arg
    end subroutine bal_rebalance_work_fn
    !> Coordinates of the n items, interleaved (x1 y1 [z1] x2 ...).
    function bal_rebalance_geo_coords_fn(n, xyz, arg) bind(c) result(rc)
      import :: c_int64_t, c_double, c_ptr, c_int
      integer(c_int64_t), value :: n
      real(c_double), intent(out) :: xyz(*)
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_geo_coords_fn
    !> Bytes pack needs for the count items with 0-based indices items.
    function bal_rebalance_geo_pack_size_fn(count, items, bytes, arg) bind(c) result(rc)
      import :: c_int64_t, c_size_t, c_ptr, c_int
      integer(c_int64_t), value :: count
      integer(c_int64_t), intent(in) :: items(*)
      integer(c_size_t), intent(out) :: bytes
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_geo_pack_size_fn
    !> Copy the items with 0-based indices items(1:count) into buf.
    function bal_rebalance_geo_pack_fn(count, items, buf, bytes, arg) bind(c) result(rc)
      import :: c_int64_t, c_size_t, c_ptr, c_int
      integer(c_int64_t), value :: count
      integer(c_int64_t), intent(in) :: items(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_geo_pack_fn
    !> Append the count items packed in buf after the last item.
    function bal_rebalance_geo_unpack_fn(count, buf, bytes, arg) bind(c) result(rc)
      import :: c_int64_t, c_size_t, c_ptr, c_int
      integer(c_int64_t), value :: count
      type(c_ptr), value :: buf
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function bal_rebalance_geo_unpack_fn
    !> Drop the items with the ascending 0-based indices items(1:count).
    subroutine bal_rebalance_geo_remove_fn(count, items, arg) bind(c)
      import :: c_int64_t, c_ptr
      integer(c_int64_t), value :: count
      integer(c_int64_t), intent(in) :: items(*)
      type(c_ptr), value :: arg
    end subroutine bal_rebalance_geo_remove_fn
  end interface
  public :: bal_steal_fn, bal_steal_trace_fn, bal_steal_result_fn, bal_rebalance_count_fn, &
    bal_rebalance_pack_size_fn, bal_rebalance_pack_fn, bal_rebalance_unpack_fn, &
    bal_rebalance_remove_fn, bal_rebalance_weights_fn, bal_rebalance_work_fn, &
    bal_rebalance_geo_coords_fn, bal_rebalance_geo_pack_size_fn, bal_rebalance_geo_pack_fn, &
    bal_rebalance_geo_unpack_fn, bal_rebalance_geo_remove_fn

  interface
    function c_steal_config_init(cfg) bind(c, name='bal_steal_config_init') result(rc)
      import :: bal_steal_config, c_int
      type(bal_steal_config) :: cfg
      integer(c_int) :: rc
    end function c_steal_config_init
    function c_steal_create(comm, cfg, out) bind(c, name='bal__f_steal_create') result(rc)
      import :: c_int, bal_steal_config, c_ptr
      integer(c_int), value :: comm
      type(bal_steal_config) :: cfg
      type(c_ptr) :: out
      integer(c_int) :: rc
    end function c_steal_create
    function c_steal_add_task(s, input, len, id) bind(c, name='bal_steal_add_task') result(rc)
      import :: c_ptr, c_size_t, c_int64_t, c_int
      type(c_ptr), value :: s, input
      integer(c_size_t), value :: len
      integer(c_int64_t) :: id
      integer(c_int) :: rc
    end function c_steal_add_task
    function c_steal_set_estimate(s, work) bind(c, name='bal_steal_set_estimate') result(rc)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: s
      real(c_double), value :: work
      integer(c_int) :: rc
    end function c_steal_set_estimate
    function c_steal_run(s, fn, max_out, arg) bind(c, name='bal_steal_run') result(rc)
      import :: c_ptr, c_funptr, c_size_t, c_int
      type(c_ptr), value :: s
      type(c_funptr), value :: fn
      integer(c_size_t), value :: max_out
      type(c_ptr), value :: arg
      integer(c_int) :: rc
    end function c_steal_run
    function c_steal_spawn(s, input, len) bind(c, name='bal_steal_spawn') result(rc)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: s, input
      integer(c_size_t), value :: len
      integer(c_int) :: rc
    end function c_steal_spawn
    function c_steal_queued(s) bind(c, name='bal_steal_queued') result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: s
      integer(c_int64_t) :: n
    end function c_steal_queued
    function c_steal_poll(s) bind(c, name='bal_steal_poll') result(rc)
      import :: c_ptr, c_int
      type(c_ptr), value :: s
      integer(c_int) :: rc
    end function c_steal_poll
    function c_steal_result(s, id, data, len, status) bind(c, name='bal_steal_result') result(rc)
      import :: c_ptr, c_int64_t, c_size_t, c_int
      type(c_ptr), value :: s
      integer(c_int64_t), value :: id
      type(c_ptr) :: data
      integer(c_size_t) :: len
      integer(c_int) :: status
      integer(c_int) :: rc
    end function c_steal_result
    function c_steal_stats_get(s, out) bind(c, name='bal_steal_stats_get') result(rc)
      import :: c_ptr, bal_steal_stats, c_int
      type(c_ptr), value :: s
      type(bal_steal_stats) :: out
      integer(c_int) :: rc
    end function c_steal_stats_get
    function c_steal_policy_name(i) bind(c, name='bal_steal_policy_name') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: i
      type(c_ptr) :: p
    end function c_steal_policy_name
    subroutine c_steal_destroy(s) bind(c, name='bal_steal_destroy')
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine c_steal_destroy

    function c_rebalance_config_init(cfg) bind(c, name='bal_rebalance_config_init') result(rc)
      import :: bal_rebalance_config, c_int
      type(bal_rebalance_config) :: cfg
      integer(c_int) :: rc
    end function c_rebalance_config_init
    function c_rebalance_create(comm, cfg, cb, out) bind(c, name='bal__f_rebalance_create') result(rc)
      import :: c_int, bal_rebalance_config, bal_rebalance_callbacks, c_ptr
      integer(c_int), value :: comm
      type(bal_rebalance_config) :: cfg
      type(bal_rebalance_callbacks) :: cb
      type(c_ptr) :: out
      integer(c_int) :: rc
    end function c_rebalance_create
    function c_rebalance_mark(rb) bind(c, name='bal_rebalance_mark') result(rc)
      import :: c_ptr, c_int
      type(c_ptr), value :: rb
      integer(c_int) :: rc
    end function c_rebalance_mark
    function c_rebalance_step(rb, compute_s, items, moved) bind(c, name='bal_rebalance_step') result(rc)
      import :: c_ptr, c_double, c_int64_t, c_int
      type(c_ptr), value :: rb
      real(c_double), value :: compute_s
      integer(c_int64_t), value :: items
      integer(c_int64_t) :: moved
      integer(c_int) :: rc
    end function c_rebalance_step
    function c_rebalance_stats_get(rb, out) bind(c, name='bal_rebalance_stats_get') result(rc)
      import :: c_ptr, bal_rebalance_stats, c_int
      type(c_ptr), value :: rb
      type(bal_rebalance_stats) :: out
      integer(c_int) :: rc
    end function c_rebalance_stats_get
    subroutine c_rebalance_destroy(rb) bind(c, name='bal_rebalance_destroy')
      import :: c_ptr
      type(c_ptr), value :: rb
    end subroutine c_rebalance_destroy
    function c_rebalance_balancer_name(i) bind(c, name='bal_rebalance_balancer_name') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: i
      type(c_ptr) :: p
    end function c_rebalance_balancer_name
    function c_rebalance_filter_name(f) bind(c, name='bal_rebalance_filter_name') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: f
      type(c_ptr) :: p
    end function c_rebalance_filter_name
    function c_rebalance_grain(t_seq, m, p, t_fixed, t_incr, blocks, block_size, t_total) &
        bind(c, name='bal_rebalance_grain') result(rc)
      import :: c_double, c_int64_t, c_int
      real(c_double), value :: t_seq
      integer(c_int64_t), value :: m
      integer(c_int), value :: p
      real(c_double), value :: t_fixed, t_incr
      integer(c_int64_t) :: blocks, block_size
      real(c_double) :: t_total
      integer(c_int) :: rc
    end function c_rebalance_grain
    function c_rebalance_grain_time(t_seq, m, p, t_fixed, t_incr, block_size, blocks, t_total) &
        bind(c, name='bal_rebalance_grain_time') result(rc)
      import :: c_double, c_int64_t, c_int
      real(c_double), value :: t_seq
      integer(c_int64_t), value :: m
      integer(c_int), value :: p
      real(c_double), value :: t_fixed, t_incr
      integer(c_int64_t), value :: block_size
      integer(c_int64_t) :: blocks
      real(c_double) :: t_total
      integer(c_int) :: rc
    end function c_rebalance_grain_time
    function c_rebalance_time_min(fn, arg, reps, min_s) bind(c, name='bal_rebalance_time_min') result(rc)
      import :: c_funptr, c_ptr, c_int, c_double
      type(c_funptr), value :: fn
      type(c_ptr), value :: arg
      integer(c_int), value :: reps
      real(c_double) :: min_s
      integer(c_int) :: rc
    end function c_rebalance_time_min
    function c_rebalance_measure_shift(comm, elem_bytes, elems, reps, t_fixed, t_incr) &
        bind(c, name='bal__f_rebalance_measure_shift') result(rc)
      import :: c_int, c_size_t, c_int64_t, c_double
      integer(c_int), value :: comm
      integer(c_size_t), value :: elem_bytes
      integer(c_int64_t), value :: elems
      integer(c_int), value :: reps
      real(c_double) :: t_fixed, t_incr
      integer(c_int) :: rc
    end function c_rebalance_measure_shift
    function c_rebalance_geo_config_init(cfg) bind(c, name='bal_rebalance_geo_config_init') &
        result(rc)
      import :: bal_rebalance_geo_config, c_int
      type(bal_rebalance_geo_config) :: cfg
      integer(c_int) :: rc
    end function c_rebalance_geo_config_init
    function c_rebalance_geo_create(comm, cfg, cb, out) bind(c, name='bal__f_rebalance_geo_create') &
        result(rc)
      import :: c_int, bal_rebalance_geo_config, bal_rebalance_geo_callbacks, c_ptr
      integer(c_int), value :: comm
      type(bal_rebalance_geo_config) :: cfg
      type(bal_rebalance_geo_callbacks) :: cb
      type(c_ptr) :: out
      integer(c_int) :: rc
    end function c_rebalance_geo_create
    function c_rebalance_geo_mark(g) bind(c, name='bal_rebalance_geo_mark') result(rc)
      import :: c_ptr, c_int
      type(c_ptr), value :: g
      integer(c_int) :: rc
    end function c_rebalance_geo_mark
    function c_rebalance_geo_step(g, compute_s, moved) bind(c, name='bal_rebalance_geo_step') &
        result(rc)
      import :: c_ptr, c_double, c_int64_t, c_int
      type(c_ptr), value :: g
      real(c_double), value :: compute_s
      integer(c_int64_t) :: moved
      integer(c_int) :: rc
    end function c_rebalance_geo_step
    function c_rebalance_geo_partition(g, moved) bind(c, name='bal_rebalance_geo_partition') &
        result(rc)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: g
      integer(c_int64_t) :: moved
      integer(c_int) :: rc
    end function c_rebalance_geo_partition
    function c_rebalance_geo_result(g) bind(c, name='bal_rebalance_geo_result') result(p)
      import :: c_ptr
      type(c_ptr), value :: g
      type(c_ptr) :: p
    end function c_rebalance_geo_result
    function c_rebalance_geo_stats_get(g, out) bind(c, name='bal_rebalance_geo_stats_get') &
        result(rc)
      import :: c_ptr, bal_rebalance_stats, c_int
      type(c_ptr), value :: g
      type(bal_rebalance_stats) :: out
      integer(c_int) :: rc
    end function c_rebalance_geo_stats_get
    subroutine c_rebalance_geo_destroy(g) bind(c, name='bal_rebalance_geo_destroy')
      import :: c_ptr
      type(c_ptr), value :: g
    end subroutine c_rebalance_geo_destroy
    function c_rebalance_geo_region(g, lo, hi) bind(c, name='bal__f_rebalance_geo_region') &
        result(rc)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: g
      real(c_double) :: lo(3), hi(3)
      integer(c_int) :: rc
    end function c_rebalance_geo_region
    function c_rebalance_geo_neighbors(g, list, cap) bind(c, name='bal__f_rebalance_geo_neighbors') &
        result(n)
      import :: c_ptr, c_int
      type(c_ptr), value :: g
      integer(c_int) :: list(*)
      integer(c_int), value :: cap
      integer(c_int) :: n
    end function c_rebalance_geo_neighbors
  end interface

  !> bal_is_null(h) of module ballast, extended to these handles.
  interface bal_is_null
    module procedure bal_steal_is_null, bal_rebalance_is_null, bal_rebalance_geo_is_null
  end interface bal_is_null
  public :: bal_is_null

  public :: bal_steal_config_init, bal_steal_create, bal_steal_add_task, &
    bal_steal_set_estimate, bal_steal_run, bal_steal_spawn, bal_steal_queued, &
    bal_steal_poll, bal_steal_result, &
    bal_steal_stats_get, bal_steal_policy_name, bal_steal_destroy
  public :: bal_rebalance_config_init, bal_rebalance_create, bal_rebalance_mark, &
    bal_rebalance_step, bal_rebalance_stats_get, bal_rebalance_destroy, &
    bal_rebalance_balancer_name, bal_rebalance_filter_name, bal_rebalance_grain, &
    bal_rebalance_grain_time, bal_rebalance_time_min, bal_rebalance_measure_shift
  public :: bal_rebalance_geo_config_init, bal_rebalance_geo_create, bal_rebalance_geo_mark, &
    bal_rebalance_geo_step, bal_rebalance_geo_partition, bal_rebalance_geo_has_result, &
    bal_rebalance_geo_region, bal_rebalance_geo_neighbors, bal_rebalance_geo_stats_get, &
    bal_rebalance_geo_destroy

contains

  pure logical function bal_steal_is_null(h)
    type(bal_steal), intent(in) :: h
    bal_steal_is_null = .not. c_associated(h%ptr)
  end function bal_steal_is_null

  pure logical function bal_rebalance_is_null(h)
    type(bal_rebalance), intent(in) :: h
    bal_rebalance_is_null = .not. c_associated(h%ptr)
  end function bal_rebalance_is_null

  pure logical function bal_rebalance_geo_is_null(h)
    type(bal_rebalance_geo), intent(in) :: h
    bal_rebalance_geo_is_null = .not. c_associated(h%ptr)
  end function bal_rebalance_geo_is_null

  ! ---------------------------------------------------------------- steal

  !> Fill cfg with the defaults of ballast/steal.h. @return BAL_OK.
  function bal_steal_config_init(cfg) result(rc)
    type(bal_steal_config), intent(out) :: cfg
    integer(c_int) :: rc
    rc = c_steal_config_init(cfg)
  end function bal_steal_config_init

  !> Create a balancer on comm (collective; comm is duplicated).
  !> cfg: configuration (default: the defaults); policy: victim policy
  !> name (bal_steal_policy_name), overriding cfg%policy.
  !> @return BAL_OK; BAL_EINVAL (MPI_COMM_NULL, MPI not initialised, a
  !> field out of range, an unknown policy, THREAD progress below
  !> MPI_THREAD_FUNNELED); BAL_ENOMEM; BAL_EMPI.
  function bal_steal_create(comm, s, cfg, policy) result(rc)
    type(MPI_Comm), intent(in) :: comm
    type(bal_steal), intent(inout) :: s
    type(bal_steal_config), intent(in), optional :: cfg
    character(len=*), intent(in), optional :: policy
    integer(c_int) :: rc
    type(bal_steal_config) :: c
    character(kind=c_char), allocatable, target :: name(:)
    type(c_ptr) :: p
    if (present(cfg)) then
      c = cfg
    else
      rc = c_steal_config_init(c)
    end if
    if (present(policy)) then
      name = bal_to_c_string(policy)
      c%policy = c_loc(name) ! read during the call only
    end if
    rc = c_steal_create(comm%MPI_VAL, c, p)
    if (rc == BAL_OK) s%ptr = p
  end function bal_steal_create

  !> Add one of this rank's tasks to the next run: len bytes at input
  !> (copied; c_loc of your data). id (optional) receives its id, 0, 1, ...
  !> @return BAL_OK; BAL_EINVAL (null balancer, null input with len > 0,
  !> len too large); BAL_EBUSY during a run; BAL_ENOMEM.
  function bal_steal_add_task(s, input, len, id) result(rc)
    type(bal_steal), intent(in) :: s
    type(c_ptr), intent(in) :: input
    integer(c_size_t), intent(in) :: len
    integer(c_int64_t), intent(inout), optional :: id
    integer(c_int) :: rc
    integer(c_int64_t) :: i
    rc = c_steal_add_task(s%ptr, input, len, i)
    if (rc == BAL_OK .and. present(id)) id = i
  end function bal_steal_add_task

  !> Work estimate of this rank's next run (policy "sharing" only).
  !> @return BAL_OK; BAL_EINVAL (null balancer, negative or not finite);
  !> BAL_EBUSY during a run.
  function bal_steal_set_estimate(s, work) result(rc)
    type(bal_steal), intent(in) :: s
    real(c_double), intent(in) :: work
    integer(c_int) :: rc
    rc = c_steal_set_estimate(s%ptr, work)
  end function bal_steal_set_estimate

  !> Run every rank's tasks with fn and gather each result at its owner
  !> (collective). max_out: largest result in bytes; arg (default null)
  !> reaches fn. @return BAL_OK; BAL_EINVAL (null balancer, fn absent or
  !> not associated, max_out too large); BAL_EBUSY from inside a task;
  !> BAL_ENOMEM, BAL_ESYS, BAL_EMPI.
  function bal_steal_run(s, fn, max_out, arg) result(rc)
    type(bal_steal), intent(in) :: s
    procedure(bal_steal_fn), optional :: fn
    integer(c_size_t), intent(in) :: max_out
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: rc
    type(c_ptr) :: a
    if (.not. present(fn)) then
      rc = BAL_EINVAL
      return
    end if
    a = c_null_ptr
    if (present(arg)) a = arg
    rc = c_steal_run(s%ptr, c_funloc(fn), max_out, a)
  end function bal_steal_run

  !> From inside a task: add a child task (input of len bytes, copied),
  !> stealable like any task; its result goes to this rank's on_result
  !> callback. A task cannot wait for its children. Several workers of a
  !> rank may spawn concurrently.
  !> @return BAL_OK; BAL_EINVAL (null balancer, not on a thread running a
  !> task of s, null input with len > 0, len too large); BAL_ENOMEM.
  recursive function bal_steal_spawn(s, input, len) result(rc)
    type(bal_steal), intent(in) :: s
    type(c_ptr), intent(in) :: input
    integer(c_size_t), intent(in) :: len
    integer(c_int) :: rc
    rc = c_steal_spawn(s%ptr, input, len)
  end function bal_steal_spawn

  !> Tasks waiting in this rank's queue (a hint for splitting on demand:
  !> spawn part of the work when fewer than two wait). Any thread.
  !> @return the count (>= 0); BAL_EINVAL (null balancer).
  recursive function bal_steal_queued(s) result(n)
    type(bal_steal), intent(in) :: s
    integer(c_int64_t) :: n
    n = c_steal_queued(s%ptr)
  end function bal_steal_queued

  !> Serve pending messages from inside a task in POLL progress mode.
  !> @return BAL_OK; BAL_EINVAL (null); BAL_ENOTSUP outside a POLL task;
  !> BAL_EMPI.
  recursive function bal_steal_poll(s) result(rc)
    type(bal_steal), intent(in) :: s
    integer(c_int) :: rc
    rc = c_steal_poll(s%ptr)
  end function bal_steal_poll

  !> Result of this rank's task id after a run: data (c_f_pointer it;
  !> valid until the next phase), len in bytes, status (0 success, the
  !> task function's value, BAL_ERANGE, BAL_ENOMEM); each optional.
  !> @return BAL_OK; BAL_EINVAL (null, unknown id); BAL_EBUSY.
  function bal_steal_result(s, id, data, len, status) result(rc)
    type(bal_steal), intent(in) :: s
    integer(c_int64_t), intent(in) :: id
    type(c_ptr), intent(inout), optional :: data
    integer(c_size_t), intent(inout), optional :: len
    integer(c_int), intent(inout), optional :: status
    integer(c_int) :: rc
    type(c_ptr) :: d
    integer(c_size_t) :: n
    integer(c_int) :: st
    rc = c_steal_result(s%ptr, id, d, n, st)
    if (rc /= BAL_OK) return
    if (present(data)) data = d
    if (present(len)) len = n
    if (present(status)) status = st
  end function bal_steal_result

  !> Statistics of the last run on this rank. @return BAL_OK; BAL_EINVAL.
  function bal_steal_stats_get(s, stats) result(rc)
    type(bal_steal), intent(in) :: s
    type(bal_steal_stats), intent(inout) :: stats
    integer(c_int) :: rc
    type(bal_steal_stats) :: tmp
    rc = c_steal_stats_get(s%ptr, tmp)
    if (rc == BAL_OK) stats = tmp
  end function bal_steal_stats_get

  !> The i-th registered victim policy (from 0), '' past the last.
  function bal_steal_policy_name(i) result(name)
    integer(c_int), intent(in) :: i
    character(len=:), allocatable :: name
    name = bal_c_string(c_steal_policy_name(i))
  end function bal_steal_policy_name

  !> Free a balancer (on every rank, before MPI_Finalize); s becomes null.
  subroutine bal_steal_destroy(s)
    type(bal_steal), intent(inout) :: s
    call c_steal_destroy(s%ptr)
    s%ptr = c_null_ptr
  end subroutine bal_steal_destroy

  ! ------------------------------------------------------------ rebalance

  !> Fill cfg with the defaults of ballast/rebalance.h. @return BAL_OK.
  function bal_rebalance_config_init(cfg) result(rc)
    type(bal_rebalance_config), intent(out) :: cfg
    integer(c_int) :: rc
    rc = c_rebalance_config_init(cfg)
  end function bal_rebalance_config_init

  !> Create a rebalancer on comm (collective; comm is duplicated) moving
  !> items through the callbacks cb (copied). cfg: configuration (default:
  !> the defaults); balancer: "string", "direct" or "none", overriding
  !> cfg%balancer. @return BAL_OK; BAL_EINVAL (MPI_COMM_NULL, MPI not
  !> initialised, a missing callback, a field out of range, an unknown
  !> balancer); BAL_ENOMEM; BAL_EMPI.
  function bal_rebalance_create(comm, cb, rb, cfg, balancer) result(rc)
    type(MPI_Comm), intent(in) :: comm
    type(bal_rebalance_callbacks), intent(in) :: cb
    type(bal_rebalance), intent(inout) :: rb
    type(bal_rebalance_config), intent(in), optional :: cfg
    character(len=*), intent(in), optional :: balancer
    integer(c_int) :: rc
    type(bal_rebalance_config) :: c
    type(bal_rebalance_callbacks) :: callbacks
    character(kind=c_char), allocatable, target :: name(:)
    type(c_ptr) :: p
    if (present(cfg)) then
      c = cfg
    else
      rc = c_rebalance_config_init(c)
    end if
    if (present(balancer)) then
      name = bal_to_c_string(balancer)
      c%balancer = c_loc(name) ! read during the call only
    end if
    callbacks = cb
    rc = c_rebalance_create(comm%MPI_VAL, c, callbacks, p)
    if (rc == BAL_OK) rb%ptr = p
  end function bal_rebalance_create

  !> Mark the start of this iteration's computation (for
  !> BAL_REBALANCE_MEASURE). @return BAL_OK; BAL_EINVAL if rb is null.
  function bal_rebalance_mark(rb) result(rc)
    type(bal_rebalance), intent(in) :: rb
    integer(c_int) :: rc
    rc = c_rebalance_mark(rb%ptr)
  end function bal_rebalance_mark

  !> The load-balancing hook: once per iteration on every rank.
  !> compute_s: seconds spent computing (default BAL_REBALANCE_MEASURE);
  !> items: items processed (default BAL_REBALANCE_ALL); moved (optional)
  !> receives the items this rank sent plus received.
  !> @return as bal_rebalance_step in ballast/rebalance.h: BAL_OK;
  !> collective BAL_EINVAL, BAL_ECALLBACK, BAL_ERANGE, BAL_ENOMEM; BAL_EMPI.
  function bal_rebalance_step(rb, compute_s, items, moved) result(rc)
    type(bal_rebalance), intent(in) :: rb
    real(c_double), intent(in), optional :: compute_s
    integer(c_int64_t), intent(in), optional :: items
    integer(c_int64_t), intent(inout), optional :: moved
    integer(c_int) :: rc
    real(c_double) :: t
    integer(c_int64_t) :: n, m
    t = BAL_REBALANCE_MEASURE
    if (present(compute_s)) t = compute_s
    n = BAL_REBALANCE_ALL
    if (present(items)) n = items
    rc = c_rebalance_step(rb%ptr, t, n, m)
    if (rc == BAL_OK .and. present(moved)) moved = m
  end function bal_rebalance_step

  !> Statistics of this rank. @return BAL_OK; BAL_EINVAL if rb is null.
  function bal_rebalance_stats_get(rb, stats) result(rc)
    type(bal_rebalance), intent(in) :: rb
    type(bal_rebalance_stats), intent(inout) :: stats
    integer(c_int) :: rc
    type(bal_rebalance_stats) :: tmp
    rc = c_rebalance_stats_get(rb%ptr, tmp)
    if (rc == BAL_OK) stats = tmp
  end function bal_rebalance_stats_get

  !> Free a rebalancer (collective, before MPI_Finalize); rb becomes null.
  subroutine bal_rebalance_destroy(rb)
    type(bal_rebalance), intent(inout) :: rb
    call c_rebalance_destroy(rb%ptr)
    rb%ptr = c_null_ptr
  end subroutine bal_rebalance_destroy

  !> The i-th balancer name (from 0), '' past the last.
  function bal_rebalance_balancer_name(i) result(name)
    integer(c_int), intent(in) :: i
    character(len=:), allocatable :: name
    name = bal_c_string(c_rebalance_balancer_name(i))
  end function bal_rebalance_balancer_name

  !> Name of a BAL_REBALANCE_FILTER_* value, '' for another value.
  function bal_rebalance_filter_name(filter) result(name)
    integer(c_int), intent(in) :: filter
    character(len=:), allocatable :: name
    name = bal_c_string(c_rebalance_filter_name(filter))
  end function bal_rebalance_filter_name

  !> Grain size of a pipelined loop ([Siegell 1997] §4.2.4; the model is
  !> documented at bal_rebalance_grain in ballast/rebalance.h): blocks M,
  !> block_size b and the modelled t_total, each optional.
  !> @return BAL_OK; BAL_EINVAL on bad arguments (nothing written).
  function bal_rebalance_grain(t_seq, m, p, t_fixed, t_incr, blocks, block_size, t_total) result(rc)
    real(c_double), intent(in) :: t_seq, t_fixed, t_incr
    integer(c_int64_t), intent(in) :: m
    integer(c_int), intent(in) :: p
    integer(c_int64_t), intent(inout), optional :: blocks, block_size
    real(c_double), intent(inout), optional :: t_total
    integer(c_int) :: rc
    integer(c_int64_t) :: nb, b
    real(c_double) :: t
    rc = c_rebalance_grain(t_seq, m, p, t_fixed, t_incr, nb, b, t)
    if (rc /= BAL_OK) return
    if (present(blocks)) blocks = nb
    if (present(block_size)) block_size = b
    if (present(t_total)) t_total = t
  end function bal_rebalance_grain

  !> The grain model at a given block_size: blocks and t_total, optional.
  !> @return BAL_OK; BAL_EINVAL on bad arguments (nothing written).
  function bal_rebalance_grain_time(t_seq, m, p, t_fixed, t_incr, block_size, blocks, t_total) &
      result(rc)
    real(c_double), intent(in) :: t_seq, t_fixed, t_incr
    integer(c_int64_t), intent(in) :: m, block_size
    integer(c_int), intent(in) :: p
    integer(c_int64_t), intent(inout), optional :: blocks
    real(c_double), intent(inout), optional :: t_total
    integer(c_int) :: rc
    integer(c_int64_t) :: nb
    real(c_double) :: t
    rc = c_rebalance_grain_time(t_seq, m, p, t_fixed, t_incr, block_size, nb, t)
    if (rc /= BAL_OK) return
    if (present(blocks)) blocks = nb
    if (present(t_total)) t_total = t
  end function bal_rebalance_grain_time

  !> Smallest wall time of reps calls of fn(arg) (arg default null).
  !> @return BAL_OK; BAL_EINVAL (fn absent or not associated, reps < 1).
  function bal_rebalance_time_min(fn, reps, min_s, arg) result(rc)
    procedure(bal_rebalance_work_fn), optional :: fn
    integer(c_int), intent(in) :: reps
    real(c_double), intent(inout) :: min_s
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: rc
    type(c_ptr) :: a
    real(c_double) :: t
    if (.not. present(fn)) then
      rc = BAL_EINVAL
      return
    end if
    a = c_null_ptr
    if (present(arg)) a = arg
    rc = c_rebalance_time_min(c_funloc(fn), a, reps, t)
    if (rc == BAL_OK) min_s = t
  end function bal_rebalance_time_min

  !> Measure t_fixed and t_incr of the grain model on comm (collective).
  !> @return BAL_OK; BAL_EINVAL (MPI_COMM_NULL, elem_bytes, elems or reps
  !> < 1, message too large); BAL_ENOMEM; BAL_EMPI.
  function bal_rebalance_measure_shift(comm, elem_bytes, elems, reps, t_fixed, t_incr) result(rc)
    type(MPI_Comm), intent(in) :: comm
    integer(c_size_t), intent(in) :: elem_bytes
    integer(c_int64_t), intent(in) :: elems
    integer(c_int), intent(in) :: reps
    real(c_double), intent(inout) :: t_fixed, t_incr
    integer(c_int) :: rc
    real(c_double) :: f, i
    rc = c_rebalance_measure_shift(comm%MPI_VAL, elem_bytes, elems, reps, f, i)
    if (rc /= BAL_OK) return
    t_fixed = f
    t_incr = i
  end function bal_rebalance_measure_shift

  ! ---------------------------------------------------------------- rebalance_geo

  !> Fill cfg with the defaults of ballast/rebalance_geo.h (rebalance's
  !> measurement defaults, method rcb, dim 2, the unit box). @return BAL_OK.
  function bal_rebalance_geo_config_init(cfg) result(rc)
    type(bal_rebalance_geo_config), intent(out) :: cfg
    integer(c_int) :: rc
    rc = c_rebalance_geo_config_init(cfg)
  end function bal_rebalance_geo_config_init

  !> Create a geometric balancer on comm (collective; the ranks check that
  !> they passed the same configuration). method: a partition method name
  !> (default: cfg's, rcb after bal_rebalance_geo_config_init).
  !> @return as bal_rebalance_geo_create in ballast/rebalance_geo.h.
  function bal_rebalance_geo_create(comm, cfg, cb, g, method) result(rc)
    type(MPI_Comm), intent(in) :: comm
    type(bal_rebalance_geo_config), intent(in) :: cfg
    type(bal_rebalance_geo_callbacks), intent(in) :: cb
    type(bal_rebalance_geo), intent(inout) :: g
    character(len=*), intent(in), optional :: method
    integer(c_int) :: rc
    type(bal_rebalance_geo_config) :: c
    type(bal_rebalance_geo_callbacks) :: callbacks
    character(kind=c_char), allocatable, target :: name(:)
    type(c_ptr) :: p
    c = cfg
    if (present(method)) then
      name = bal_to_c_string(method)
      c%partition%method = c_loc(name) ! read during the call only
    end if
    callbacks = cb
    rc = c_rebalance_geo_create(comm%MPI_VAL, c, callbacks, p)
    if (rc == BAL_OK) g%ptr = p
  end function bal_rebalance_geo_create

  !> Mark the start of this iteration's computation. @return BAL_OK;
  !> BAL_EINVAL if g is null.
  function bal_rebalance_geo_mark(g) result(rc)
    type(bal_rebalance_geo), intent(in) :: g
    integer(c_int) :: rc
    rc = c_rebalance_geo_mark(g%ptr)
  end function bal_rebalance_geo_mark

  !> The load-balancing hook, once per iteration on every rank.
  !> compute_s: seconds computed (default BAL_REBALANCE_MEASURE); moved
  !> (optional): items this rank sent plus received.
  !> @return as bal_rebalance_geo_step (collective errors).
  function bal_rebalance_geo_step(g, compute_s, moved) result(rc)
    type(bal_rebalance_geo), intent(in) :: g
    real(c_double), intent(in), optional :: compute_s
    integer(c_int64_t), intent(inout), optional :: moved
    integer(c_int) :: rc
    real(c_double) :: t
    integer(c_int64_t) :: m
    t = BAL_REBALANCE_MEASURE
    if (present(compute_s)) t = compute_s
    rc = c_rebalance_geo_step(g%ptr, t, m)
    if (rc == BAL_OK .and. present(moved)) moved = m
  end function bal_rebalance_geo_step

  !> Partition now and move the items (collective).
  !> @return as bal_rebalance_geo_partition.
  function bal_rebalance_geo_partition(g, moved) result(rc)
    type(bal_rebalance_geo), intent(in) :: g
    integer(c_int64_t), intent(inout), optional :: moved
    integer(c_int) :: rc
    integer(c_int64_t) :: m
    rc = c_rebalance_geo_partition(g%ptr, m)
    if (rc == BAL_OK .and. present(moved)) moved = m
  end function bal_rebalance_geo_partition

  !> Whether a decomposition exists (after the first move).
  logical function bal_rebalance_geo_has_result(g)
    type(bal_rebalance_geo), intent(in) :: g
    bal_rebalance_geo_has_result = c_associated(c_rebalance_geo_result(g%ptr))
  end function bal_rebalance_geo_has_result

  !> This rank's region: a box [lo, hi] for the box methods; for the curve
  !> methods lo(1) and hi(1) hold the interval's first key and the first
  !> key after it (as doubles: exact below 2^53). @return BAL_OK;
  !> BAL_ENOTFOUND before the first move; BAL_EINVAL if g is null.
  function bal_rebalance_geo_region(g, lo, hi) result(rc)
    type(bal_rebalance_geo), intent(in) :: g
    real(c_double), intent(inout) :: lo(3), hi(3)
    integer(c_int) :: rc
    real(c_double) :: l(3), h(3)
    rc = c_rebalance_geo_region(g%ptr, l, h)
    if (rc /= BAL_OK) return
    lo = l
    hi = h
  end function bal_rebalance_geo_region

  !> This rank's neighbours (ranks, ascending) into list; returns how many
  !> there are (more than size(list): only size(list) written), or
  !> BAL_ENOTFOUND before the first move, BAL_EINVAL if g is null.
  function bal_rebalance_geo_neighbors(g, list) result(n)
    type(bal_rebalance_geo), intent(in) :: g
    integer(c_int), intent(inout) :: list(:)
    integer(c_int) :: n
    n = c_rebalance_geo_neighbors(g%ptr, list, int(size(list), c_int))
  end function bal_rebalance_geo_neighbors

  !> Statistics of this rank. @return BAL_OK; BAL_EINVAL if g is null.
  function bal_rebalance_geo_stats_get(g, stats) result(rc)
    type(bal_rebalance_geo), intent(in) :: g
    type(bal_rebalance_stats), intent(inout) :: stats
    integer(c_int) :: rc
    type(bal_rebalance_stats) :: tmp
    rc = c_rebalance_geo_stats_get(g%ptr, tmp)
    if (rc == BAL_OK) stats = tmp
  end function bal_rebalance_geo_stats_get

  !> Free a geometric balancer (collective, before MPI_Finalize); g becomes
  !> null.
  subroutine bal_rebalance_geo_destroy(g)
    type(bal_rebalance_geo), intent(inout) :: g
    call c_rebalance_geo_destroy(g%ptr)
    g%ptr = c_null_ptr
  end subroutine bal_rebalance_geo_destroy

end module ballast_mpi
