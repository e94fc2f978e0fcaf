#!/bin/sh
# make-repo.sh DIR: the fixture repository of the golden tests.
#
# Deterministic (fixed dates and identities, no user or system git
# configuration), so the ids the cases' input.json name never change.
# Prints "NAME ID" for each commit it makes.
set -eu
dest=${1:?usage: make-repo.sh DIR}
GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
GIT_COMMITTER_NAME=Fixture
GIT_COMMITTER_EMAIL=fixture@example.org
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE 2>/dev/null || true
[ ! -e "$dest" ] || { echo "make-repo.sh: $dest already exists" >&2; exit 1; }
git init -q "$dest"
cd "$dest"
git symbolic-ref HEAD refs/heads/master
git config core.autocrlf false
git config commit.gpgsign false
git config tag.gpgsign false

# commit LABEL AUTHOR_NAME AUTHOR_EMAIL EPOCH < MESSAGE
commit() {
	printf '%s\n' "$1" >> log.txt
	git add log.txt
	GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 \
	GIT_AUTHOR_DATE="@$4 +0000" GIT_COMMITTER_DATE="@$4 +0000" \
		git commit -q --no-verify --cleanup=verbatim -F -
	echo "$1 $(git rev-parse HEAD)"
}

commit base-release 'Release Manager' 'release@example.org' 1767225600 <<'MSG'
Linux 6.99-rc3
MSG
GIT_COMMITTER_DATE="@1767225600 +0000" git tag -a -m "Linux 6.99-rc3" v6.99-rc3

commit sched-base 'Fixture' 'fixture@example.org' 1767226200 <<'MSG'
sched/fair: Rework the wakeup preemption check

Fixture base commit.
MSG

printf '%s\n' 'Ingo Mølnar <mingo@example.org> <mingo@old.example.org>' > .mailmap
git add .mailmap
commit sched-head 'Ingo Molnar' 'mingo@old.example.org' 1767226800 <<'MSG'
sched/fair: Prefer the waker's CPU for synchronous wakeups

Fixture head commit: non-ASCII author through .mailmap, trailers with
comments, a duplicate Cc and one that is not an address.

Signed-off-by: Ingo Molnar <mingo@old.example.org>
Reviewed-by: Peter Zijlstra (Intel) <peterz@example.org>
Cc: stable@vger.kernel.org # 6.6+
Cc: PETERZ@example.org
Cc: not an address
Link: https://lore.kernel.org/r/20260101000000.1-mingo@example.org
MSG

commit nocolon-head 'José Müller' 'jose@example.org' 1767227400 <<'MSG'
Revert the previous change because it broke the build

Signed-off-by: José Müller <jose@example.org>
MSG

# The legacy golden case (seed 002 of ../shared: a 2018 pxz report).
commit legacy-base 'Fixture' 'fixture@example.org' 1767228000 <<'MSG'
- A stable fix for DM integrity to use kvfree.

Fixture base commit of the legacy case.
MSG
commit legacy-head 'Mel Gorman' 'mgorman@techsingularity.net' 1767228600 <<'MSG'
Revert "sched/numa: Delay retrying placement for automatic NUMA balance after wake_affine()"

Fixture head commit of the legacy case: the subject of seed 002's commit.

Signed-off-by: Mel Gorman <mgorman@techsingularity.net>
MSG

# The 2022 fio-basic case: two fio-basic tests, the second without "kind".
commit fio-base 'Fixture' 'fixture@example.org' 1767229200 <<'MSG'
block: Count the plugged requests of a task

Fixture base commit of the fio-basic case.
MSG
commit fio-head 'Jane Doe' 'jane.doe@example.org' 1767229800 <<'MSG'
block: Flush the plug of a task before it waits for a tag

Fixture head commit of the fio-basic case.

Signed-off-by: Jane Doe <jane.doe@example.org>
Reviewed-by: Jens Axboe <axboe@example.org>
MSG

# The legacy plot-order case: samples listed in another order than the rows.
commit vmscal-base 'Fixture' 'fixture@example.org' 1767230400 <<'MSG'
mm: Fixture base commit of the plot-order case
MSG
commit vmscal-head 'Rik van Riel' 'riel@example.org' 1767231000 <<'MSG'
mm: Batch the TLB flushes of a reclaimed page range

Fixture head commit of the legacy plot-order case.

Signed-off-by: Rik van Riel <riel@example.org>
MSG
