!> Module `ballast` from Fortran: every bound function with its documented
!> results, error codes on bad arguments included, and the layouts of
!> bal_for_stats and of node's types against C.
module test_ballast_bodies
  use, intrinsic :: iso_c_binding
  use ballast
  implicit none
  integer, save :: log_messages = 0
  integer(c_int), save :: log_level = -1
  character(len=16), save :: log_module = ''
contains
  !> Counts each index of [lo, hi) in the array arg points to (0-based
  !> index i is element i + 1), and records the worker that ran it.
  recursive subroutine count_body(lo, hi, arg) bind(c)
    integer(c_int64_t), value :: lo, hi
    type(c_ptr), value :: arg
    integer(c_int), pointer :: seen(:)
    integer(c_int64_t) :: i
    call c_f_pointer(arg, seen, [20000])
    do i = lo, hi - 1
      seen(i + 1) = seen(i + 1) + 1
      seen(i + 10001) = bal_worker_id()
    end do
  end subroutine count_body

  !> Records the messages; here they come from bal_pool_create on the
  !> test's own thread, so no lock is needed.
  recursive subroutine log_counter(level, module, msg, user) bind(c)
    integer(c_int), value :: level
    type(c_ptr), value :: module, msg, user
    log_messages = log_messages + 1
    log_level = level
    log_module = bal_c_string(module)
    if (len(bal_c_string(msg)) == 0) log_messages = -1000
    if (c_associated(user)) continue
  end subroutine log_counter
end module test_ballast_bodies

program test_ballast
  use, intrinsic :: iso_c_binding
  use ballast
  use fcheck
  use test_ballast_bodies
  implicit none

  interface
    function setenv(name, value, overwrite) bind(c, name='setenv') result(rc)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*), value(*)
      integer(c_int), value :: overwrite
      integer(c_int) :: rc
    end function setenv
    function getpid() bind(c, name='getpid') result(pid)
      import :: c_int
      integer(c_int) :: pid
    end function getpid
    function unsetenv(name) bind(c, name='unsetenv') result(rc)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: rc
    end function unsetenv
  end interface

  call test_errors()
  call test_version()
  call test_log()
  call test_pool()
  call test_for()
  call test_for_learn()
  call test_node_mask()
  call test_node()
  call test_layout()
  call finish('test_ballast')

contains

  !> The named parameters are the C codes: every code C names is one of
  !> them, with the same value, and no parameter is unknown to C. The list
  !> (bal_status_names, bal_status_codes) is generated from the same
  !> BAL_STATUS_MAP as the module's parameters; C's bal_err_name() is the
  !> independent side of the comparison.
  subroutine test_errors()
    include 'ballast_status_list.inc'
    integer(c_int) :: code
    integer :: i, known
    call check(bal_status_count >= 14, 'the generated list has every code of 0.2')
    call check(BAL_OK == 0 .and. BAL_EINVAL == -1 .and. BAL_ETIMEDOUT == -13, &
      'codes keep their values')
    do i = 1, bal_status_count
      call check(bal_err_name(bal_status_codes(i)) == trim(bal_status_names(i)), &
        trim(bal_status_names(i)) // ' is ' // bal_err_name(bal_status_codes(i)) // ' in C')
      call check(bal_strerror(bal_status_codes(i)) /= 'unknown error', &
        trim(bal_status_names(i)) // ' has a text')
    end do
    known = 0
    do code = 10, -200, -1
      if (bal_err_name(code) == 'BAL_EUNKNOWN') cycle
      known = known + 1
      call check(any(bal_status_codes == code), &
        'C code ' // bal_err_name(code) // ' has no Fortran parameter')
    end do
    call check(known == bal_status_count, 'C and Fortran know as many status codes')
    call check(bal_strerror(12345_c_int) == 'unknown error', 'strerror of an unknown code')
    call check(bal_err_name(12345_c_int) == 'BAL_EUNKNOWN', 'err_name of an unknown code')
  end subroutine test_errors

  subroutine test_version()
    character(len=32) :: expect
    write (expect, '(i0, ".", i0, ".", i0)') BALLAST_VERSION_MAJOR, BALLAST_VERSION_MINOR, &
      BALLAST_VERSION_PATCH
    call check(bal_version() == BALLAST_VERSION_STRING, 'linked library is ' // bal_version())
    call check(trim(expect) == BALLAST_VERSION_STRING, 'version parameters agree')
    call check(BALLAST_VERSION_NUMBER == BALLAST_VERSION_MAJOR * 10000 + &
      BALLAST_VERSION_MINOR * 100 + BALLAST_VERSION_PATCH, 'version number')
  end subroutine test_version

  !> A bad BALLAST_NUM_THREADS is an error the `for` module logs.
  subroutine test_log()
    procedure(bal_log_fn), pointer :: none
    type(bal_pool) :: pool
    none => null()
    call check(bal_log_set_callback(log_counter, 7_c_int) == BAL_EINVAL, 'log level 7 refused')
    call check(bal_log_set_callback(log_counter, BAL_LOG_DEBUG) == BAL_OK, 'log callback set')
    call check(setenv('BALLAST_NUM_THREADS' // c_null_char, 'abc' // c_null_char, 1_c_int) == 0, &
      'setenv')
    call check(bal_pool_create(pool) == BAL_EINVAL, 'BALLAST_NUM_THREADS=abc refused')
    call check(.not. c_associated(pool%ptr), 'pool untouched on error')
    call check(log_messages == 1, 'one message logged')
    call check(log_level == BAL_LOG_ERROR, 'at level ERROR')
    call check(log_module == 'for', 'by module for')
    call check(bal_log_set_callback(none) == BAL_OK, 'log callback removed')
    call check(bal_pool_create(pool) == BAL_EINVAL, 'still refused')
    call check(log_messages == 1, 'nothing logged once removed')
    call check(unsetenv('BALLAST_NUM_THREADS' // c_null_char) == 0, 'unsetenv')
    call check(bal_log_set_callback(bal_log_stderr, BAL_LOG_ERROR) == BAL_OK, 'bal_log_stderr')
    call check(bal_log_set_callback(none) == BAL_OK, 'silent again')
  end subroutine test_log

  subroutine test_pool()
    type(bal_pool) :: pool, null_pool
    call check(bal_pool_create(pool, -1_c_int) == BAL_EINVAL, 'nthreads -1 refused')
    call check(bal_pool_create(pool, BAL_POOL_MAX_THREADS + 1_c_int) == BAL_EINVAL, &
      'nthreads above the limit refused')
    call check(.not. c_associated(pool%ptr), 'untouched')
    call check(bal_pool_size(null_pool) == BAL_EINVAL, 'size of a null pool')
    call check(bal_pool_create(pool, 3_c_int) == BAL_OK, 'pool of 3')
    call check(bal_pool_size(pool) == 3, 'size 3')
    call check(bal_pool_active(pool) == 3, 'unattached: all 3 active')
    call check(bal_pool_active(null_pool) == BAL_EINVAL, 'active of a null pool')
    call check(.not. bal_is_null(pool) .and. bal_is_null(null_pool), 'bal_is_null of a pool')
    call bal_pool_destroy(pool)
    call check(.not. c_associated(pool%ptr), 'destroy nulls the handle')
    call check(bal_is_null(pool), 'bal_is_null after destroy')
    call bal_pool_destroy(pool) ! a null pool is ignored
    call check(bal_pool_create(pool) == BAL_OK, 'pool of the default size')
    call check(bal_pool_size(pool) >= 1, 'default size >= 1')
    call bal_pool_destroy(pool)
  end subroutine test_pool

  subroutine test_for()
    type(bal_pool) :: pool, null_pool
    type(bal_for_stats) :: st
    integer(c_int), target :: seen(20000)
    procedure(bal_for_body), pointer :: none
    integer :: w
    none => null()
    call check(bal_pool_create(pool, 3_c_int) == BAL_OK, 'pool of 3')
    call check(bal_for_last_stats(pool, st) == BAL_ENOTSUP, 'no stats before a loop')
    seen = 0
    call check(bal_for(pool, 0_c_int64_t, 10000_c_int64_t, count_body, c_loc(seen)) == BAL_OK, &
      'bal_for, automatic grain')
    call check(all(seen(1:10000) == 1), 'every index exactly once')
    call check(all(seen(10001:20000) >= 0 .and. seen(10001:20000) < 3), 'worker ids in range')
    call check(bal_worker_id() == -1, 'worker id -1 outside a body')
    seen = 0
    call check(bal_for(pool, 100_c_int64_t, 9000_c_int64_t, count_body, c_loc(seen), &
      grain=7_c_int64_t) == BAL_OK, 'bal_for, grain 7')
    call check(all(seen(101:9000) == 1) .and. all(seen(1:100) == 0) .and. &
      all(seen(9001:10000) == 0), 'exactly [100, 9000)')
    call check(bal_for_last_stats(pool, st) == BAL_OK, 'stats, all workers')
    call check(st%items == 8900, 'stats count every index')
    call check(st%chunks >= 1 .and. st%wall_seconds >= 0, 'stats plausible')
    do w = 0, 2
      call check(bal_for_last_stats(pool, st, int(w, c_int)) == BAL_OK, 'stats of a worker')
    end do
    call check(bal_for_last_stats(pool, st, 3_c_int) == BAL_EINVAL, 'worker 3 of 3 refused')
    call check(bal_for_last_stats(null_pool, st) == BAL_EINVAL, 'stats of a null pool')
    seen = 0
    call check(bal_for(pool, 0_c_int64_t, 10_c_int64_t, count_body, c_loc(seen), &
      grain=-1_c_int64_t) == BAL_EINVAL, 'negative grain refused')
    call check(bal_for(pool, 0_c_int64_t, 10_c_int64_t, none, c_loc(seen)) == BAL_EINVAL, &
      'body not associated refused')
    call check(bal_for(pool, 10_c_int64_t, 0_c_int64_t, count_body, c_loc(seen)) == BAL_EINVAL, &
      'begin > end refused')
    call check(bal_for(null_pool, 0_c_int64_t, 10_c_int64_t, count_body, c_loc(seen)) == &
      BAL_EINVAL, 'null pool refused')
    call check(bal_for(pool, -huge(0_c_int64_t), huge(0_c_int64_t), count_body, c_loc(seen)) == &
      BAL_EINVAL, 'overflowing range refused')
    call check(bal_for(pool, 5_c_int64_t, 5_c_int64_t, count_body, c_loc(seen)) == BAL_OK, &
      'empty range')
    call check(all(seen == 0), 'nothing ran on errors and empty ranges')
    call bal_pool_destroy(pool)
  end subroutine test_for

  subroutine test_for_learn()
    type(bal_pool) :: pool, other
    type(bal_loop) :: loop, null_loop
    type(bal_loop_info) :: info
    integer(c_int), target :: seen(20000)
    integer :: call_no
    call check(bal_pool_create(pool, 2_c_int) == BAL_OK, 'pool of 2')
    call check(bal_pool_create(other, 2_c_int) == BAL_OK, 'another pool')
    call check(bal_loop_create(loop) == BAL_OK, 'loop memory')
    do call_no = 1, 3
      seen = 0
      call check(bal_for_learn(pool, loop, 0_c_int64_t, 10000_c_int64_t, count_body, &
        c_loc(seen)) == BAL_OK, 'bal_for_learn')
      call check(all(seen(1:10000) == 1), 'learning: every index exactly once')
    end do
    seen = 0
    call check(bal_for_learn(pool, loop, 100_c_int64_t, 9000_c_int64_t, count_body, c_loc(seen), &
      grain=7_c_int64_t) == BAL_OK, 'bal_for_learn, other range, grain 7')
    call check(all(seen(101:9000) == 1) .and. all(seen(1:100) == 0), 'exactly [100, 9000)')
    call check(bal_loop_get_info(loop, info) == BAL_OK, 'info')
    call check(info%calls == 4 .and. info%bytes > 0 .and. info%bytes <= 65536, 'info plausible')
    call check(bal_for_learn(other, loop, 0_c_int64_t, 10_c_int64_t, count_body, c_loc(seen)) == &
      BAL_EINVAL, 'another pool refused')
    call check(bal_for_learn(pool, null_loop, 0_c_int64_t, 10_c_int64_t, count_body, &
      c_loc(seen)) == BAL_EINVAL, 'null loop refused')
    call check(bal_loop_get_info(null_loop, info) == BAL_EINVAL, 'info of a null loop')
    call check(bal_loop_reset(loop) == BAL_OK, 'reset')
    call check(bal_for_learn(other, loop, 0_c_int64_t, 10_c_int64_t, count_body, c_loc(seen)) == &
      BAL_OK, 'after reset, another pool')
    call bal_loop_destroy(loop)
    call bal_loop_destroy(loop)
    call bal_pool_destroy(other)
    call bal_pool_destroy(pool)
  end subroutine test_for_learn

  subroutine test_node_mask()
    type(bal_node_mask) :: m, m2
    call check(bal_node_mask_count(m) == 0, 'a new mask is empty')
    call check(bal_node_mask_add(m, 0_c_int64_t, 3_c_int64_t) == BAL_OK, 'add 0-3')
    call check(bal_node_mask_add(m, 8_c_int64_t, 8_c_int64_t) == BAL_OK, 'add 8')
    call check(bal_node_mask_add(m, 3_c_int64_t, 1_c_int64_t) == BAL_EINVAL, 'last < first')
    call check(bal_node_mask_add(m, 0_c_int64_t, int(BAL_NODE_MAX_CPUS, c_int64_t)) == &
      BAL_EINVAL, 'CPU past the limit')
    call check(bal_node_mask_count(m) == 5, 'five CPUs')
    call check(bal_node_mask_has(m, 8_c_int64_t) .and. .not. bal_node_mask_has(m, 7_c_int64_t), &
      'has')
    call check(.not. bal_node_mask_has(m, -1_c_int64_t), 'has(-1) is false')
    call check(bal_node_mask_format(m) == '0-3,8', 'format: ' // bal_node_mask_format(m))
    call check(bal_node_mask_parse('8,3,0-2', m2) == BAL_OK, 'parse')
    call check(bal_node_mask_equal(m, m2), 'parse gives the same mask')
    call check(bal_node_mask_parse('1-x', m2) == BAL_EINVAL, 'malformed list refused')
    call check(bal_node_mask_equal(m, m2), 'mask untouched on error')
    call check(bal_node_mask_parse('', m2) == BAL_OK .and. bal_node_mask_count(m2) == 0, &
      'empty list')
    call check(bal_node_mask_format(m2) == '', 'empty mask formats as ""')
    call bal_node_mask_zero(m)
    call check(bal_node_mask_count(m) == 0, 'zero')
  end subroutine test_node_mask

  !> A virtual registry of 4 CPUs named after this process: attach with
  !> CPUs 1-2, poll (changed once), detach, destroy.
  subroutine test_node()
    type(bal_node_registry_config) :: rcfg
    type(bal_node_attach_config) :: acfg
    type(bal_node_proc) :: p, none
    type(bal_node_mask) :: want, got
    character(len=64) :: name
    logical :: changed
    write (name, '("/ballast-ftest-", i0)') getpid()
    call check(bal_node_registry_config_init(rcfg) == BAL_OK, 'registry config init')
    call check(rcfg%virtual_cpus == 0 .and. .not. c_associated(rcfg%name), 'registry defaults')
    rcfg%virtual_cpus = 4
    call check(bal_node_registry_create(trim(name), rcfg) == BAL_OK, 'registry created')
    call check(bal_node_registry_create(trim(name), rcfg) == BAL_EBUSY, 'exists')
    rcfg%sharing_factor = 2
    call check(bal_node_registry_create(trim(name) // 'x', rcfg) == BAL_EINVAL, 'SF 2 refused')
    call check(bal_node_attach_config_init(acfg) == BAL_OK, 'attach config init')
    call check(acfg%job == -1 .and. acfg%ranks == 1, 'attach defaults')
    acfg%ranks = 0
    call check(bal_node_attach(p, trim(name), acfg) == BAL_EINVAL, '0 ranks refused')
    call check(bal_node_attach(p, trim(name) // 'x') == BAL_ENOTFOUND, 'no such registry')
    call check(.not. c_associated(p%ptr), 'handle untouched')
    call check(bal_node_mask_parse('1-2', want) == BAL_OK, 'mask 1-2')
    call check(bal_node_attach(p, trim(name), cpus=want) == BAL_OK, 'attached')
    call check(bal_node_poll(p, got, changed) == BAL_OK, 'poll')
    call check(changed .and. bal_node_mask_equal(got, want), 'first poll: changed, CPUs 1-2')
    call check(bal_node_poll(p, got, changed) == BAL_OK, 'poll again')
    call check(.not. changed .and. bal_node_mask_equal(got, want), 'then unchanged')
    call check(bal_node_poll(none) == BAL_EINVAL, 'poll a null handle')
    call check(.not. bal_is_null(p), 'an attached process is not null')
    call check(bal_node_detach(p) == BAL_OK, 'detach')
    call check(.not. c_associated(p%ptr), 'detach nulls the handle')
    call check(bal_is_null(p), 'bal_is_null after detach')
    call check(bal_node_detach(p) == BAL_OK, 'detach a null handle')
    call check(bal_node_registry_destroy(trim(name)) == BAL_OK, 'registry destroyed')
    call check(bal_node_registry_destroy(trim(name)) == BAL_ENOTFOUND, 'destroyed already')
  end subroutine test_node

  subroutine test_layout()
    type(bal_for_stats), target :: s
    integer(c_int64_t) :: got(7), base
    base = addr(c_loc(s))
    got = [int(c_sizeof(s), c_int64_t), addr(c_loc(s%items)) - base, &
      addr(c_loc(s%chunks)) - base, addr(c_loc(s%steals_attempted)) - base, &
      addr(c_loc(s%steals_won)) - base, addr(c_loc(s%busy_seconds)) - base, &
      addr(c_loc(s%wall_seconds)) - base]
    call check_layout(0_c_int, 'bal_for_stats', got, size(got))
    call loop_info_layout()
    call node_layouts()
  end subroutine test_layout

  subroutine loop_info_layout()
    type(bal_loop_info), target :: i
    integer(c_int64_t) :: base
    base = addr(c_loc(i))
    call check_layout(9_c_int, 'bal_loop_info', [int(c_sizeof(i), c_int64_t), &
      addr(c_loc(i%calls)) - base, addr(c_loc(i%learned_calls)) - base, &
      addr(c_loc(i%drops)) - base, addr(c_loc(i%blocks)) - base, &
      addr(c_loc(i%bytes)) - base, addr(c_loc(i%last_error)) - base], 7)
  end subroutine loop_info_layout

  subroutine node_layouts()
    type(bal_node_mask), target :: m
    type(bal_node_registry_config), target :: r
    type(bal_node_attach_config), target :: a
    integer(c_int64_t) :: b
    b = addr(c_loc(m))
    call check_layout(6_c_int, 'bal_node_mask', [int(c_sizeof(m), c_int64_t), &
      addr(c_loc(m%bits)) - b], 2)
    b = addr(c_loc(r))
    call check_layout(7_c_int, 'bal_node_registry_config', [int(c_sizeof(r), c_int64_t), &
      addr(c_loc(r%name)) - b, addr(c_loc(r%virtual_cpus)) - b, &
      addr(c_loc(r%sharing_factor)) - b, addr(c_loc(r%group)) - b], 5)
    b = addr(c_loc(a))
    call check_layout(8_c_int, 'bal_node_attach_config', [int(c_sizeof(a), c_int64_t), &
      addr(c_loc(a%registry)) - b, addr(c_loc(a%job)) - b, addr(c_loc(a%ranks)) - b, &
      addr(c_loc(a%cpus)) - b], 5)
  end subroutine node_layouts

end program test_ballast
