#!/bin/sh
# A process limit that leaves room for fewer threads than --threads asks for must end the run with
# an error naming the thread count and the limit, not hang (docs/performance.md, "Threads").
# Usage: thread_limit.sh INVAR_FULL MODEL. RLIMIT_NPROC counts the user's processes and threads and
# root ignores it, so as root the run drops to the unprivileged user nobody.
set -u
invar=$1 model=$2
as_user=
if [ "$(id -u)" = 0 ]; then as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"; fi
err=$(mktemp)
trap 'rm -f "$err"' EXIT
echo "a text" | prlimit --nproc=40 $as_user "$invar" embed -m "$model" --threads 64 >/dev/null 2>"$err"
status=$?
cat "$err"
if [ "$status" -eq 0 ]; then echo "FAIL: the run succeeded with 64 threads under a limit of 40"; exit 1; fi
if ! grep -q 'cannot start 64 CPU threads (--threads 64): the system refused thread [0-9]* (.*); this user may run at most 40 processes and threads (RLIMIT_NPROC' "$err"; then
  echo "FAIL: exit status $status without the error naming the thread count and the limit"; exit 1
fi
