# Memory pressure through a memcg: random reads and writes over twice its
# memory.max, one thread per vCPU; every byte verified.
. /lib/swaplab.sh
WS=$(sed -n 's/.*swaplab.ws=\([0-9]*\).*/\1/p' /proc/cmdline)
WS=${WS:-256}
ACC=$(sed -n 's/.*swaplab.acc=\([0-9]*\).*/\1/p' /proc/cmdline)
ACC=${ACC:-15000}
cg=/sys/fs/cgroup/swaplab
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$cg"
echo "$((WS / 2))M" >"$cg/memory.max"
echo $$ >"$cg/cgroup.procs"
swaptest pressure -w "$WS" -t "$(nproc)" -a "$ACC"
