!> Module `ballast_mpi` from Fortran under mpiexec: every bound function of
!> steal and rebalance with its documented results, error codes on bad
!> arguments (null communicator, missing callbacks, unknown names, bad
!> sizes) included, and the layouts of the bind(c) types against C.
module test_mpi_callbacks
  ! Only ballast_mpi: BAL_OK, the other codes, bal_strerror, bal_err_name
  ! and bal_is_null must come with it (reexported_from_ballast).
  use, intrinsic :: iso_c_binding
  use ballast_mpi
  implicit none
  !> This rank's items for the rebalance test: global indices, in order.
  integer(c_int64_t), allocatable, save :: items(:)
  integer, save :: timed_calls = 0
  integer, save :: pack_size_calls = 0, weights_calls = 0
  !> The balancer of the POLL-mode run, for the task to poll, and what the
  !> task and the trace callback saw (one thread in POLL mode: no race).
  type(bal_steal), save :: polled
  integer, save :: polls_ok = 0, polls_bad = 0, work_events = 0, bad_events = 0
  !> The spawning run: a task with input n > 0 spawns children n-1 and n-2
  !> (a Fibonacci tree) and returns n; results summed here by on_result
  !> (on the thread calling bal_steal_run: no race).
  type(bal_steal), save :: spawner
  integer(c_int64_t), save :: spawned_sum = 0, spawned_results = 0, spawn_errors = 0
contains
  recursive function fib_task(input, in_len, output, out_cap, out_len, arg) bind(c) result(rc)
    type(c_ptr), value :: input
    integer(c_size_t), value :: in_len
    type(c_ptr), value :: output
    integer(c_size_t), value :: out_cap
    integer(c_size_t), intent(out) :: out_len
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t), pointer :: n, res
    integer(c_int64_t), target :: child
    rc = 1
    out_len = 0
    if (in_len /= 8 .or. out_cap < 8 .or. c_associated(arg)) return
    call c_f_pointer(input, n)
    call c_f_pointer(output, res)
    if (n > 1) then
      child = n - 1
      if (bal_steal_spawn(spawner, c_loc(child), 8_c_size_t) /= BAL_OK) spawn_errors = spawn_errors + 1
      child = n - 2
      if (bal_steal_spawn(spawner, c_loc(child), 8_c_size_t) /= BAL_OK) spawn_errors = spawn_errors + 1
    end if
    if (bal_steal_queued(spawner) < 0) spawn_errors = spawn_errors + 1
    res = n
    out_len = 8
    rc = 0
  end function fib_task

  subroutine sum_result(result, len, status, arg) bind(c)
    type(c_ptr), value :: result
    integer(c_size_t), value :: len
    integer(c_int), value :: status
    type(c_ptr), value :: arg
    integer(c_int64_t), pointer :: r
    if (status /= 0 .or. len /= 8 .or. c_associated(arg)) then
      spawn_errors = spawn_errors + 1
      return
    end if
    call c_f_pointer(result, r)
    spawned_sum = spawned_sum + r
    spawned_results = spawned_results + 1
  end subroutine sum_result

  recursive function polling_task(input, in_len, output, out_cap, out_len, arg) bind(c) result(rc)
    type(c_ptr), value :: input
    integer(c_size_t), value :: in_len
    type(c_ptr), value :: output
    integer(c_size_t), value :: out_cap
    integer(c_size_t), intent(out) :: out_len
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    if (bal_steal_poll(polled) == BAL_OK) then
      polls_ok = polls_ok + 1
    else
      polls_bad = polls_bad + 1
    end if
    rc = twice_plus_one(input, in_len, output, out_cap, out_len, arg)
  end function polling_task

  subroutine count_trace(arg, ev, t0, t1, peer) bind(c)
    type(c_ptr), value :: arg
    integer(c_int), value :: ev
    real(c_double), value :: t0, t1
    integer(c_int), value :: peer
    if (ev == BAL_STEAL_EV_WORK) work_events = work_events + 1
    if (t1 < t0 .or. t0 < 0 .or. peer < -1 .or. c_associated(arg)) bad_events = bad_events + 1
  end subroutine count_trace

  function pack_size_items(end, skip, count, bytes, arg) bind(c) result(rc)
    integer(c_int), value :: end
    integer(c_int64_t), value :: skip, count
    integer(c_size_t), intent(out) :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    pack_size_calls = pack_size_calls + 1
    bytes = 8 * count
    rc = 0
    if (c_associated(arg) .or. skip < 0 .or. (end /= BAL_REBALANCE_LOW .and. &
      end /= BAL_REBALANCE_HIGH)) rc = 1
  end function pack_size_items

  !> Unit costs: the same cuts as counts, through the weights path.
  function unit_weights(count, w, arg) bind(c) result(rc)
    integer(c_int64_t), value :: count
    real(c_double), intent(out) :: w(count)
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    weights_calls = weights_calls + 1
    w = 1
    rc = merge(0, 1, count == size(items) .and. .not. c_associated(arg))
  end function unit_weights

  !> Task: the input is one int64 v; the result is 2v + 1, or the task
  !> fails with status 7 when v ends in 3.
  recursive function twice_plus_one(input, in_len, output, out_cap, out_len, arg) bind(c) result(rc)
    type(c_ptr), value :: input
    integer(c_size_t), value :: in_len
    type(c_ptr), value :: output
    integer(c_size_t), value :: out_cap
    integer(c_size_t), intent(out) :: out_len
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t), pointer :: v, r
    rc = 1
    out_len = 0
    if (in_len /= 8 .or. out_cap < 8 .or. c_associated(arg)) return
    call c_f_pointer(input, v)
    call c_f_pointer(output, r)
    if (mod(v, 10_c_int64_t) == 3) then
      rc = 7
      return
    end if
    r = 2 * v + 1
    out_len = 8
    rc = 0
  end function twice_plus_one

  function count_items(n, arg) bind(c) result(rc)
    integer(c_int64_t), intent(out) :: n
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    n = size(items, kind=c_int64_t)
    rc = merge(0, 1, .not. c_associated(arg))
  end function count_items

  function pack_items(end, skip, count, buf, bytes, arg) bind(c) result(rc)
    integer(c_int), value :: end
    integer(c_int64_t), value :: skip, count
    type(c_ptr), value :: buf
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t), pointer :: out(:)
    integer(c_int64_t) :: n, first
    rc = 1
    if (bytes /= 8 * count .or. c_associated(arg)) return
    call c_f_pointer(buf, out, [count])
    n = size(items, kind=c_int64_t)
    if (end == BAL_REBALANCE_LOW) then
      first = skip + 1
    else
      first = n - skip - count + 1
    end if
    out = items(first:first + count - 1)
    rc = 0
  end function pack_items

  function unpack_items(end, count, buf, bytes, arg) bind(c) result(rc)
    integer(c_int), value :: end
    integer(c_int64_t), value :: count
    type(c_ptr), value :: buf
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t), pointer :: in(:)
    rc = 1
    if (bytes /= 8 * count .or. c_associated(arg)) return
    call c_f_pointer(buf, in, [count])
    if (end == BAL_REBALANCE_LOW) then
      items = [in, items]
    else
      items = [items, in]
    end if
    rc = 0
  end function unpack_items

  subroutine remove_items(end, count, arg) bind(c)
    integer(c_int), value :: end
    integer(c_int64_t), value :: count
    type(c_ptr), value :: arg
    integer(c_int64_t) :: n
    if (c_associated(arg)) return
    n = size(items, kind=c_int64_t)
    if (end == BAL_REBALANCE_LOW) then
      items = items(count + 1:n)
    else
      items = items(1:n - count)
    end if
  end subroutine remove_items

  !> What module ballast_mpi re-exports from module ballast, seen from a
  !> module that uses ballast_mpi alone.
  logical function reexported_from_ballast()
    type(bal_steal) :: s
    type(bal_rebalance) :: rb
    logical :: text, name
    text = bal_strerror(BAL_EINVAL) == 'invalid argument'
    name = bal_err_name(BAL_ETIMEDOUT) == 'BAL_ETIMEDOUT'
    reexported_from_ballast = BAL_OK == 0 .and. BAL_EINVAL == -1 .and. text .and. name .and. &
      bal_is_null(s) .and. bal_is_null(rb)
  end function reexported_from_ballast

  subroutine timed(arg) bind(c)
    type(c_ptr), value :: arg
    if (.not. c_associated(arg)) timed_calls = timed_calls + 1
  end subroutine timed
end module test_mpi_callbacks

program test_ballast_mpi
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use ballast
  use ballast_mpi
  use fcheck
  use test_mpi_callbacks
  implicit none
  integer :: rank, nranks, provided

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call test_steal()
  call test_rebalance()
  call test_grain()
  if (rank == 0) call test_layouts()
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
  if (rank /= 0 .and. failures > 0) error stop 1
  if (rank == 0) call finish('test_ballast_mpi')

contains

  subroutine test_steal()
    integer(c_int), parameter :: ntasks = 20
    type(bal_steal) :: s, bad
    type(bal_steal_config) :: cfg
    type(bal_steal_stats) :: st
    integer(c_int64_t), target :: v
    integer(c_int64_t) :: id, total, expect
    integer(c_int64_t), pointer :: r
    type(c_ptr) :: data
    integer(c_size_t) :: nbytes
    integer(c_int) :: status, i
    procedure(bal_steal_fn), pointer :: none
    logical :: smallworld
    none => null()

    smallworld = .false.
    i = 0
    do while (len(bal_steal_policy_name(i)) > 0)
      if (bal_steal_policy_name(i) == 'smallworld') smallworld = .true.
      i = i + 1
    end do
    call check(smallworld .and. i >= 5, 'policy names list smallworld and four more')
    call check(bal_steal_policy_name(-1_c_int) == '', 'no policy -1')

    call check(bal_steal_config_init(cfg) == BAL_OK, 'steal config init')
    call check(bal_c_string(cfg%policy) == 'smallworld', 'default policy')
    call check(cfg%steal_fraction == 0.5_c_double, 'default steal fraction')
    call check(cfg%route_buffer_bytes == 65536, 'default route buffer')
    call check(cfg%progress == BAL_STEAL_PROGRESS_AUTO, 'default progress')
    call check(cfg%overlay_seed == 1 .and. cfg%seed == 1, 'default seeds')

    call check(bal_steal_create(MPI_COMM_NULL, s) == BAL_EINVAL, 'null communicator refused')
    call check(.not. c_associated(s%ptr), 'handle untouched')
    call check(bal_steal_create(MPI_COMM_WORLD, s, policy='bogus') == BAL_EINVAL, &
      'unknown policy refused')
    cfg%steal_fraction = 2
    call check(bal_steal_create(MPI_COMM_WORLD, s, cfg) == BAL_EINVAL, 'steal fraction 2 refused')
    call check(bal_steal_config_init(cfg) == BAL_OK, 'config init again')
    call check(bal_steal_create(MPI_COMM_WORLD, s, cfg, policy='random') == BAL_OK, &
      'create, policy random')

    call check(bal_steal_add_task(bad, c_loc(v), 8_c_size_t) == BAL_EINVAL, 'null balancer')
    call check(bal_steal_add_task(s, c_null_ptr, 8_c_size_t) == BAL_EINVAL, &
      'null input with a length refused')
    do i = 0, ntasks - 1
      v = 1000 * rank + i
      call check(bal_steal_add_task(s, c_loc(v), 8_c_size_t, id) == BAL_OK, 'add task')
      call check(id == i, 'ids count from 0')
    end do
    call check(bal_steal_set_estimate(s, -1.0_c_double) == BAL_EINVAL, 'negative estimate')
    call check(bal_steal_set_estimate(s, real(ntasks, c_double)) == BAL_OK, 'estimate')
    call check(bal_steal_poll(s) == BAL_ENOTSUP, 'poll outside a task')
    call check(bal_steal_run(s, none, 8_c_size_t) == BAL_EINVAL, 'task function not associated')
    call check(bal_steal_run(s, twice_plus_one, 8_c_size_t) == BAL_OK, 'run')

    do i = 0, ntasks - 1
      v = 1000 * rank + i
      call check(bal_steal_result(s, int(i, c_int64_t), data, nbytes, status) == BAL_OK, 'result')
      if (mod(i, 10) == 3) then
        call check(status == 7 .and. nbytes == 0, 'failed task reports its status')
      else
        call check(status == 0 .and. nbytes == 8, 'task succeeded')
        call c_f_pointer(data, r)
        call check(r == 2 * v + 1, 'result of the own task')
      end if
    end do
    call check(bal_steal_result(s, int(ntasks, c_int64_t), status=status) == BAL_EINVAL, &
      'unknown id refused')
    call check(bal_steal_stats_get(s, st) == BAL_OK, 'stats')
    call check(st%tasks_own == ntasks, 'tasks_own')
    call check(st%failed == 2, 'two own tasks failed')
    total = st%executed_own + st%executed_stolen
    call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    expect = int(ntasks, c_int64_t) * nranks
    call check(total == expect, 'every task executed exactly once')
    call check(bal_steal_stats_get(bad, st) == BAL_EINVAL, 'stats of a null balancer')
    call check(.not. bal_is_null(s), 'a created balancer is not null')
    call bal_steal_destroy(s)
    call check(.not. c_associated(s%ptr), 'destroy nulls the handle')
    call check(bal_is_null(s) .and. bal_is_null(bad), 'bal_is_null after destroy, never created')
    call check(reexported_from_ballast(), 'ballast_mpi re-exports the codes and bal_strerror')

    ! POLL progress: the task polls (BAL_OK inside a task); the trace
    ! callback sees one WORK event per task run here.
    call check(bal_steal_config_init(cfg) == BAL_OK, 'config init, poll')
    cfg%progress = BAL_STEAL_PROGRESS_POLL
    cfg%trace = c_funloc(count_trace)
    call check(bal_steal_create(MPI_COMM_WORLD, polled, cfg) == BAL_OK, 'create, poll')
    do i = 0, ntasks - 1
      v = 1000 * rank + i
      call check(bal_steal_add_task(polled, c_loc(v), 8_c_size_t) == BAL_OK, 'add, poll')
    end do
    call check(bal_steal_run(polled, polling_task, 8_c_size_t) == BAL_OK, 'run, poll')
    call check(bal_steal_stats_get(polled, st) == BAL_OK, 'stats, poll')
    call check(polls_bad == 0 .and. polls_ok == st%executed_own + st%executed_stolen, &
      'bal_steal_poll is BAL_OK inside every task')
    call check(work_events == polls_ok .and. bad_events == 0, 'one WORK event per task')
    call bal_steal_destroy(polled)

    ! Spawning: rank 0 adds fib(12)'s root; every task spawns its two
    ! children; on_result sums the spawned tasks' inputs on the rank that
    ! spawned each. Over all ranks: every node but the root, once.
    call check(bal_steal_config_init(cfg) == BAL_OK, 'config init, spawn')
    cfg%on_result = c_funloc(sum_result)
    call check(bal_steal_create(MPI_COMM_WORLD, spawner, cfg) == BAL_OK, 'create, spawn')
    v = 12
    call check(bal_steal_spawn(spawner, c_loc(v), 8_c_size_t) == BAL_EINVAL, &
      'spawn outside a task refused')
    if (rank == 0) call check(bal_steal_add_task(spawner, c_loc(v), 8_c_size_t) == BAL_OK, 'add root')
    call check(bal_steal_run(spawner, fib_task, 8_c_size_t) == BAL_OK, 'run, spawn')
    call check(bal_steal_stats_get(spawner, st) == BAL_OK, 'stats, spawn')
    call check(spawn_errors == 0 .and. st%results_delivered == spawned_results, &
      'every spawned result delivered once, to on_result')
    call MPI_Allreduce(MPI_IN_PLACE, spawned_sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Allreduce(MPI_IN_PLACE, spawned_results, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    ! The fib(12) call tree has 465 nodes; their inputs sum to 972 (960 without the root).
    call check(spawned_results == 464 .and. spawned_sum == 960, 'the whole spawned tree, once')
    call bal_steal_destroy(spawner)
  end subroutine test_steal

  subroutine test_rebalance()
    type(bal_rebalance) :: rb, bad
    type(bal_rebalance_config) :: cfg
    type(bal_rebalance_callbacks) :: cb, missing
    type(bal_rebalance_stats) :: st
    integer(c_int64_t) :: n, moved, total_moved, i, first, counts(64)
    integer :: k

    call check(bal_rebalance_balancer_name(0_c_int) == 'string', 'balancer 0')
    call check(bal_rebalance_balancer_name(1_c_int) == 'direct', 'balancer 1')
    call check(bal_rebalance_balancer_name(2_c_int) == 'none', 'balancer 2')
    call check(bal_rebalance_balancer_name(3_c_int) == '', 'no balancer 3')
    call check(bal_rebalance_filter_name(BAL_REBALANCE_FILTER_FIXED) == 'fixed', 'filter name')
    call check(bal_rebalance_filter_name(9_c_int) == '', 'no filter 9')

    call check(bal_rebalance_config_init(cfg) == BAL_OK, 'rebalance config init')
    call check(bal_c_string(cfg%balancer) == 'string', 'default balancer')
    call check(cfg%threshold == 0.10_c_double .and. cfg%max_interval == 1000, 'defaults')
    call check(logical(cfg%profitability .and. cfg%pipelined), 'default flags true')
    call check(cfg%filter == BAL_REBALANCE_FILTER_ADAPTIVE, 'default filter')

    ! Rank 0 starts with 10 items more than the others; equal rates, so a
    ! rebalance evens them out: 4 + 10 / P each, up to rounding.
    n = 4
    if (rank == 0) n = 14
    call MPI_Exscan(n, first, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) first = 0
    items = [(first + i, i = 0, n - 1)]

    cb%count = c_funloc(count_items)
    cb%pack = c_funloc(pack_items)
    cb%unpack = c_funloc(unpack_items)
    cb%remove = c_funloc(remove_items)
    cb%item_bytes = 8
    missing = cb
    missing%pack = c_null_funptr
    call check(bal_rebalance_create(MPI_COMM_NULL, cb, rb) == BAL_EINVAL, 'null communicator')
    call check(bal_rebalance_create(MPI_COMM_WORLD, missing, rb) == BAL_EINVAL, 'missing pack')
    call check(bal_rebalance_create(MPI_COMM_WORLD, cb, rb, balancer='bogus') == BAL_EINVAL, &
      'unknown balancer')
    call check(.not. c_associated(rb%ptr), 'handle untouched')
    cfg%interval = 1
    cfg%threshold = 0
    cfg%profitability = .false.
    cfg%pipelined = .false.
    cfg%filter = BAL_REBALANCE_FILTER_NONE
    call check(bal_rebalance_create(MPI_COMM_WORLD, cb, rb, cfg, 'string') == BAL_OK, 'create')

    call check(bal_rebalance_mark(bad) == BAL_EINVAL, 'mark a null balancer')
    call check(bal_rebalance_step(bad) == BAL_EINVAL, 'step a null balancer')
    call check(bal_rebalance_step(rb, -5.0_c_double) == BAL_EINVAL, 'negative time refused')
    total_moved = 0
    do k = 1, 4
      call check(bal_rebalance_mark(rb) == BAL_OK, 'mark')
      ! One millisecond per item everywhere: equal rates.
      call check(bal_rebalance_step(rb, 1.0e-3_c_double * size(items), moved=moved) == BAL_OK, &
        'step')
      total_moved = total_moved + moved
    end do
    call check(bal_rebalance_step(rb, 1.0e-3_c_double * size(items), &
      int(size(items), c_int64_t)) == BAL_OK, 'step with an item count')
    call MPI_Allreduce(MPI_IN_PLACE, total_moved, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    if (nranks > 1) call check(total_moved > 0, 'items moved')
    n = size(items)
    call MPI_Allgather(n, 1, MPI_INTEGER8, counts, 1, MPI_INTEGER8, MPI_COMM_WORLD)
    call check(maxval(counts(1:nranks)) - minval(counts(1:nranks)) <= 1, 'counts even')
    ! Measured times differ from rank to rank: items may move anywhere, but
    ! none is lost or reordered.
    call check(bal_rebalance_step(rb) == BAL_OK, 'step, measured time, all items')
    n = size(items)
    call MPI_Allgather(n, 1, MPI_INTEGER8, counts, 1, MPI_INTEGER8, MPI_COMM_WORLD)
    call check(sum(counts(1:nranks)) == 10 + 4 * nranks, 'no item lost')
    call MPI_Exscan(n, first, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) first = 0
    call check(all(items == [(first + i, i = 0, n - 1)]), 'global order kept, nothing lost')
    call check(bal_rebalance_stats_get(rb, st) == BAL_OK, 'stats')
    call check(st%steps == 7, 'steps counted (the refused one too)')
    if (nranks > 1) call check(st%rebalances >= 1 .and. st%items_moved > 0, 'rebalances counted')
    call check(bal_rebalance_stats_get(bad, st) == BAL_EINVAL, 'stats of a null balancer')
    ! The measured step above may leave any split, even one already right
    ! for the slow rank below, and then nothing would move there. Even the
    ! counts again (equal rates) so that the run below must move items.
    do k = 1, 3
      call check(bal_rebalance_step(rb, 1.0e-3_c_double * size(items)) == BAL_OK, 'step, even again')
    end do
    n = size(items)
    call MPI_Allgather(n, 1, MPI_INTEGER8, counts, 1, MPI_INTEGER8, MPI_COMM_WORLD)
    ! A move is made only when it shortens the longest part: 6/8/8 of 22
    ! items stays, so "even" here is the longest part at its least.
    call check(maxval(counts(1:nranks)) == (10 + 4 * nranks + nranks - 1) / nranks, &
      'longest part at its least again')
    call check(.not. bal_is_null(rb), 'a created rebalancer is not null')
    call bal_rebalance_destroy(rb)
    call check(.not. c_associated(rb%ptr), 'destroy nulls the handle')
    call check(bal_is_null(rb) .and. bal_is_null(bad), 'bal_is_null after destroy, never created')

    ! The optional callbacks: pack_size and unit weights, with rank 0
    ! taking twice as long per item, so that items leave it.
    cb%pack_size = c_funloc(pack_size_items)
    cb%weights = c_funloc(unit_weights)
    call check(bal_rebalance_create(MPI_COMM_WORLD, cb, rb, cfg) == BAL_OK, 'create, weights')
    do k = 1, 3
      call check(bal_rebalance_step(rb, merge(2.0e-3_c_double, 1.0e-3_c_double, rank == 0) * &
        size(items)) == BAL_OK, 'step, weights')
    end do
    call bal_rebalance_destroy(rb)
    call check(weights_calls > 0, 'weights called')
    k = pack_size_calls
    call MPI_Allreduce(MPI_IN_PLACE, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (nranks > 1) call check(k > 0, 'pack_size called')
    n = size(items)
    call MPI_Allgather(n, 1, MPI_INTEGER8, counts, 1, MPI_INTEGER8, MPI_COMM_WORLD)
    if (nranks > 1) call check(counts(1) < counts(2), 'items left the slow rank')
    call MPI_Exscan(n, first, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) first = 0
    call check(all(items == [(first + i, i = 0, n - 1)]), 'order kept with weights')
  end subroutine test_rebalance

  subroutine test_grain()
    integer(c_int64_t) :: blocks, bs
    real(c_double) :: t, tf, ti
    procedure(bal_rebalance_work_fn), pointer :: none
    none => null()
    call check(bal_rebalance_grain(1.0_c_double, 100_c_int64_t, 4_c_int, 0.0_c_double, &
      0.0_c_double, blocks, bs, t) == BAL_OK, 'grain')
    call check(blocks == 100 .and. bs == 1, 'no message cost: one iteration per block')
    call check(bal_rebalance_grain(1.0_c_double, 100_c_int64_t, 1_c_int, 1.0e-4_c_double, &
      0.0_c_double, blocks) == BAL_OK .and. blocks == 1, 'one processor: one block')
    call check(bal_rebalance_grain(1.0_c_double, -100_c_int64_t, 4_c_int, 0.0_c_double, &
      0.0_c_double, blocks) == BAL_EINVAL, 'negative loop length refused')
    call check(bal_rebalance_grain_time(1.0_c_double, 100_c_int64_t, 4_c_int, 1.0e-4_c_double, &
      0.0_c_double, 10_c_int64_t, blocks, t) == BAL_OK, 'grain time')
    ! (M + p - 1) t_seq / (p M) + (M + p - 2) t_fixed with M = 10, p = 4.
    call check(blocks == 10 .and. abs(t - (13.0_c_double / 40 + 12 * 1.0e-4_c_double)) < 1e-12, &
      'grain model value')
    call check(bal_rebalance_grain_time(1.0_c_double, 100_c_int64_t, 4_c_int, 1.0e-4_c_double, &
      0.0_c_double, -1_c_int64_t, blocks, t) == BAL_EINVAL, 'negative grain refused')
    timed_calls = 0
    call check(bal_rebalance_time_min(timed, 5_c_int, t) == BAL_OK, 'time_min')
    call check(timed_calls == 5 .and. t >= 0, 'time_min ran 5 times')
    call check(bal_rebalance_time_min(timed, 0_c_int, t) == BAL_EINVAL, 'zero repetitions')
    call check(bal_rebalance_time_min(none, 5_c_int, t) == BAL_EINVAL, 'work not associated')
    call check(bal_rebalance_measure_shift(MPI_COMM_WORLD, 8_c_size_t, 16_c_int64_t, 3_c_int, &
      tf, ti) == BAL_OK, 'measure_shift')
    call check(tf >= 0 .and. ti >= 0, 'measured costs >= 0')
    call check(bal_rebalance_measure_shift(MPI_COMM_NULL, 8_c_size_t, 16_c_int64_t, 3_c_int, &
      tf, ti) == BAL_EINVAL, 'measure_shift on a null communicator')
  end subroutine test_grain

  subroutine test_layouts()
    type(bal_steal_config), target :: sc
    type(bal_steal_stats), target :: ss
    type(bal_rebalance_config), target :: rc
    type(bal_rebalance_callbacks), target :: cb
    type(bal_rebalance_stats), target :: rs
    type(bal_rebalance_geo_config), target :: gc
    type(bal_rebalance_geo_callbacks), target :: gb
    integer(c_int64_t) :: b

    b = addr(c_loc(sc))
    call check_layout(1_c_int, 'bal_steal_config', [int(c_sizeof(sc), c_int64_t), &
      addr(c_loc(sc%policy)) - b, addr(c_loc(sc%progress)) - b, &
      addr(c_loc(sc%overlay_degree)) - b, addr(c_loc(sc%overlay_exponent)) - b, &
      addr(c_loc(sc%overlay_seed)) - b, addr(c_loc(sc%seed)) - b, &
      addr(c_loc(sc%steal_fraction)) - b, addr(c_loc(sc%route_buffer_bytes)) - b, &
      addr(c_loc(sc%route_flush_s)) - b, addr(c_loc(sc%poll_interval_s)) - b, &
      addr(c_loc(sc%backoff_max_s)) - b, addr(c_loc(sc%latency_bias)) - b, &
      addr(c_loc(sc%sharing_group_size)) - b, addr(c_loc(sc%trace)) - b, &
      addr(c_loc(sc%trace_arg)) - b, addr(c_loc(sc%workers)) - b, &
      addr(c_loc(sc%on_result)) - b, addr(c_loc(sc%idle_wait)) - b, &
      addr(c_loc(sc%lifelines)) - b], 20)

    b = addr(c_loc(ss))
    call check_layout(2_c_int, 'bal_steal_stats', [int(c_sizeof(ss), c_int64_t), &
      addr(c_loc(ss%tasks_own)) - b, addr(c_loc(ss%executed_own)) - b, &
      addr(c_loc(ss%executed_stolen)) - b, addr(c_loc(ss%tasks_given)) - b, &
      addr(c_loc(ss%steal_attempts)) - b, addr(c_loc(ss%thefts)) - b, &
      addr(c_loc(ss%results_routed)) - b, addr(c_loc(ss%route_messages)) - b, &
      addr(c_loc(ss%failed)) - b, addr(c_loc(ss%messages_sent)) - b, &
      addr(c_loc(ss%bytes_sent)) - b, addr(c_loc(ss%peers_contacted)) - b, &
      addr(c_loc(ss%overlay_degree)) - b, addr(c_loc(ss%spawned)) - b, &
      addr(c_loc(ss%results_delivered)) - b, addr(c_loc(ss%term_waves)) - b, &
      addr(c_loc(ss%work_s)) - b, addr(c_loc(ss%idle_s)) - b, addr(c_loc(ss%run_s)) - b], 20)

    b = addr(c_loc(rc))
    call check_layout(3_c_int, 'bal_rebalance_config', [int(c_sizeof(rc), c_int64_t), &
      addr(c_loc(rc%balancer)) - b, addr(c_loc(rc%filter)) - b, &
      addr(c_loc(rc%filter_h)) - b, addr(c_loc(rc%threshold)) - b, &
      addr(c_loc(rc%profitability)) - b, addr(c_loc(rc%benefit_weight)) - b, &
      addr(c_loc(rc%horizon_s)) - b, addr(c_loc(rc%interval)) - b, &
      addr(c_loc(rc%max_interval)) - b, addr(c_loc(rc%f_interact)) - b, &
      addr(c_loc(rc%workscale)) - b, addr(c_loc(rc%quantum_s)) - b, &
      addr(c_loc(rc%quantum_scale)) - b, addr(c_loc(rc%pipelined)) - b], 15)

    b = addr(c_loc(cb))
    call check_layout(4_c_int, 'bal_rebalance_callbacks', [int(c_sizeof(cb), c_int64_t), &
      addr(c_loc(cb%count)) - b, addr(c_loc(cb%pack_size)) - b, addr(c_loc(cb%pack)) - b, &
      addr(c_loc(cb%unpack)) - b, addr(c_loc(cb%remove)) - b, &
      addr(c_loc(cb%item_bytes)) - b, addr(c_loc(cb%arg)) - b, &
      addr(c_loc(cb%weights)) - b], 9)

    b = addr(c_loc(rs))
    call check_layout(5_c_int, 'bal_rebalance_stats', [int(c_sizeof(rs), c_int64_t), &
      addr(c_loc(rs%steps)) - b, addr(c_loc(rs%interactions)) - b, &
      addr(c_loc(rs%rebalances)) - b, addr(c_loc(rs%skipped_threshold)) - b, &
      addr(c_loc(rs%skipped_profit)) - b, addr(c_loc(rs%items_sent)) - b, &
      addr(c_loc(rs%items_received)) - b, addr(c_loc(rs%bytes_sent)) - b, &
      addr(c_loc(rs%items_moved)) - b, addr(c_loc(rs%interval)) - b, &
      addr(c_loc(rs%last_verdict)) - b, addr(c_loc(rs%error_rank)) - b, &
      addr(c_loc(rs%rate_raw)) - b, addr(c_loc(rs%rate)) - b, &
      addr(c_loc(rs%filter_h)) - b, addr(c_loc(rs%filter_state)) - b, &
      addr(c_loc(rs%imbalance)) - b, addr(c_loc(rs%reduction)) - b, &
      addr(c_loc(rs%predicted_cost_s)) - b, addr(c_loc(rs%predicted_benefit_s)) - b, &
      addr(c_loc(rs%period_s)) - b, addr(c_loc(rs%interact_s)) - b, &
      addr(c_loc(rs%move_s)) - b, addr(c_loc(rs%migrate_s)) - b], 25)

    b = addr(c_loc(gc))
    call check_layout(15_c_int, 'bal_rebalance_geo_config', [int(c_sizeof(gc), c_int64_t), &
      addr(c_loc(gc%measure)) - b, addr(c_loc(gc%partition)) - b, &
      addr(c_loc(gc%partition%method)) - b, addr(c_loc(gc%partition%parts)) - b, &
      addr(c_loc(gc%partition%grid)) - b, addr(c_loc(gc%partition%min_extent)) - b, &
      addr(c_loc(gc%partition%max_move_fraction)) - b, addr(c_loc(gc%partition%tolerance)) - b, &
      addr(c_loc(gc%partition%remap)) - b, addr(c_loc(gc%partition%incremental)) - b, &
      addr(c_loc(gc%dim)) - b, addr(c_loc(gc%lo)) - b, addr(c_loc(gc%hi)) - b], 14)

    b = addr(c_loc(gb))
    call check_layout(16_c_int, 'bal_rebalance_geo_callbacks', [int(c_sizeof(gb), c_int64_t), &
      addr(c_loc(gb%count)) - b, addr(c_loc(gb%coords)) - b, addr(c_loc(gb%weights)) - b, &
      addr(c_loc(gb%pack_size)) - b, addr(c_loc(gb%pack)) - b, addr(c_loc(gb%unpack)) - b, &
      addr(c_loc(gb%remove)) - b, addr(c_loc(gb%item_bytes)) - b, addr(c_loc(gb%arg)) - b], 10)
  end subroutine test_layouts

end program test_ballast_mpi
