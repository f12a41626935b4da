#!/bin/sh
# make.sh - regenerates the bad-input fixtures of this directory (malformed
# JSON, broken gzip, schema errors, limits) that tests/test_bad_input.c
# feeds to the reader and to tracegate. Each file's name says what is wrong
# with it. Only POSIX sh, printf, gzip, head and dd; the outputs are
# committed too (the other fixtures of this folder were written by hand).
#
# Each fixture's NAME.expect holds the byte offset of its error: keep the
# texts below in step with them. Offsets are counted from 0. Every one-line
# event below starts with the same 16-byte prefix, so its first event's '{'
# is byte 16:
#   {"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1}]}
#   0               16   21   26    32 35 37  42 44   50
# ("ph" at 17, "name" at 26, its value at 33, "ts" at 37, its value at 42,
# "dur" at 44, its value at 50).
#
# The gzip files use gzip -n (no name, no time stamp), so that they are the
# same on every run of the same gzip.
set -eu
cd "$(dirname "$0")"

# A small valid trace (one line per event), the base of the truncated and
# gzip fixtures.
valid='{"schemaVersion": 1, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 200},
{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 120, "dur": 100, "args": {"External id": 5}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 130, "dur": 10, "args": {"correlation": 42}},
{"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 150, "dur": 20, "args": {"correlation": 42, "stream": 7}}
]}'

# --- no document
: >empty.json                         # 0 bytes: byte 0
printf ' \t\r\n \n' >whitespace.json  # 6 bytes of whitespace: byte 6
printf 'hello\n' >not_json.json       # not JSON at all: byte 0

# --- cut short: 200 bytes end inside the second event ("aten::relu")
printf '%s\n' "$valid" | head -c 200 >truncated.json

# --- gzip
printf '%s\n' "$valid" | gzip -n -9 >valid.tmp.gz
# cut after 200 of its 250 bytes, in the middle of the deflate data
head -c 200 valid.tmp.gz >truncated.json.gz
# the first deflate byte (byte 10, after the 10-byte header) and the next
# three set to 0xff: block type 3, which does not exist
cp valid.tmp.gz corrupt.json.gz
printf '\377\377\377\377' | dd of=corrupt.json.gz bs=1 seek=10 count=4 conv=notrunc 2>/dev/null
# the CRC-32 of the trailer (the 8th to 5th bytes from the end) flipped
size=$(wc -c <valid.tmp.gz)
cp valid.tmp.gz crc_mismatch.json.gz
printf '\125\125\125\125' | dd of=crc_mismatch.json.gz bs=1 seek=$((size - 8)) count=4 \
	conv=notrunc 2>/dev/null
# a valid gzip member followed by bytes that are not another member
cp valid.tmp.gz gzip_trailing_garbage.json.gz
printf 'xyz' >>gzip_trailing_garbage.json.gz
rm -f valid.tmp.gz

# --- JSON that is not a trace
printf '{"foo": 1}\n' >not_a_trace.json  # the closing '}' at byte 9
printf '[1,2,3]\n' >array_of_numbers.json  # the '1' at byte 1
printf '{"traceEvents":[],"traceEvents":[]}\n' >duplicate_trace_events.json  # 2nd key at 18

# --- fields of the wrong type
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":"abc","dur":1}]}' >wrong_type_ts.json
printf '%s\n' '{"traceEvents":[{"ph":"X","name":5,"ts":1,"dur":1}]}' >wrong_type_name.json
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"args":[1]}]}' >args_not_object.json
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":1}]}' >missing_dur.json
printf '%s\n' '{"traceEvents":[{"ph":"s","name":"a","ts":1}]}' >flow_without_id.json

# --- numbers JSON does not allow, or out of range
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":NaN}]}' >nan.json
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":Infinity,"dur":1}]}' >infinity.json
# in args, after a minus sign: the error points at the 'I' (byte 65)
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"args":{"x":-Infinity}}]}' \
	>neg_infinity.json
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":0123,"dur":1}]}' >leading_zero.json
printf '%s\n' '{"traceEvents":[{"ph":"X","name":"a","ts":1e300,"dur":1}]}' >ts_out_of_range.json
gzip -n -9 <nan.json >nan.json.gz  # the same error, inside gzip

# --- strings: the bad byte or escape is byte 35 (after "name":"a)
printf '{"traceEvents":[{"ph":"X","name":"a\377b","ts":1,"dur":1}]}\n' >invalid_utf8.json
printf '{"traceEvents":[{"ph":"X","name":"a\001b","ts":1,"dur":1}]}\n' >control_char.json
printf '{"traceEvents":[{"ph":"X","name":"a\\ud800b","ts":1,"dur":1}]}\n' >lone_surrogate.json
printf '{"traceEvents":[{"ph":"X","name":"a\\qb","ts":1,"dur":1}]}\n' >bad_escape.json
printf '{"traceEvents":[{"ph":"X","name":"a\000b","ts":1,"dur":1}]}\n' >nul_byte.json

# --- after the document
printf '{"traceEvents":[]}\nxyz\n' >trailing_garbage.json  # 'x' at byte 19

# --- 10,000 nested arrays in args: the first '[' is byte 64, the 61st
# (nesting level 65, one beyond the default limit of 64) is byte 124
o='[[[[[[[[[['
c=']]]]]]]]]]'
for _ in 1 2 3; do
	o=$o$o$o$o$o$o$o$o$o$o
	c=$c$c$c$c$c$c$c$c$c$c
done
printf '%s%s%s}}]}\n' '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"args":{"x":' "$o" "$c" \
	>deep_nesting.json

# --- gzip bomb: '{"traceEvents":[' and 40 MiB of spaces, about 40 KiB of
# gzip; the reader stops once the inflated size passes 32 MiB with a ratio
# above 200
s=' '
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	s=$s$s
done
{
	printf '{"traceEvents":['
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \
		21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40; do
		printf '%s' "$s"
	done
} | gzip -n -9 >bomb.json.gz
