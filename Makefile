# swaplab: re-implement the 2016 swap scalability series, one graded lab at a time.
# `make help` lists the targets.
SHELL := /bin/bash
STAGE ?= 06
CONFIG ?= fast
LAB ?= 01
S := scripts

.PHONY: help deps setup stages tree kernel run gdb test test-full test-unit test-smoke grade bench start handin autograder

help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

## make start LAB=NN        start lab NN: work/linux becomes your work tree
##                          (FROM=mine: from your own lab NN-1; FRESH=1: over)
## make grade LAB=NN        grade your work on lab NN (main job)
## make handin LAB=NN ID=s1234 [HOURS=6.5]  write your lab NN work as one patch
##                          to hand in (named by ID, else by your git author
##                          email; HOURS: the hours you spent on it, optional)
## make run LAB=NN [TEST=tests/guest/X.sh ARGS=.. SWAP=pmem|two|mixed|rot]
##                          boot your lab NN kernel (with the lab's tests)
## make gdb LAB=NN          the same, halted, gdb stub, debug info (CONFIG=gdb)
## make test                the kit's own test suite, quick tier (what CI runs:
##                          stage 01 and lab 01 booted, every lab's host checks)
## make test-full           every stage and every lab booted and graded
## make setup               install packages, unpack the kernel, make the stages
## make tree STAGE=NN OUT=D write reference stage NN's source tree to D
## make kernel STAGE=NN CONFIG=fast|debug   build (or reuse) a stage kernel
## make run STAGE=NN [CONFIG=..] [TEST=script]  boot reference stage NN
## make gdb STAGE=NN        boot halted with a gdb stub; prints how to attach
## make shell [CMD='make grade LAB=01']   on a host that is not Debian 12: a
##                          shell (or CMD) in the kit's Debian 12 container
##                          (podman or docker; container/Containerfile)
## make autograder LAB=NN [TIMEOUT=s GRADE_ARGS='..' OUT=dir]  instructors: the
##                          Gradescope bundle OUT/autograder-labNN.zip (default out/)

deps:
	@$(S)/deps

setup: deps
	@$(S)/setup-tree
	@$(S)/stages
	@$(S)/lab-starts

stages: setup

tree: setup
	@test -n "$(OUT)" || { echo "usage: make tree STAGE=NN OUT=DIR" >&2; exit 2; }
	@$(S)/tree $(STAGE) "$(OUT)"

kernel: setup
	@$(S)/build-kernel --stage $(STAGE) --config $(CONFIG) >/dev/null

TEST ?= tests/guest/smoke.sh
# run/gdb: LAB=NN on the command line boots your work tree (grading build of
# lab NN), otherwise reference stage STAGE
ifeq ($(origin LAB),command line)
KSRC = $$(grader/grade --lab $(LAB) --self --build-only $(CONFIG))
else
KSRC = $$($(S)/build-kernel --stage $(STAGE) --config $(CONFIG))
endif
SWAP ?= pmem
RUNARGS = --test "$(TEST)" --swap "$(SWAP)" $(if $(ARGS),--args "$(ARGS)")
run: setup
	@img=$(KSRC) && vm/run --kernel "$$img" $(RUNARGS)

# make gdb builds the gdb config (fast + DWARF debug info; the first build
# takes several minutes) unless CONFIG is given on the command line
gdb: CONFIG = gdb
gdb: setup
	@img=$(KSRC) && vm/run --kernel "$$img" $(RUNARGS) --gdb

test: setup
	@tests/run

test-full: setup
	@SWAPLAB_TEST_FULL=1 tests/run

test-unit:
	@tests/unit/run

test-smoke: setup
	@tests/smoke

start: setup
	@$(S)/student/start $(LAB) $(if $(filter mine,$(FROM)),mine) $(if $(FRESH),fresh)

grade: setup
	@grader/grade --lab $(LAB) --self $(if $(LATENCY),--latency)

# HOURS (command line only) reaches scripts/student/handin through the environment,
# never through the shell's quoting: scripts/student/handin checks it
handin: setup
	@$(if $(ID),SWAPLAB_STUDENT='$(ID)') $(if $(filter command line,$(origin HOURS)),SWAPLAB_HOURS="$$HOURS") $(S)/student/handin $(LAB)

## make student-kit LABS=01-NN OUT=dir   instructors: the student edition of
##                          labs 01-NN, a new git repository without solutions
.PHONY: student-kit
student-kit: setup
	@$(S)/author/student-kit "$(LABS)" "$(OUT)"

## make bench [VCPUS=2 ROUNDS=3 BENCH_OUT=dir]   the series' effect, stage by stage
bench: setup
	@VCPUS=$(or $(VCPUS),2) ROUNDS=$(or $(ROUNDS),3) bench/bench

## make contention [VCPU_LIST="2 4 8" STAGES="00 06" ROUNDS=5]   the series'
##                          speed-up in fault latency: oversubscribed vCPUs,
##                          interleaved rounds, the contention model and its chart
.PHONY: contention
contention: setup
	@bench/contention

.PHONY: shell
shell:
	@scripts/shell $(if $(CMD),bash -c '$(CMD)')

autograder:
	@autograder/make-bundle $(LAB) $(if $(OUT),--out "$(OUT)") $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
		$(if $(GRADE_ARGS),--args "$(GRADE_ARGS)")
