# The guest's isolation as the grader sets it up: no network device but
# the loopback (QEMU -nic none), and the run's nonce in no process's
# environment (the kernel under test could read it there and forge results).
. /lib/swaplab.sh
# (the kit's kernels have no networking, so the card QEMU would add by
# default shows only as a PCI network controller, class 0x02xxxx)
nics=$(grep -l '^0x02' /sys/bus/pci/devices/*/class 2>/dev/null | wc -l)
npci=$(ls /sys/bus/pci/devices 2>/dev/null | wc -l)
[ "$npci" -gt 0 ] && [ "$nics" = 0 ] && pass no-network "no network card among $npci PCI devices" ||
	fail no-network "$nics network card(s) among $npci PCI devices"
if grep -ls "$SWAPLAB_NONCE" /proc/[0-9]*/environ >/tmp/env.hits 2>/dev/null; then
	fail nonce-env "the nonce is in the environment of $(wc -l </tmp/env.hits) process(es)"
else
	pass nonce-env "the nonce is in no process environment"
fi
