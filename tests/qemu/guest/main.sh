#!/bin/sh
# The main job inside the guest (busybox sh): every workload under the three
# fault policies with `mmlock run`, files on the slow disk, then the summaries
# (not the traces) sent back over the serial console as a base64 tar between
# MMLOCK-R-BEGIN / MMLOCK-R-END, which scripts/main-job and tests/qemu/run
# unpack on the host.
#
# Kernel command line: mmlock.delay_ms=N (dm-delay per read, default 50),
# mmlock.duration=TIME (per workload and policy, default 4s),
# mmlock.workloads=a,b,c (default: every trace workload).
set -u
DELAY_MS=50
DURATION=4s
WORKLOADS="vma-contention,fork-fault,mmap-churn,maps-reader"
KEEP_TRACES=""
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.delay_ms=*) DELAY_MS=${arg#mmlock.delay_ms=} ;;
	mmlock.duration=*) DURATION=${arg#mmlock.duration=} ;;
	mmlock.workloads=*) WORKLOADS=${arg#mmlock.workloads=} ;;
	mmlock.keep_traces=*) KEEP_TRACES=${arg#mmlock.keep_traces=} ;;
	esac
done
R=/tmp/results

echo "MMLOCK-M: main job: $WORKLOADS for $DURATION each, dm-delay $DELAY_MS ms"
mkdir -p /mnt/slow $R
# dmdelay (tests/qemu/guest/dmdelay.c) may already have made it (tests.sh)
[ -e /dev/mapper/slow ] || dmdelay slow /dev/vda "$DELAY_MS" 0 >/dev/null
mountpoint -q /mnt/slow || mount -t ext4 /dev/mapper/slow /mnt/slow || {
	echo "MMLOCK-M: cannot mount the slow disk read-write"
	exit 1
}
mkdir -p /mnt/slow/work

knob() { cat "/proc/sys/vm/$1" 2>/dev/null || echo null; }
nr_before=$(knob filemap_fault_no_retry)
rv_before=$(knob fault_retry_vma_lock)

# The writer of vma-contention runs above the readers' priority (nice -10 vs
# 0): its Type-A pairs under no-retry are Type-C on purpose.
mmlock run -o $R -d "$DURATION" -D /mnt/slow/work --kernel "$(uname -r)" \
	-a 'vma-contention:--writer-nice -10 --readers 3 --pages 1024' \
	-a 'fork-fault:--pages 1024' -a 'mmap-churn:--pages 1024' \
	$(echo "$WORKLOADS" | tr ',' ' ') 2>&1 | sed 's/^/MMLOCK-M: /'

# After a normal finish too, the knobs read what they read before and no
# tracing instance is left.
mkdir -p $R/finish
printf '{"no_retry_before": %s, "no_retry_after": %s, "retry_vma_before": %s, "retry_vma_after": %s, "instances_left": %s}\n' \
	"$nr_before" "$(knob filemap_fault_no_retry)" "$rv_before" "$(knob fault_retry_vma_lock)" \
	"$(ls /sys/kernel/tracing/instances | grep -c '^mmlock' || true)" >$R/finish/result.json

# One run per policy cannot tell a change from noise: three, alternating,
# and the ranges of each figure (mmlock run --repeat).
if [ -e /proc/sys/vm/filemap_fault_no_retry ]; then
	mmlock run -o /tmp/repeat -r 3 -P stock,no-retry -d 2s -D /mnt/slow/work \
		-a 'vma-contention:--writer-nice -10 --readers 3 --pages 1024' vma-contention 2>&1 |
		grep -v '^mmlock run: vma-contention under' | sed 's/^/MMLOCK-M: /'
	mkdir -p $R/repeat
	cp /tmp/repeat/ranges.json $R/repeat/ 2>/dev/null
fi

# Interrupted mid-run, mmlock run must put the sysctls back and leave no
# tracing instance: start a no-retry run, SIGINT it once the knob is set.
if [ -e /proc/sys/vm/filemap_fault_no_retry ]; then
	before=$(cat /proc/sys/vm/filemap_fault_no_retry)
	mmlock run -o /tmp/interrupted -d 30s -D /mnt/slow/work -P no-retry vma-contention \
		>/dev/null 2>&1 &
	rpid=$!
	i=0
	while [ "$(cat /proc/sys/vm/filemap_fault_no_retry)" != 1 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	during=$(cat /proc/sys/vm/filemap_fault_no_retry)
	sleep 1
	kill -INT $rpid
	wait $rpid
	rc=$?
	after=$(cat /proc/sys/vm/filemap_fault_no_retry)
	left=$(ls /sys/kernel/tracing/instances | grep -c '^mmlock' || true)
	echo "MMLOCK-M: interrupt: before=$before during=$during after=$after exit=$rc instances_left=$left"
	mkdir -p $R/interrupt
	printf '{"before": %s, "during": %s, "after": %s, "exit": %s, "instances_left": %s}\n' \
		"$before" "$during" "$after" "$rc" "$left" >$R/interrupt/result.json
fi

# the table again, whole, for the console
mmlock compare $R >/tmp/compare.txt 2>&1
sed 's/^/MMLOCK-M: /' /tmp/compare.txt
# mmlock.keep_traces=WORKLOAD sends that workload's captures back too
# (scripts/make-demo: the capture that ships in demo/)
find $R -name trace -type d | grep -v "^$R/${KEEP_TRACES:-/}/" | while read -r d; do
	# keep trace.status beside the summary; the chunks stay in the guest
	cp "$d/trace.status" "$(dirname "$d")/trace.status" 2>/dev/null
	rm -rf "$d"
done
# Also onto the data disk, which the host reads after the guest stopped
# (debugfs): a large result (kept traces) survives there, where the console
# may interleave kernel lines into it.
tar czf /mnt/slow/results.tgz -C $R . && sync
if [ -z "$KEEP_TRACES" ]; then
	echo "MMLOCK-R-BEGIN"
	tar czf - -C $R . | base64
	echo "MMLOCK-R-END"
fi
