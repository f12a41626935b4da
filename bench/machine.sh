#!/bin/sh
# machine.sh - one line naming the machine a bench ran on: its CPU model,
# cores, clock and load average, and how long `gzip -dc` takes to inflate a
# fixed 32 MB of JSON-like text here (the ratios' denominator, so that a
# reader sees at once whether two runs' machines differ: the same build gave
# 0.34-0.53x on one 2-core machine and 0.57-0.79x on a slower one, docs/scale.md),
# and how long two such inflates take at once against one alone (1.00x: a
# second core as fast as the first; on the 2-core VM it ranges from 1.0x to
# 1.3x by the minute, and tracegate's reads use two cores while `gzip -dc`
# uses one, so its ratios read high when this does: docs/scale.md, the
# twenty-first round).
set -eu
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
mhz=$(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
cores=$(nproc 2>/dev/null || echo '?')
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# 32 MB of a kernel event's JSON, repeated: compressible as traces are
awk 'BEGIN { for (i = 0; i < 340000; i++)
	printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d.%03d, \"dur\": %d},\n", i % 97, i * 13, i % 1000, i % 300 }' |
	gzip -1 > "$tmp"
t0=$(date +%s.%N)
for i in 1 2 3; do gzip -dc "$tmp" > /dev/null; done
t1=$(date +%s.%N)
ms=$(echo "$t0 $t1" | awk '{ printf "%.0f", ($2 - $1) * 1000 / 3 }')
# five alternations of one inflate alone and two at once: the median ratio
two=$(for i in 1 2 3 4 5; do
	a0=$(date +%s.%N)
	gzip -dc "$tmp" > /dev/null
	a1=$(date +%s.%N)
	gzip -dc "$tmp" > /dev/null &
	gzip -dc "$tmp" > /dev/null
	wait
	a2=$(date +%s.%N)
	echo "$a0 $a1 $a2" | awk '{ printf "%.2f\n", ($3 - $2) / ($2 - $1) }'
done | sort -n | sed -n 3p)
echo "bench: machine: ${model:-unknown CPU}, $cores core(s), ${mhz:-?} MHz, load $load; gzip -dc of 32 MB of JSON: $ms ms; two at once: ${two}x of one alone"
