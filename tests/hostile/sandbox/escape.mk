# swaplab hostile build (tests/hostile/run): appended to mm/Makefile, it runs
# as the submission's build parses it.  Each probe writes what it could do
# into the object directory (the build's working folder), which the test
# reads; nothing may reach the host.  The links it leaves in place of
# build.log and the build-size count point at a host file the test fills
# with a secret: no log, excerpt or progress line may show it.  (The fork
# bomb comes last: no $(shell) after it can fork.)
$(shell touch /tmp/swaplab-hostile-build-tmp; echo made > $(HOME)/swaplab-hostile-home)
$(shell ls /work /etc/shadow /root/.bashrc /root/.ssh > hostile-host-files.txt 2>&1; cat /proc/net/dev > hostile-net.txt 2>&1)
$(shell ls -A $(abspath $(objtree))/../.. > hostile-cache.txt 2>&1; ls -A $(abspath $(objtree))/.. > hostile-objs.txt 2>&1)
$(shell id -u > hostile-uid.txt; awk '/Max processes/ { print $$3 }' /proc/self/limits > hostile-nproc.txt)
$(shell env > hostile-env.txt; awk '/Max address space/ { print $$4 }' /proc/self/limits > hostile-as.txt)
$(shell dd if=/dev/zero of=hostile-big.bin bs=1M count=1536 2> hostile-dd.txt)
$(shell rm -f build.log .swaplab-full-count; ln -s /tmp/swaplab-secret-of-the-host build.log; ln -s /tmp/swaplab-secret-of-the-host .swaplab-full-count)
$(shell sh -c 'b() { b & b & }; b' >/dev/null 2>&1; sleep 2; echo forked > hostile-bomb.txt)
$(error swaplab hostile build: stop here)
