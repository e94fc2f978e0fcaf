#!/bin/sh
# make-demo-repo.sh DIR: the small git repository the demo report is about.
#
# Deterministic (fixed dates and identities, no user or system git
# configuration), so its commit ids are the ones demo-report.json names.
set -eu
dest=${1:?usage: make-demo-repo.sh DIR}
GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
GIT_COMMITTER_NAME='Demo Committer'
GIT_COMMITTER_EMAIL=committer@example.org
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE 2>/dev/null || true
if [ -e "$dest" ]; then
	echo "make-demo-repo.sh: $dest already exists" >&2
	exit 1
fi
git init -q "$dest"
cd "$dest"
git symbolic-ref HEAD refs/heads/master
git config core.autocrlf false
git config commit.gpgsign false
git config tag.gpgsign false

# commit NAME EMAIL EPOCH < MESSAGE
commit() {
	printf '%s\n' "$3" >> history.txt
	git add history.txt
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 \
	GIT_AUTHOR_DATE="@$3 +0000" GIT_COMMITTER_DATE="@$3 +0000" \
		git commit -q --no-verify --cleanup=verbatim -F -
}

commit 'Demo Maintainer' 'maintainer@example.org' 1767225600 <<'MSG'
Linux 6.99-rc1
MSG
GIT_COMMITTER_DATE="@1767225600 +0000" git tag -a -m "Linux 6.99-rc1" v6.99-rc1

# The author's address as the commit has it; .mailmap maps it to the
# address the report goes to.
printf '%s\n' 'Jane Developer <jane@example.org> <jane@old-laptop.example.org>' > .mailmap
git add .mailmap
commit 'Jane Developer' 'jane@old-laptop.example.org' 1767229200 <<'MSG'
mm/folio: zero huge folios with non-temporal stores

Clearing a 2 MiB folio with regular stores pollutes the cache; use
non-temporal stores when the folio is larger than the LLC share.

Signed-off-by: Jane Developer <jane@example.org>
Acked-by: Demo Maintainer <maintainer@example.org>
Reviewed-by: Petra Reviewer <petra@example.org>
Cc: stable@vger.kernel.org # 6.98+
MSG
git rev-parse HEAD
