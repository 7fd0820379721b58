# swaplab hostile build (tests/hostile/run): a build that never ends; the
# build timeout must stop it.
$(shell sleep 100000)
