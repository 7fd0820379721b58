#!/bin/bash
# setup.sh: prepare a Gradescope image to grade one swaplab lab.
# Gradescope runs it once per image build, as root, from $ROOT/source (the
# unpacked autograder-labNN.zip); ROOT is $AUTOGRADER_ROOT, default
# /autograder (tests/autograder uses a folder of its own).
#   1. the kit: the commit in swaplab.bundle, checked out in $ROOT/swaplab
#   2. Debian packages (scripts/deps: linux-source-6.1 is a Debian 12
#      package, hence the Dockerfile FROM debian:12)
#   3. the kernel work repository (unpacked distro tree, stages, lab starts)
#   4. the kernels a grade of lab NN needs, built once here so that a
#      submission rebuilds only the files it changed: the lab's reference
#      stage and every reference a lockfp check compares with (debug), with
#      their lock_stat runs (cached), then the lab's start, both configs, last
#      (its objects are what a submission's build starts from)
#   5. (SWAPLAB_AUTOGRADER_SELFTEST=1, the default) a grade of the reference
#      stage through the grader, latency included (about 3 min): it must
#      pass every check, or the image cannot grade and the build fails
# Environment: SWAPLAB_WORK, SWAPLAB_CACHE (default: under $ROOT).
set -eu
umask 022                 # what the sandboxed build (user nobody, when root) must read
ROOT=${AUTOGRADER_ROOT:-/autograder}
SRC=$ROOT/source
KIT=${SWAPLAB_AUTOGRADER_KIT:-$ROOT/swaplab}
export SWAPLAB_WORK=${SWAPLAB_WORK:-$ROOT/swaplab-work}
export SWAPLAB_CACHE=${SWAPLAB_CACHE:-$ROOT/swaplab-cache}
# the kit is the bundled one, whoever calls
export SWAPLAB_ROOT=$KIT LINUX_REPO=$SWAPLAB_WORK/linux
t0=$(date +%s)
say() { printf '==> setup.sh (%ss): %s\n' "$(($(date +%s) - t0))" "$*"; }
conf() { sed -n "s/^$1=//p" "$SRC/swaplab-autograder.conf" | tail -n1; }
LAB=$(conf LAB)
COMMIT=$(conf KIT_COMMIT)
REF=$(conf KIT_REF)
# (two digits here; once the kit is checked out, one of its labs)
case "$LAB" in [0-9][0-9]) ;; *) echo "setup.sh: bad LAB '$LAB' in swaplab-autograder.conf" >&2; exit 1 ;; esac
# Gradescope's zip upload builds on Ubuntu, which has no linux-source-6.1
# shellcheck disable=SC1091 # the image's /etc/os-release, not a file of the kit
os=$(. /etc/os-release 2>/dev/null && echo "${ID:-?} ${VERSION_ID:-?}")
if [ "$os" != "debian 12" ]; then
	echo "setup.sh: this is $os; swaplab needs Debian 12 (the kernel is Debian's linux-source-6.1)." >&2
	echo "setup.sh: on Gradescope use the manual Docker configuration with the bundle's Dockerfile (FROM debian:12)." >&2
	exit 1
fi

# 1. the kit (git is the one package needed before the kit's own deps)
if ! command -v git >/dev/null; then
	say "installing git"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null
fi
say "kit ${COMMIT:0:12} into $KIT"
rm -rf "$KIT"
git init -q "$KIT"
git -C "$KIT" fetch -q "$SRC/swaplab.bundle" "$REF"
git -C "$KIT" -c advice.detachedHead=false checkout -q --detach "$COMMIT"
# LAB is one of the kit's labs (its lab table, scripts/lib.sh)
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
bash -c '. "$0/scripts/lib.sh" && lab_check "$1" "setup.sh: LAB in swaplab-autograder.conf"' "$KIT" "$LAB" || exit 1

# 2, 3: packages, work repository
say "Debian packages"
"$KIT/scripts/deps"
say "kernel work repository in $SWAPLAB_WORK"
"$KIT/scripts/setup-tree"
"$KIT/scripts/stages"
"$KIT/scripts/lab-starts"

# 4. kernels.  The references: this lab's stage (latency; lockfp) and the
# stages the lab's lockfp checks compare with (grader/checks.tsv)
bk() { "$KIT/scripts/build-kernel" "$@"; }
mkdir -p "$ROOT/swaplab-setup"
refs=$( (cd "$KIT/grader" && python3 -c '
import sys
from swaplab import checks
for c in checks.select(checks.load(), sys.argv[1], latency=True):
    if c.kind == "lockfp":
        print(c.args[0])' "$LAB") | sort -u)
for cfg in fast debug; do
	say "reference stage $LAB ($cfg)"
	bk --stage "$LAB" --config "$cfg" >/dev/null
done
for s in $refs; do
	say "lock_stat of reference stage $s (debug)"
	img=$(bk --stage "$s" --config debug)
	"$KIT/scripts/lockstat-run" "$img" "$ROOT/swaplab-setup/lockstat-$s" >/dev/null
done
for cfg in fast debug; do
	say "lab $LAB start ($cfg): the objects a submission's build starts from"
	bk --commit "lab-$LAB-start" --lab "$LAB" --config "$cfg" >/dev/null
done

# 5. the reference graded here must score 100
if [ "${SWAPLAB_AUTOGRADER_SELFTEST:-1}" = 1 ]; then
	# (as --commit, not --stage: a stage always boots in the sandbox, which
	# a container without CAP_SYS_ADMIN cannot make; a commit falls back)
	say "self-test: grading reference stage $LAB"
	rc=0
	"$KIT/grader/grade" --lab "$LAB" --commit "stage-$LAB" --latency --keep "$ROOT/swaplab-setup/selftest" \
		--json "$ROOT/swaplab-setup/selftest.json" || rc=$?
	[ "$rc" = 0 ] || { echo "setup.sh: the reference stage $LAB does not pass its own grade here (exit $rc); this image cannot grade" >&2; exit 1; }
fi
say "ready: lab $LAB"
