#!/bin/sh
# route-repo.sh MAINTAINERS DIR: the fixture repository of tests/t/route-gm.sh.
#
# Its first commit holds the given MAINTAINERS (the real one of Linux 6.1)
# and the files later commits change; each later commit touches real
# kernel paths (taken from linux-source-6.1's file list, none under the
# F: entries that name a directory without a trailing '/') of one or more
# subsystems: changes, additions, deletions, renames, a mode change, a
# binary file, and messages, authors and diff lines that hold K: keywords.
# The content is made up: only the paths and the keyword lines matter.
# Deterministic (fixed dates and identities, no user or system git
# configuration).  Prints "LABEL ID" for each commit.
set -eu
maintainers=${1:?usage: route-repo.sh MAINTAINERS DIR}
dest=${2:?usage: route-repo.sh MAINTAINERS DIR}
GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
GIT_COMMITTER_NAME=Fixture
GIT_COMMITTER_EMAIL=fixture@example.org
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE 2>/dev/null || true
[ ! -e "$dest" ] || { echo "route-repo.sh: $dest already exists" >&2; exit 1; }
git init -q "$dest"
cp "$maintainers" "$dest/MAINTAINERS"
cd "$dest"
git symbolic-ref HEAD refs/heads/master
git config core.autocrlf false
git config commit.gpgsign false

when=1767225600

# put PATH: a small C-like file at PATH
put() {
	mkdir -p "$(dirname "$1")"
	printf '/* %s */\n#include <linux/kernel.h>\n\nstatic int counter;\n\nint f(void)\n{\n\treturn counter;\n}\n' "$1" >"$1"
}

# add PATH LINE: append LINE to PATH
add() {
	printf '%s\n' "$2" >>"$1"
}

# commit LABEL AUTHOR EMAIL < MESSAGE
commit() {
	when=$((when + 600))
	git add -A
	GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 \
	GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
		git commit -q --no-verify --cleanup=verbatim -F -
	echo "$1 $(git rev-parse HEAD)"
}

base="kernel/cgroup/cgroup.c mm/page_alloc.c drivers/net/ethernet/intel/e1000e/netdev.c
fs/ext4/inode.c kernel/sched/fair.c drivers/gpu/drm/i915/i915_drv.h net/ipv4/tcp.c
drivers/usb/core/hub.c arch/x86/kernel/cpu/bugs.c Documentation/admin-guide/cgroup-v2.rst
drivers/md/dm.c sound/soc/codecs/wm8994.c block/blk-mq.c kernel/bpf/verifier.c
drivers/net/phy/phylink.c tools/perf/builtin-record.c include/linux/sched.h
drivers/ptp/ptp_clock.c arch/riscv/kernel/setup.c rust/kernel/lib.rs
lib/zstd/zstd_decompress_module.c drivers/hwmon/lm75.c drivers/reset/reset-simple.c
kernel/cgroup/misc.c scripts/checkpatch.pl fs/btrfs/ctree.c fs/xfs/xfs_inode.c
Documentation/filesystems/btrfs.rst README Makefile drivers/soc/mediatek/mtk-pmic-wrap.c
arch/arm/boot/dts/tegra30.dtsi drivers/net/wireless/ath/ath9k/main.c
drivers/net/ethernet/mediatek/mtk_eth_soc.c drivers/char/random.c kernel/rcu/srcutree.c
drivers/usb/cdns3/cdnsp-gadget.c arch/riscv/net/bpf_jit_comp64.c crypto/aes_generic.c
security/selinux/hooks.c virt/kvm/kvm_main.c drivers/scsi/sd.c drivers/nvme/host/core.c
ipc/msg.c init/main.c drivers/i2c/busses/i2c-designware-core.h
tools/testing/selftests/bpf/progs/btf__core_reloc_arrays___diff_arr_val_sz.c"
for f in $base; do
	put "$f"
done
mkdir -p Documentation/images
printf 'GIF89a\001\000\001\000\000\377\000,\000\000\000\000\001\000\001\000\000\002\000;' >Documentation/images/logo.gif
commit root 'Fixture' 'fixture@example.org' <<'MSG'
Import MAINTAINERS and the files the fixture changes
MSG

add kernel/cgroup/cgroup.c 'int cgroup_extra;'
commit cgroup 'Tejun Heo' 'tj@example.org' <<'MSG'
cgroup: Count extra things

Signed-off-by: Tejun Heo <tj@example.org>
MSG

add mm/page_alloc.c 'static int pcp_batch;'
commit mm 'Mel Gorman' 'mgorman@example.org' <<'MSG'
mm/page_alloc: Tune the pcp batch
MSG

add drivers/net/ethernet/intel/e1000e/netdev.c 'static int e1000e_quirk;'
commit e1000e 'Dev One' 'one@example.org' <<'MSG'
e1000e: Add a quirk
MSG

add fs/ext4/inode.c 'static int ext4_extra;'
commit ext4 'Dev Two' 'two@example.org' <<'MSG'
ext4: Add an extra counter
MSG

add kernel/sched/fair.c 'static int sched_knob;'
commit sched 'Dev Three' 'three@example.org' <<'MSG'
sched/fair: Add a knob
MSG

add drivers/gpu/drm/i915/i915_drv.h '#define I915_EXTRA 1'
commit i915 'Dev Four' 'four@example.org' <<'MSG'
drm/i915: Define an extra flag
MSG

add net/ipv4/tcp.c 'int tcp_extra;'
commit tcp 'Dev Five' 'five@example.org' <<'MSG'
tcp: Add a counter
MSG

add drivers/usb/core/hub.c 'static int hub_delay;'
commit usb 'Dev Six' 'six@example.org' <<'MSG'
usb: hub: Add a delay
MSG

add arch/x86/kernel/cpu/bugs.c 'static int mitigation;'
commit x86 'Dev Seven' 'seven@example.org' <<'MSG'
x86/bugs: Add a mitigation switch
MSG

add Documentation/admin-guide/cgroup-v2.rst 'A new paragraph.'
commit cgroup-doc 'Dev Eight' 'eight@example.org' <<'MSG'
docs: cgroup-v2: Describe the extra counter
MSG

# dm-devel@redhat.com is both an M: and an L: of DEVICE-MAPPER
add drivers/md/dm.c 'static int dm_extra;'
commit dm 'Dev Nine' 'nine@example.org' <<'MSG'
dm: Add a counter
MSG

# a moderated list (alsa-devel)
add sound/soc/codecs/wm8994.c 'static int wm8994_gain;'
commit asoc 'Dev Ten' 'ten@example.org' <<'MSG'
ASoC: wm8994: Add a gain control
MSG

add block/blk-mq.c 'static int blk_mq_extra;'
commit block 'Dev Eleven' 'eleven@example.org' <<'MSG'
blk-mq: Add a counter
MSG

# K: (?:\b|_)bpf(?:\b|_) in an added line
add kernel/bpf/verifier.c 'static int check_bpf_prog(struct bpf_prog *prog);'
commit bpf 'Dev Twelve' 'twelve@example.org' <<'MSG'
Verifier: Check programs earlier
MSG

add drivers/net/phy/phylink.c 'static int phylink_extra;'
commit phylink 'Dev Thirteen' 'thirteen@example.org' <<'MSG'
net: phylink: Add a counter
MSG

add tools/perf/builtin-record.c 'static int record_extra;'
commit perf 'Dev Fourteen' 'fourteen@example.org' <<'MSG'
perf record: Add an option
MSG

# a header many sections name
add include/linux/sched.h 'struct task_extra;'
commit sched-h 'Dev Fifteen' 'fifteen@example.org' <<'MSG'
sched.h: Declare struct task_extra
MSG

add drivers/ptp/ptp_clock.c 'static int ptp_extra;'
commit ptp 'Dev Sixteen' 'sixteen@example.org' <<'MSG'
ptp: Add a counter
MSG

add arch/riscv/kernel/setup.c 'static int riscv_extra;'
commit riscv 'Dev Seventeen' 'seventeen@example.org' <<'MSG'
riscv: Add a setup counter
MSG

add rust/kernel/lib.rs '// Rust extra'
commit rust 'Dev Eighteen' 'eighteen@example.org' <<'MSG'
rust: Add a comment
MSG

add lib/zstd/zstd_decompress_module.c 'static int zstd_extra;'
commit zstd 'Dev Nineteen' 'nineteen@example.org' <<'MSG'
zstd: Add a counter
MSG

# an added file: "--- /dev/null" gives get_maintainer.pl the path dev/null
put drivers/pwm/pwm-newchip.c
add drivers/pwm/pwm-newchip.c 'static const struct pwm_ops newchip_ops;'
commit pwm-add 'Dev Twenty' 'twenty@example.org' <<'MSG'
pwm: Add a driver for the new chip
MSG

git rm -q drivers/hwmon/lm75.c
commit hwmon-delete 'Dev TwentyOne' 'twentyone@example.org' <<'MSG'
hwmon: Remove the lm75 driver
MSG

git mv drivers/reset/reset-simple.c drivers/reset/reset-plain.c
commit reset-rename 'Dev TwentyTwo' 'twentytwo@example.org' <<'MSG'
reset: Rename the simple driver
MSG

# a rename from one subsystem into another, with a change
git mv kernel/cgroup/misc.c mm/misc.c
add mm/misc.c 'int misc_moved;'
commit cross-rename 'Dev TwentyThree' 'twentythree@example.org' <<'MSG'
Move the misc controller to mm
MSG

chmod 755 scripts/checkpatch.pl
commit mode-change 'Dev TwentyFour' 'twentyfour@example.org' <<'MSG'
checkpatch: Make it executable
MSG

add fs/btrfs/ctree.c 'static int btrfs_extra;'
add fs/xfs/xfs_inode.c 'static int xfs_extra;'
add Documentation/filesystems/btrfs.rst 'More text.'
commit three-fs 'Dev TwentyFive' 'twentyfive@example.org' <<'MSG'
fs: Add counters to btrfs and xfs
MSG

# K: (?i)pidfd in the message only
add README 'A new line.'
commit pidfd-message 'Dev TwentySix' 'twentysix@example.org' <<'MSG'
README: Mention process file descriptors

This explains how PIDFD_NONBLOCK works.
MSG

# "struct phylink" in a context line: the K: alternatives after its first
# '|' are searched in every line, not only in added or removed ones
printf 'struct phylink *pl;\nint a;\n' >>crypto/aes_generic.c
git add crypto/aes_generic.c
GIT_AUTHOR_NAME=Base GIT_AUTHOR_EMAIL=base@example.org GIT_AUTHOR_DATE="@$((when + 300)) +0000" \
	GIT_COMMITTER_DATE="@$((when + 300)) +0000" git commit -q -m 'crypto: base for the context case'
add crypto/aes_generic.c 'int d;'
commit phylink-context 'Dev TwentySeven' 'twentyseven@example.org' <<'MSG'
crypto: aes: Add a variable
MSG

# K: mediatek in the author's address
add init/main.c 'static int init_extra;'
commit mediatek-author 'Dev TwentyEight' 'dev28@mediatek.com' <<'MSG'
init: Add a counter
MSG

# a top-level file: THE REST alone
add Makefile '# extra'
commit makefile 'Dev TwentyNine' 'twentynine@example.org' <<'MSG'
kbuild: Add a comment
MSG

# N: mtk / mediatek
add drivers/soc/mediatek/mtk-pmic-wrap.c 'static int pwrap_extra;'
commit mtk 'Dev Thirty' 'thirty@example.org' <<'MSG'
soc: mediatek: pwrap: Add a counter
MSG

# N: [^a-z]tegra
add arch/arm/boot/dts/tegra30.dtsi '/* extra */'
commit tegra 'Dev ThirtyOne' 'thirtyone@example.org' <<'MSG'
ARM: dts: tegra30: Add a comment
MSG

# X: drivers/net/wireless/ in NETWORKING DRIVERS
add drivers/net/wireless/ath/ath9k/main.c 'static int ath9k_extra;'
commit ath9k 'Dev ThirtyTwo' 'thirtytwo@example.org' <<'MSG'
wifi: ath9k: Add a counter
MSG

# X: drivers/char/random.c in CHAR and MISC DRIVERS
add drivers/char/random.c 'static int random_extra;'
commit random 'Dev ThirtyThree' 'thirtythree@example.org' <<'MSG'
random: Add a counter
MSG

# X: kernel/rcu/srcu*.c in READ-COPY UPDATE
add kernel/rcu/srcutree.c 'static int srcu_extra;'
commit srcu 'Dev ThirtyFour' 'thirtyfour@example.org' <<'MSG'
srcu: Add a counter
MSG

# X: drivers/usb/cdns3/cdns3* vs cdnsp*
add drivers/usb/cdns3/cdnsp-gadget.c 'static int cdnsp_extra;'
commit cdnsp 'Dev ThirtyFive' 'thirtyfive@example.org' <<'MSG'
usb: cdnsp: Add a counter
MSG

# X: arch/riscv/net/bpf_jit_comp64.c, and bpf in the path
add arch/riscv/net/bpf_jit_comp64.c 'static int jit_extra;'
commit riscv-jit 'Dev ThirtySix' 'thirtysix@example.org' <<'MSG'
riscv, jit: Add a counter
MSG

# a Fixes: line is not searched for keywords (bpf here)
add security/selinux/hooks.c 'static int selinux_extra;'
commit fixes-line 'Dev ThirtySeven' 'thirtyseven@example.org' <<'MSG'
selinux: Add a counter

Fixes: 0123456789ab ("bpf: something")
MSG

# a long path and many changed lines: git cuts the name in the diffstat
i=0
while [ $i -lt 150 ]; do
	add drivers/net/ethernet/mediatek/mtk_eth_soc.c "static int line_$i;"
	i=$((i + 1))
done
add drivers/i2c/busses/i2c-designware-core.h '#define DW_EXTRA 1'
add tools/testing/selftests/bpf/progs/btf__core_reloc_arrays___diff_arr_val_sz.c 'int x;'
commit long-stat 'Dev ThirtyEight' 'thirtyeight@example.org' <<'MSG'
Add many lines to two drivers
MSG

# a binary file: no ---/+++ lines in format-patch's output
printf 'GIF89a\002\000\001\000\000\377\000,\000\000\000\000\001\000\001\000\000\002\000;' >Documentation/images/logo.gif
commit binary 'Dev ThirtyNine' 'thirtynine@example.org' <<'MSG'
docs: Update the logo
MSG

add virt/kvm/kvm_main.c 'static int kvm_extra;'
add drivers/scsi/sd.c 'static int sd_extra;'
add drivers/nvme/host/core.c 'static int nvme_extra;'
add ipc/msg.c 'static int msg_extra;'
commit four-subsystems 'Dev Forty' 'forty@example.org' <<'MSG'
Add counters to kvm, sd, nvme and ipc

Uses clone3() where it can.
MSG

# a merge: routed by what it brings to its first parent
git checkout -q -b side HEAD~2
put drivers/nvme/target/side.c
commit side 'Dev FortyOne' 'fortyone@example.org' <<'MSG'
nvme: Add a counter on a side branch
MSG
git checkout -q master
when=$((when + 600))
GIT_AUTHOR_NAME=Merger GIT_AUTHOR_EMAIL=merger@example.org GIT_AUTHOR_DATE="@$when +0000" \
	GIT_COMMITTER_DATE="@$when +0000" git merge -q --no-ff -m 'Merge branch side' side
echo "merge $(git rev-parse HEAD)"
