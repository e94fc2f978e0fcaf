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

# The routing cases (perfbot-mail(7), Recipients): a MAINTAINERS file and files of several
# of its sections, then commits that change, rename and delete them.
# commit_tree LABEL AUTHOR_NAME AUTHOR_EMAIL EPOCH < MESSAGE: commits the
# whole work tree (commit() above takes log.txt alone).
commit_tree() {
	printf '%s\n' "$1" >> log.txt
	git add -A
	GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 \
	GIT_AUTHOR_DATE="@$4 +0000" GIT_COMMITTER_DATE="@$4 +0000" \
		git commit -q --no-verify --cleanup=verbatim -F -
	echo "$1 $(git rev-parse HEAD)"
}
# put PATH LINE: PATH holds a small C file ending in LINE
put() {
	mkdir -p "$(dirname "$1")"
	printf '/* %s */\n#include <linux/kernel.h>\n\n%s\n' "$1" "$2" > "$1"
}
cat > MAINTAINERS <<'MAINT'
List of maintainers (the fixture of perfbot's routing tests)
=============================================================

	M: Mail patches to: FullName <address@domain>
	L: Mailing list that is relevant to this area

Maintainers List
----------------

CONTROL GROUP (CGROUP)
M:	Tejun Heo <tj@kernel.example.org>
M:	Zefan Li <lizefan@example.org>
R:	Michal Koutný <mkoutny@example.com>
L:	cgroups@vger.kernel.org
S:	Maintained
T:	git git://git.kernel.org/pub/scm/linux/kernel/git/tj/cgroup.git
F:	Documentation/admin-guide/cgroup-v2.rst
F:	include/linux/cgroup*
F:	kernel/cgroup/
X:	kernel/cgroup/misc.c

MISC CGROUP
M:	Vipin Sharma <vipin@example.com>
L:	cgroups@vger.kernel.org
S:	Maintained
F:	kernel/cgroup/misc.c

MEMORY MANAGEMENT
M:	Andrew Morton <akpm@linux-foundation.example.org>
L:	linux-mm@kvack.org
S:	Maintained
W:	http://www.linux-mm.org
F:	include/linux/mm.h
F:	mm/

NETWORKING DRIVERS
M:	Jakub Kicinski <kuba@example.org>
R:	Tejun Heo <tj@kernel.example.org>
L:	netdev@vger.kernel.org
S:	Odd Fixes
F:	drivers/net/
X:	drivers/net/wireless/

SOUND
M:	Takashi Iwai <tiwai@example.com>
L:	alsa-devel@alsa-project.org (moderated for non-subscribers)
L:	sound-private@example.org (subscribers-only)
S:	Maintained
F:	sound/
K:	\bsnd_pcm_

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
MAINT
put kernel/cgroup/cgroup.c 'static int cgroup_extra;'
put kernel/cgroup/misc.c 'static int misc_extra;'
put mm/page_alloc.c 'static int pcp_batch;'
put include/linux/cgroup.h '#define CGROUP_EXTRA 1'
put drivers/net/ethernet/e1000/main.c 'static int e1000_quirk;'
put drivers/net/wireless/ath.c 'static int ath_extra;'
put sound/core/pcm.c 'static int pcm_extra;'
put lib/sort.c 'static int sort_extra;'
commit_tree route-base 'Fixture' 'fixture@example.org' 1767231600 <<'MSG'
Import MAINTAINERS and the files the routing cases change
MSG

put kernel/cgroup/cgroup.c 'static int cgroup_extra, cgroup_more;'
commit_tree route-cgroup 'Jane Dev' 'jane.dev@example.org' 1767232200 <<'MSG'
cgroup: Count more things

Fixture head commit of a routed case: one section and THE REST.

Signed-off-by: Jane Dev <jane.dev@example.org>
Acked-by: Tejun Heo <tj@kernel.example.org>
MSG

git mv mm/page_alloc.c mm/page_alloc_core.c
put include/linux/cgroup.h '#define CGROUP_EXTRA 2'
commit_tree route-rename 'Rik van Riel' 'riel@example.org' 1767232800 <<'MSG'
mm: Move the page allocator's core into a file of its own

Fixture head commit of a routed case: a rename in one section and a
change in another.

Signed-off-by: Rik van Riel <riel@example.org>
MSG

git rm -q drivers/net/wireless/ath.c
put drivers/net/ethernet/e1000/main.c 'static int e1000_quirk, e1000_other;'
printf 'void f(void) { snd_pcm_period_elapsed(0); }\n' >> lib/sort.c
commit_tree route-delete 'Dev Net' 'dev.net@example.org' 1767233400 <<'MSG'
net: Drop the ath stub and call snd_pcm from lib

Fixture head commit of a routed case: a deletion under an X: exclusion,
a change in a section with a reviewer of another, and a K: keyword.

Signed-off-by: Dev Net <dev.net@example.org>
MSG

put kernel/cgroup/misc.c 'static int misc_extra, misc_more;'
commit_tree route-misc 'Vipin Sharma' 'vipin@example.com' 1767234000 <<'MSG'
cgroup/misc: Count more things

Fixture head commit of a routed case: X: takes the file from its parent
section.

Signed-off-by: Vipin Sharma <vipin@example.com>
MSG

# The fix test results (perfbot-requests(1), Results): the patch a
# maintainer sent, on the regression's head commit, and a later tip with the
# same patch on it (4 columns: base, head, tip, tip + patch).  Made beside
# master from sched-head, so their ids depend on nothing after it.
git checkout -q ':/^sched/fair: Prefer the waker'
commit test-fix 'Peter Zijlstra' 'peterz@example.org' 1767240000 <<'MSG'
sched/fair: Keep the previous CPU for idle wakeups

Fixture commit of the fix test results: the patch on the head commit.

Signed-off-by: Peter Zijlstra <peterz@example.org>
MSG
git branch test-fix
git checkout -q ':/^sched/fair: Prefer the waker'
commit test-tip 'Fixture' 'fixture@example.org' 1767240600 <<'MSG'
sched/core: Account the wakeup latency per runqueue

Fixture commit of the fix test results: the tip the patch went on.
MSG
commit test-tip-fix 'Peter Zijlstra' 'peterz@example.org' 1767241200 <<'MSG'
sched/fair: Keep the previous CPU for idle wakeups

Fixture commit of the fix test results: the patch on the tip.

Signed-off-by: Peter Zijlstra <peterz@example.org>
MSG
git branch test-tip-fix
git checkout -q master
