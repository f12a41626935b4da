#!/bin/sh
# machine.sh - one line naming the machine a bench ran on: its CPU model,
# cores, clock and load average, and how long `gzip -dc` takes to inflate a
# fixed 32 MB of JSON-like text here (the ratios' denominator, so that a
# reader sees at once whether two runs' machines differ: the same build gave
# 0.34-0.53x on one 2-core machine and 0.57-0.79x on a slower one, docs/scale.md).
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
echo "bench: machine: ${model:-unknown CPU}, $cores core(s), ${mhz:-?} MHz, load $load; gzip -dc of 32 MB of JSON: $ms ms"
