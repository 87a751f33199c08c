!> The Fortran twin of examples/heat_geo: a 2-D heat equation on NX x NY
!> cells whose cost is 8 inside a disc of radius 16 that crosses the grid
!> (1 elsewhere), decomposed in 2-D by the geometric balancer of module
!> ballast_mpi (bal_rebalance_geo_*) with any partition method, or none.
!> The cells are the items: the balancer reads their centres, packs and
!> unpacks them by (0-based) index and tells each rank its region.
!>
!> Shorter than the C twin on purpose: the compute time given to the
!> balancer is the emulated work itself (cost x 2e-6 s, no sleeping), and
!> the whole field is gathered every step instead of the halos. The
!> arithmetic is the C twin's, cell for cell, so both print the same
!> checksum bits whatever the method and the number of ranks.
!>
!> Build (installed Ballast):
!>   mpif90 -ffp-contract=off heat_geo.f90 $(pkg-config --cflags --libs ballast-fortran-mpi)
!> Run:  mpiexec -n 4 ./a.out [METHOD|none [given|measured [NX NY STEPS]]]
module heat_geo_cells
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: nx = 128, ny = 96, steps = 200
  real(c_double), parameter :: heavy = 8, radius = 16, cell_time = 2e-6_c_double
  real(c_double), parameter :: alpha = 0.2_c_double
  !> This rank's cells: global index (x fastest, from 0) and temperature.
  integer(c_int64_t), allocatable, save :: gid(:)
  real(c_double), allocatable, save :: u(:)
  integer(c_int64_t), save :: n = 0
  integer, save :: step = 0
  !> A packed cell.
  type, bind(c) :: packed_cell
    integer(c_int64_t) :: gid
    real(c_double) :: u
  end type packed_cell
contains
  !> Cost of cell g at step s: the disc moves from left to right.
  pure real(c_double) function cost(g, s)
    integer(c_int64_t), intent(in) :: g
    integer, intent(in) :: s
    real(c_double) :: x, y, cx, cy
    x = real(mod(g, int(nx, c_int64_t)), c_double) + 0.5_c_double
    y = real(g / nx, c_double) + 0.5_c_double
    cx = radius + (real(nx, c_double) - 2 * radius) * real(s, c_double) / real(max(steps - 1, 1), c_double)
    cy = 0.5_c_double * real(ny, c_double)
    cost = 1
    if ((x - cx)**2 + (y - cy)**2 <= radius**2) cost = heavy
  end function cost

  subroutine reserve(m)
    integer(c_int64_t), intent(in) :: m
    integer(c_int64_t), allocatable :: g2(:)
    real(c_double), allocatable :: u2(:)
    if (allocated(gid)) then
      if (size(gid, kind=c_int64_t) >= m) return
    end if
    allocate(g2(max(2 * m, 64_c_int64_t)), u2(max(2 * m, 64_c_int64_t)))
    if (n > 0) then
      g2(1:n) = gid(1:n)
      u2(1:n) = u(1:n)
    end if
    call move_alloc(g2, gid)
    call move_alloc(u2, u)
  end subroutine reserve

  ! ---- the balancer's callbacks ----

  function count_cells(count, arg) bind(c) result(rc)
    integer(c_int64_t), intent(out) :: count
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    count = n
    rc = merge(1, 0, c_associated(arg)) ! no arg is used here
  end function count_cells

  !> Cell centres, interleaved x, y.
  function cell_coords(count, xyz, arg) bind(c) result(rc)
    integer(c_int64_t), value :: count
    real(c_double), intent(out) :: xyz(*)
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t) :: i
    do i = 1, count
      xyz(2 * i - 1) = real(mod(gid(i), int(nx, c_int64_t)), c_double) + 0.5_c_double
      xyz(2 * i) = real(gid(i) / nx, c_double) + 0.5_c_double
    end do
    rc = merge(1, 0, c_associated(arg))
  end function cell_coords

  function cell_weights(count, w, arg) bind(c) result(rc)
    integer(c_int64_t), value :: count
    real(c_double), intent(out) :: w(*)
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    integer(c_int64_t) :: i
    do i = 1, count
      w(i) = cost(gid(i), step)
    end do
    rc = merge(1, 0, c_associated(arg))
  end function cell_weights

  !> Copy the cells with 0-based indices items(1:count) into buf.
  function pack_cells(count, items, buf, bytes, arg) bind(c) result(rc)
    integer(c_int64_t), value :: count
    integer(c_int64_t), intent(in) :: items(*)
    type(c_ptr), value :: buf
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    type(packed_cell), pointer :: p(:)
    integer(c_int64_t) :: j
    rc = 1
    if (bytes /= count * c_sizeof(p(1)) .or. c_associated(arg)) return
    call c_f_pointer(buf, p, [count])
    do j = 1, count
      p(j) = packed_cell(gid(items(j) + 1), u(items(j) + 1))
    end do
    rc = 0
  end function pack_cells

  !> Append the packed cells after the last one.
  function unpack_cells(count, buf, bytes, arg) bind(c) result(rc)
    integer(c_int64_t), value :: count
    type(c_ptr), value :: buf
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: arg
    integer(c_int) :: rc
    type(packed_cell), pointer :: p(:)
    integer(c_int64_t) :: j
    rc = 1
    if (bytes /= count * c_sizeof(p(1)) .or. c_associated(arg)) return
    call c_f_pointer(buf, p, [count])
    call reserve(n + count)
    do j = 1, count
      gid(n + j) = p(j)%gid
      u(n + j) = p(j)%u
    end do
    n = n + count
    rc = 0
  end function unpack_cells

  !> Drop the cells with the ascending 0-based indices items(1:count).
  subroutine remove_cells(count, items, arg) bind(c)
    integer(c_int64_t), value :: count
    integer(c_int64_t), intent(in) :: items(*)
    type(c_ptr), value :: arg
    integer(c_int64_t) :: i, k, w
    k = 1
    w = 0
    do i = 1, n
      if (k <= count) then
        if (items(k) == i - 1) then
          k = k + 1
          cycle
        end if
      end if
      w = w + 1
      gid(w) = gid(i)
      u(w) = u(i)
    end do
    n = w
    if (c_associated(arg)) n = -1 ! never: no arg is used here
  end subroutine remove_cells
end module heat_geo_cells

program heat_geo
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use ballast_mpi
  use heat_geo_cells
  implicit none
  type(bal_rebalance_geo) :: g
  type(bal_rebalance_geo_config) :: cfg
  type(bal_rebalance_geo_callbacks) :: cb
  type(bal_rebalance_stats) :: st
  character(len=32) :: method = 'rcb', weights = 'given', arg
  integer :: rank, size, r, ncell, s, rc, k
  integer(c_int64_t) :: i, lo, hi, g0, x, y, nb(4), moved_all
  integer, allocatable :: cnt(:), dsp(:)
  integer(c_int64_t), allocatable :: allg(:)
  real(c_double), allocatable :: allu(:), val(:)
  real(c_double) :: work, t(2), tmax(2), tsum(2), sum_avg, sum_max, total, sn
  logical :: balance

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  if (command_argument_count() >= 1) call get_command_argument(1, method)
  if (command_argument_count() >= 2) call get_command_argument(2, weights)
  if (command_argument_count() >= 5) then
    call get_command_argument(3, arg)
    read (arg, *) nx
    call get_command_argument(4, arg)
    read (arg, *) ny
    call get_command_argument(5, arg)
    read (arg, *) steps
  end if
  balance = trim(method) /= 'none'
  ncell = nx * ny

  ! rows of cells dealt in order, then a uniform (unit weights) start
  lo = int(ncell, c_int64_t) * rank / size
  hi = int(ncell, c_int64_t) * (rank + 1) / size
  call reserve(hi - lo)
  do g0 = lo, hi - 1
    n = n + 1
    gid(n) = g0
    x = mod(g0, int(nx, c_int64_t))
    y = g0 / nx
    u(n) = real(mod(x * 7 + y * 13, 17_c_int64_t), c_double) / 17.0_c_double
  end do
  rc = bal_rebalance_geo_config_init(cfg)
  cfg%hi(1:2) = [real(nx, c_double), real(ny, c_double)]
  cb%count = c_funloc(count_cells)
  cb%coords = c_funloc(cell_coords)
  cb%pack = c_funloc(pack_cells)
  cb%unpack = c_funloc(unpack_cells)
  cb%remove = c_funloc(remove_cells)
  cb%item_bytes = 16
  rc = bal_rebalance_geo_create(MPI_COMM_WORLD, cfg, cb, g)
  if (rc == BAL_OK) rc = bal_rebalance_geo_partition(g)
  call bal_rebalance_geo_destroy(g)
  if (rc == BAL_OK .and. balance) then
    if (trim(weights) == 'given') cb%weights = c_funloc(cell_weights)
    rc = bal_rebalance_geo_create(MPI_COMM_WORLD, cfg, cb, g, method=trim(method))
  end if
  if (rc /= BAL_OK) then
    if (rank == 0) print '(a, a)', 'heat_geo: ', bal_strerror(rc)
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if

  allocate(cnt(0:size - 1), dsp(0:size - 1), allg(ncell), allu(ncell), val(0:ncell - 1))
  sum_avg = 0
  sum_max = 0
  do s = 0, steps - 1
    step = s
    ! the whole field, gathered (the C twin exchanges only the halos)
    call MPI_Allgather(int(n), 1, MPI_INTEGER, cnt, 1, MPI_INTEGER, MPI_COMM_WORLD)
    dsp(0) = 0
    do r = 1, size - 1
      dsp(r) = dsp(r - 1) + cnt(r - 1)
    end do
    call MPI_Allgatherv(gid, int(n), MPI_INTEGER8, allg, cnt, dsp, MPI_INTEGER8, MPI_COMM_WORLD)
    call MPI_Allgatherv(u, int(n), MPI_DOUBLE_PRECISION, allu, cnt, dsp, MPI_DOUBLE_PRECISION, &
                        MPI_COMM_WORLD)
    val(allg) = allu
    ! explicit diffusion, the boundary at 0, neighbours in the C twin's order
    work = 0
    do i = 1, n
      x = mod(gid(i), int(nx, c_int64_t))
      y = gid(i) / nx
      nb = -1
      if (x > 0) nb(1) = gid(i) - 1
      if (x + 1 < nx) nb(2) = gid(i) + 1
      if (y > 0) nb(3) = gid(i) - nx
      if (y + 1 < ny) nb(4) = gid(i) + nx
      sn = 0
      do k = 1, 4
        if (nb(k) >= 0) then
          sn = sn + val(nb(k))
        else
          sn = sn + 0.0_c_double
        end if
      end do
      u(i) = val(gid(i)) + alpha * (sn - 4.0_c_double * val(gid(i)))
      work = work + cost(gid(i), s)
    end do
    t = [work * cell_time, 0.0_c_double]
    call MPI_Allreduce(t, tmax, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    call MPI_Allreduce(t, tsum, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    sum_avg = sum_avg + tsum(1) / size
    sum_max = sum_max + tmax(1)
    if (balance) then
      rc = bal_rebalance_geo_step(g, work * cell_time)
      if (rc /= BAL_OK) then
        if (rank == 0) print '(a, i0, a, a)', 'heat_geo: step ', s, ': ', bal_strerror(rc)
        call MPI_Abort(MPI_COMM_WORLD, 1)
      end if
    end if
    if (rank == 0 .and. mod(s, 20) == 0) print '(a, i5, a, f6.3)', 'step', s, &
      '  avg/max', tsum(1) / size / tmax(1)
  end do

  ! the checksum: every temperature, in global order, on rank 0
  call MPI_Allgather(int(n), 1, MPI_INTEGER, cnt, 1, MPI_INTEGER, MPI_COMM_WORLD)
  dsp(0) = 0
  do r = 1, size - 1
    dsp(r) = dsp(r - 1) + cnt(r - 1)
  end do
  call MPI_Allgatherv(gid, int(n), MPI_INTEGER8, allg, cnt, dsp, MPI_INTEGER8, MPI_COMM_WORLD)
  call MPI_Allgatherv(u, int(n), MPI_DOUBLE_PRECISION, allu, cnt, dsp, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD)
  val(allg) = allu
  total = 0
  do i = 0, ncell - 1
    total = total + val(i)
  end do
  moved_all = 0
  if (balance) then
    rc = bal_rebalance_geo_stats_get(g, st)
    moved_all = st%items_moved
  end if
  if (rank == 0) then
    print '(a, a, a, f6.3, a, i0)', 'method ', trim(method), ' efficiency ', &
      sum_avg / sum_max, ' moved ', moved_all
    print '(a, z16.16)', 'checksum bits ', transfer(total, 0_c_int64_t)
  end if
  if (balance) call bal_rebalance_geo_destroy(g)
  call MPI_Finalize()
end program heat_geo
