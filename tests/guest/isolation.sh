# The guest's isolation as the grader sets it up: no network device but
# the loopback (QEMU -nic none), and the run's nonce in no process's
# environment (the kernel under test could read it there and forge results).
. /lib/swaplab.sh
nets=$(ls /sys/class/net | tr '\n' ' ')
[ "$nets" = "lo " ] && pass no-network "network devices: $nets" || fail no-network "network devices: $nets"
if grep -ls "$SWAPLAB_NONCE" /proc/[0-9]*/environ >/tmp/env.hits 2>/dev/null; then
	fail nonce-env "the nonce is in the environment of $(wc -l </tmp/env.hits) process(es)"
else
	pass nonce-env "the nonce is in no process environment"
fi
