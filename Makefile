# swaplab: re-implement the 2016 swap scalability series, one graded lab at a time.
# `make help` lists the targets.
SHELL := /bin/bash
STAGE ?= 06
CONFIG ?= fast
LAB ?= 01
S := scripts

.PHONY: help deps setup stages tree kernel run gdb test test-unit test-smoke grade bench

help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

## make grade LAB=NN        grade your work on lab NN (main job)
## make test                the kit's own test suite (what CI runs)
## make setup               install packages, unpack the kernel, make the stages
## make tree STAGE=NN OUT=D write reference stage NN's source tree to D
## make kernel STAGE=NN CONFIG=fast|debug   build (or reuse) a stage kernel
## make run STAGE=NN [CONFIG=..] [TEST=script]  boot it and run a guest script
## make gdb STAGE=NN        boot halted with a gdb stub; prints how to attach

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
run: setup
	@img=$$($(S)/build-kernel --stage $(STAGE) --config $(CONFIG)) && \
	  vm/run --kernel "$$img" --test "$(TEST)"

gdb: setup
	@img=$$($(S)/build-kernel --stage $(STAGE) --config $(CONFIG)) && \
	  vm/run --kernel "$$img" --test "$(TEST)" --gdb

test: setup
	@tests/run

test-unit:
	@tests/unit/run

test-smoke: setup
	@tests/smoke

grade: setup
	@grader/grade --lab $(LAB) --self

## make bench [VCPUS=2 ROUNDS=3 BENCH_OUT=dir]   the series' effect, stage by stage
bench: setup
	@VCPUS=$(or $(VCPUS),2) ROUNDS=$(or $(ROUNDS),3) scripts/bench
