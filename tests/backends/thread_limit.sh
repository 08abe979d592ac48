#!/bin/sh
# A process limit that leaves room for fewer threads than --threads asks for must end the run with
# an error naming the thread count and the limit, never hang or crash (docs/performance.md,
# "Threads"). Usage: thread_limit.sh INVAR_FULL MODEL. RLIMIT_NPROC counts the user's processes and
# threads and root ignores it, so as root the runs drop to the unprivileged user nobody.
set -u
invar=$1 model=$2
as_user=
if [ "$(id -u)" = 0 ]; then as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"; fi
# OpenBLAS starts a thread per core when it loads: one, so the counts below hold on any machine.
export OPENBLAS_NUM_THREADS=1
err=$(mktemp)
sleepers=
cleanup() {
  for pid in $sleepers; do kill "$pid" 2>/dev/null; done
  rm -f "$err"
}
trap cleanup EXIT

# run THREADS EXPECTED: embed at --threads THREADS with at most 40 processes and threads; fails
# unless the run fails with a message matching EXPECTED (a grep pattern).
run() {
  echo "a text" | prlimit --nproc=40 $as_user "$invar" embed -m "$model" --threads "$1" >/dev/null 2>"$err"
  status=$?
  cat "$err"
  if [ "$status" -eq 0 ]; then echo "FAIL: the run succeeded with --threads $1 under a limit of 40"; exit 1; fi
  if [ "$status" -gt 128 ]; then echo "FAIL: the run died of signal $((status - 128))"; exit 1; fi
  if ! grep -q "$2" "$err"; then echo "FAIL: exit status $status without the expected error"; exit 1; fi
}

# The backend sees that 64 threads (and OpenMP's and OpenBLAS's as many) cannot fit before it starts one.
run 64 'needs up to 189 more threads .* this user may run at most 40 processes and threads (RLIMIT_NPROC'
# Other processes of the user hold most of the limit, which the backend cannot see: the pool's own
# thread creation fails, and it stops its started workers instead of waiting on them forever.
for i in $(seq 36); do
  $as_user sleep 120 &
  sleepers="$sleepers $!"
done
run 8 'cannot start 8 CPU threads (--threads 8): the system refused thread [0-9]* (.*); this user may run at most 40 processes and threads (RLIMIT_NPROC'
