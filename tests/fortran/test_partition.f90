!> Module `ballast_partition` from Fortran: every method partitions a small
!> grid with every item owned once and symmetric neighbours; regions,
!> transfers (agreeing between sender and receiver, and turning the old
!> owners into the new), quality and moved against counts made here; bad
!> input refused with the outputs untouched; the bind(c) layouts against C.
program test_partition
  use, intrinsic :: iso_c_binding
  use ballast
  use ballast_partition
  use fcheck
  implicit none

  integer, parameter :: nx = 23, ny = 17, n = nx * ny
  real(c_double) :: coords(2 * n), w(n), w2(n)
  integer :: i, m

  do i = 0, n - 1
    coords(2 * i + 1) = mod(i, nx) + 0.5_c_double
    coords(2 * i + 2) = i / nx + 0.5_c_double
    w(i + 1) = 1 + mod(7 * i, 5)
    w2(i + 1) = w(i + 1) + merge(6, 0, mod(i, nx) < 4)
  end do
  call check(bal_partition_method_name(0_c_int) == 'hilbert', 'first method hilbert')
  call check(bal_partition_method_name(5_c_int) == '', 'no sixth method')
  m = 0
  do while (len(bal_partition_method_name(int(m, c_int))) > 0)
    do i = 1, 7
      call one_method(bal_partition_method_name(int(m, c_int)), int(i, c_int))
    end do
    m = m + 1
  end do
  call check(m == 5, 'five methods')
  call bad_input()
  call layouts()
  call finish('test_partition')

contains

  !> Partition afresh, check, then again from those owners on w2.
  subroutine one_method(method, parts)
    character(len=*), intent(in) :: method
    integer(c_int), intent(in) :: parts
    type(bal_partition_config) :: cfg
    type(bal_partition_result) :: r1, r2
    integer(c_int) :: part(n), part2(n)
    character(len=40) :: what
    write (what, '(a, 1x, i0)') method, parts
    call check(bal_partition_config_init(cfg) == BAL_OK, 'config init')
    call check(cfg%parts == 1 .and. cfg%remap .and. cfg%incremental, 'config defaults')
    cfg%parts = parts
    part = -1
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords, part, weights=w, cfg=cfg, method=method, res=r1) == BAL_OK, &
      trim(what) // ': compute')
    call check(.not. bal_is_null(r1), trim(what) // ': result')
    call check(bal_partition_result_method(r1) == method, trim(what) // ': method name')
    call check_result(r1, part, parts, trim(what))
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords, part2, weights=w2, from=part, cfg=cfg, method=method, &
      prev=r1, res=r2) == BAL_OK, trim(what) // ': incremental')
    call check_result(r2, part2, parts, trim(what) // ' step')
    call check_transfers(r2, part, part2, parts, trim(what))
    call bal_partition_result_destroy(r1)
    call bal_partition_result_destroy(r2)
    call check(bal_is_null(r1), 'destroyed')
    call check(bal_partition_result_parts(r1) == 0, 'a null result has no parts')
  end subroutine one_method

  !> Every item in one part in range and inside its part's region (boxes);
  !> neighbours symmetric, without the part itself; quality as counted here.
  subroutine check_result(r, part, parts, what)
    type(bal_partition_result), intent(in) :: r
    integer(c_int), intent(in) :: part(:)
    integer(c_int), intent(in) :: parts
    character(len=*), intent(in) :: what
    type(bal_partition_region) :: reg
    type(bal_partition_quality) :: q
    integer(c_int), allocatable :: nb(:), back(:)
    real(c_double) :: load(0:parts - 1)
    integer(c_int) :: k, j, cnt
    integer :: i
    logical :: inside
    call check(bal_partition_result_parts(r) == parts, what // ': parts')
    call check(all(part >= 0 .and. part < parts), what // ': every item owned by a part')
    load = 0
    inside = .true.
    do i = 1, n
      load(part(i)) = load(part(i)) + w(i)
    end do
    do k = 0, parts - 1
      call check(bal_partition_region_get(r, k, reg) == BAL_OK, what // ': region')
      if (reg%kind == BAL_PARTITION_REGION_BOX) then
        do i = 1, n
          if (part(i) == k) inside = inside .and. all(coords(2 * i - 1:2 * i) >= reg%lo(1:2)) &
            .and. all(coords(2 * i - 1:2 * i) <= reg%hi(1:2))
        end do
      end if
      cnt = bal_partition_neighbors(r, k, nb)
      call check(cnt == size(nb) .and. cnt >= 0, what // ': neighbour count')
      call check(all(nb /= k) .and. all(nb >= 0 .and. nb < parts), what // ': neighbours')
      do j = 1, cnt
        call check(bal_partition_neighbors(r, nb(j), back) >= 0, what // ': neighbour list')
        call check(any(back == k), what // ': neighbours symmetric')
      end do
    end do
    call check(inside, what // ': items inside their boxes')
    call check(bal_partition_region_get(r, parts, reg) == BAL_EINVAL, what // ': region k = parts')
    call check(bal_partition_neighbors(r, -1_c_int) == BAL_EINVAL, what // ': neighbours of -1')
    call check(bal_partition_grid_quality(2_c_int, [int(nx, c_int64_t), int(ny, c_int64_t)], &
      parts, part, q, w) == BAL_OK, what // ': quality')
    call check(abs(q%max_weight - maxval(load)) < 1d-9, what // ': max weight')
    call check(abs(q%avg_weight * parts - sum(w)) < 1d-9, what // ': average weight')
    call check(q%empty_parts == count(load < 0.5d0), what // ': empty parts (weights >= 1)')
  end subroutine check_result

  !> Each transfer in the sender's exports and the receiver's imports; the
  !> items of all transfers are exactly those whose owner changed, and
  !> bal_partition_moved counts them.
  subroutine check_transfers(r, old, new, parts, what)
    type(bal_partition_result), intent(in) :: r
    integer(c_int), intent(in) :: old(:), new(:)
    integer(c_int), intent(in) :: parts
    character(len=*), intent(in) :: what
    type(bal_partition_transfer), allocatable :: ex(:), im(:)
    integer(c_int64_t), pointer :: items(:)
    integer(c_int) :: k, j, e, got(n)
    integer(c_int64_t) :: moved, t
    real(c_double) :: mw
    got = old
    do k = 0, parts - 1
      e = bal_partition_exports(r, k, ex)
      call check(e == size(ex), what // ': export count')
      do j = 1, e
        call check(ex(j)%from == k .and. ex(j)%to /= k, what // ': export ends')
        call check(bal_partition_imports(r, ex(j)%to, im) >= 1, what // ': imports')
        call check(count(im%from == k .and. im%count == ex(j)%count) == 1, &
          what // ': the receiver imports what the sender exports')
        items => bal_partition_transfer_items(ex(j))
        call check(size(items, kind=c_int64_t) == ex(j)%count, what // ': item count')
        do t = 1, size(items)
          call check(old(items(t) + 1) == k, what // ': item exported by its owner')
          got(items(t) + 1) = ex(j)%to
        end do
      end do
    end do
    call check(all(got == new), what // ': transfers turn the old owners into the new')
    call check(bal_partition_moved(old, new, moved, mw, w) == BAL_OK, what // ': moved')
    call check(moved == count(old /= new), what // ': moved items')
    call check(abs(mw - sum(w, mask=old /= new)) < 1d-9, what // ': moved weight')
  end subroutine check_transfers

  subroutine bad_input()
    integer(c_int) :: part(n)
    real(c_double) :: bad(n)
    type(bal_partition_result) :: r
    type(bal_partition_config) :: cfg
    type(bal_partition_quality) :: q
    integer(c_int64_t) :: moved
    call check(bal_partition_config_init(cfg) == BAL_OK, 'config init')
    cfg%parts = 4
    bad = w
    bad(5) = -1
    part = -7
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords, part, weights=bad, cfg=cfg, res=r) == BAL_EINVAL, &
      'negative weight refused')
    call check(all(part == -7) .and. bal_is_null(r), 'outputs untouched')
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [1d0, 1d0], coords, part, &
      cfg=cfg) == BAL_EINVAL, 'coordinates outside the domain refused')
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords, part, cfg=cfg, method='nosuch') == BAL_EINVAL, &
      'unknown method refused')
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords(1:10), part, cfg=cfg) == BAL_EINVAL, 'short coordinates')
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords, part, weights=w(1:3), cfg=cfg) == BAL_EINVAL, &
      'short weights')
    cfg%parts = n + 1
    call check(bal_partition_compute(2_c_int, [0d0, 0d0], [real(nx, c_double), &
      real(ny, c_double)], coords, part, cfg=cfg) == BAL_EINVAL, 'more parts than items')
    call check(all(part == -7), 'part untouched')
    part = 0
    call check(bal_partition_grid_quality(2_c_int, [int(nx, c_int64_t), 2_c_int64_t], &
      1_c_int, part, q) == BAL_EINVAL, 'grid size disagrees with the items')
    moved = -5
    call check(bal_partition_moved(part, part(1:3), moved) == BAL_EINVAL .and. moved == -5, &
      'moved: sizes differ')
  end subroutine bad_input

  subroutine layouts()
    type(bal_partition_config), target :: c
    type(bal_partition_input), target :: i
    type(bal_partition_region), target :: g
    type(bal_partition_transfer), target :: t
    type(bal_partition_quality), target :: q
    integer(c_int64_t) :: b
    b = addr(c_loc(c))
    call check_layout(10_c_int, 'bal_partition_config', [int(c_sizeof(c), c_int64_t), &
      addr(c_loc(c%method)) - b, addr(c_loc(c%parts)) - b, addr(c_loc(c%grid)) - b, &
      addr(c_loc(c%min_extent)) - b, addr(c_loc(c%max_move_fraction)) - b, &
      addr(c_loc(c%tolerance)) - b, addr(c_loc(c%remap)) - b, &
      addr(c_loc(c%incremental)) - b], 9)
    b = addr(c_loc(i))
    call check_layout(11_c_int, 'bal_partition_input', [int(c_sizeof(i), c_int64_t), &
      addr(c_loc(i%dim)) - b, addr(c_loc(i%lo)) - b, addr(c_loc(i%hi)) - b, &
      addr(c_loc(i%n)) - b, addr(c_loc(i%coords)) - b, addr(c_loc(i%weights)) - b, &
      addr(c_loc(i%from)) - b], 8)
    b = addr(c_loc(g))
    call check_layout(12_c_int, 'bal_partition_region', [int(c_sizeof(g), c_int64_t), &
      addr(c_loc(g%kind)) - b, addr(c_loc(g%lo)) - b, addr(c_loc(g%hi)) - b, &
      addr(c_loc(g%key_lo)) - b, addr(c_loc(g%key_hi)) - b], 6)
    b = addr(c_loc(t))
    call check_layout(13_c_int, 'bal_partition_transfer', [int(c_sizeof(t), c_int64_t), &
      addr(c_loc(t%from)) - b, addr(c_loc(t%to)) - b, addr(c_loc(t%count)) - b, &
      addr(c_loc(t%items)) - b], 5)
    b = addr(c_loc(q))
    call check_layout(14_c_int, 'bal_partition_quality', [int(c_sizeof(q), c_int64_t), &
      addr(c_loc(q%imbalance)) - b, addr(c_loc(q%max_weight)) - b, &
      addr(c_loc(q%avg_weight)) - b, addr(c_loc(q%halo_faces)) - b, &
      addr(c_loc(q%neighbors_max)) - b, addr(c_loc(q%neighbors_avg)) - b, &
      addr(c_loc(q%empty_parts)) - b], 8)
  end subroutine layouts

end program test_partition
