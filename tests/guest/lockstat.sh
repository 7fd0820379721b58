# Lock fingerprint (debug kernel): clear /proc/lock_stat, run a fixed swap
# workload, report per-class counts as metrics.
#   si_lock_*    the swap device lock (si->lock), found by si_lock_class
#   cluster_*    every class whose name mentions cluster_info (cluster locks)
#   xa_lock_*    every xarray lock class; the workload does no file I/O, so
#                these are the swap-cache trunks' locks
#   pages        pages swapped out (pswpout) during the workload
# lockstat.sh cycle: first a swapoff and a swapon while the CPUs' slots
# caches hold slots (lab 06's swapoff steps: disable and drain before
# try_to_unuse(), enable again after), then the same measurement: the
# cache must be back, as cheap as before the cycle.
. /lib/swaplab.sh
PAGES=$(sed -n "s/.*swaplab.pages=\([0-9]*\).*/\1/p" /proc/cmdline)
PAGES=${PAGES:-4096}
if [ "${1:-}" = cycle ]; then
	# slots in the caches: a workload on every CPU, its pages freed since
	swaptest pageout -n "$PAGES" -t "$(nproc)" -N lockstat-fill >/tmp/fill.out || { cat /tmp/fill.out; exit 1; }
	dev=$(awk 'NR > 1 { print $1; exit }' /proc/swaps)
	[ -n "$dev" ] || { fail lockstat "no swap device to cycle"; exit 1; }
	used=$(($(meminfo SwapTotal) - $(meminfo SwapFree)))
	swapoff "$dev" || { fail lockstat "swapoff $dev with the slots cache in use failed ($used kB in use)"; exit 1; }
	step "mkswap $dev"
	mkswap "$dev" >/dev/null || { fail lockstat "mkswap $dev failed"; exit 1; }
	swaptest swapon "$dev" 10 || { fail lockstat "swapon $dev after the swapoff failed"; exit 1; }
	echo "lockstat: swapoff with $used kB in use, then swapon: measuring again"
fi
[ -r /proc/lock_stat ] || { fail lockstat "no /proc/lock_stat (not a LOCK_STAT kernel)"; exit 1; }
debug_locks_on || { fail lockstat "lockdep is off (debug_locks 0): lock_stat counts nothing"; exit 1; }
si_class=$(si_lock_class)
if [ -z "$si_class" ]; then
	grep -n -B4 'swap_avail_lock' /tmp/lockdep | head -30
	fail lockstat "could not identify the swap device lock class in /proc/lockdep"
	exit 1
fi
echo "lockstat: swap device lock class is '$si_class'"
out0=$(sed -n 's/^pswpout //p' /proc/vmstat)
echo 0 >/proc/lock_stat
swaptest pageout -n "$PAGES" -t "$(nproc)" -N lockstat-workload >/tmp/w.out
rc=$?
cp /proc/lock_stat /tmp/ls
out1=$(sed -n 's/^pswpout //p' /proc/vmstat)
cat /tmp/w.out
[ "$rc" = 0 ] || exit 1
debug_locks_on || { fail lockstat "lockdep was turned off during the workload (debug_locks 0)"; exit 1; }
pages=$((out1 - out0))
awk -v si="$si_class" -v pages="$pages" -v nonce="$SWAPLAB_NONCE" '
function put(k, v) { printf "SWAPLAB %s METRIC %s %s\n", nonce, k, v }
{
	i = index($0, ": "); if (!i) next
	name = substr($0, 1, i - 1); sub(/^ +/, "", name)
	n = split(substr($0, i + 2), f, " ")
	if (n < 12 || f[1] !~ /^[0-9]+$/) next
	# f[5] waittime-total, f[11] holdtime-total (us)
	if (name == si) { sa += f[8]; sc += f[2]; sw += f[5]; sh += f[11] }
	if (name ~ /cluster_info/) { ca += f[8]; cc += f[2]; cw += f[5]; ch += f[11] }
	if (name ~ /xa_lock/) { xa += f[8]; xc += f[2]; xw += f[5]; xh += f[11] }
}
END {
	put("pages", pages)
	put("si_lock_acq", sa + 0); put("si_lock_con", sc + 0)
	put("cluster_lock_acq", ca + 0); put("cluster_lock_con", cc + 0)
	put("xa_lock_acq", xa + 0); put("xa_lock_con", xc + 0)
	put("si_lock_hold_us", sh + 0); put("si_lock_wait_us", sw + 0)
	put("cluster_lock_hold_us", ch + 0); put("cluster_lock_wait_us", cw + 0)
	put("xa_lock_hold_us", xh + 0); put("xa_lock_wait_us", xw + 0)
	if (pages > 0) {
		put("si_lock_acq_per_page", sprintf("%.4f", sa / pages))
		put("si_lock_con_per_page", sprintf("%.5f", sc / pages))
		put("cluster_lock_acq_per_page", sprintf("%.4f", ca / pages))
		# time under (and waiting for) each lock per swapped page, ns
		put("si_lock_hold_ns_per_page", sprintf("%.1f", sh * 1000 / pages))
		put("si_lock_wait_ns_per_page", sprintf("%.1f", sw * 1000 / pages))
		put("cluster_lock_hold_ns_per_page", sprintf("%.1f", ch * 1000 / pages))
		put("cluster_lock_wait_ns_per_page", sprintf("%.1f", cw * 1000 / pages))
		put("xa_lock_hold_ns_per_page", sprintf("%.1f", xh * 1000 / pages))
		put("xa_lock_wait_ns_per_page", sprintf("%.1f", xw * 1000 / pages))
	}
}' /tmp/ls
[ "$pages" -gt 0 ] && pass lockstat "lock_stat collected over $pages swapped pages" || fail lockstat "no pages swapped"
