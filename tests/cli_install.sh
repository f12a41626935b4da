#!/bin/sh
# cli_install.sh - `make install` into a temporary DESTDIR: the binary in
# $(PREFIX)/bin, the systemd unit with its paths made $(PREFIX)'s, the docs,
# the example configs and the default rules under share/doc/tracegate;
# nothing outside DESTDIR; `make uninstall` removes it all again.
# Usage: sh tests/cli_install.sh TRACEGATE (from the repository root; TG_BUILD
# names the build folder, default build)
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
build=${TG_BUILD:-build}
mk() { ${MAKE:-make} -s --no-print-directory BUILD="$build" "$@"; }

mk install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/out" 2>"$tmp/err"
rc=$?
check "make install DESTDIR PREFIX=/usr: exit 0" "exit $rc: $(head -c 300 "$tmp/err")" [ "$rc" -eq 0 ]
r=$tmp/root
check "the binary in /usr/bin, executable" "$(ls -l "$r/usr/bin" 2>&1)" [ -x "$r/usr/bin/tracegate" ]
check "the installed binary runs" "$("$r/usr/bin/tracegate" --version 2>&1)" sh -c "'$r/usr/bin/tracegate' --version | grep -q '^tracegate '"
check "tracegate-daemon beside it, executable" "$(ls -l "$r/usr/bin" 2>&1)" [ -x "$r/usr/bin/tracegate-daemon" ]
check "tracegate daemon runs it" "$("$r/usr/bin/tracegate" daemon --help 2>&1 | head -3)" \
	sh -c "'$r/usr/bin/tracegate' daemon --help | grep -q '^usage: tracegate daemon'"
unit=$r/usr/lib/systemd/system/tracegate.service
check "the systemd unit" "missing" [ -f "$unit" ]
check "the unit runs /usr/bin/tracegate (PREFIX's)" "$(grep Exec "$unit")" \
	sh -c "grep -q '^ExecStart=/usr/bin/tracegate daemon' '$unit' && ! grep -q /usr/local '$unit'"
check "the unit's documentation is where the docs went" "$(grep Documentation "$unit")" \
	grep -q '^Documentation=file:/usr/share/doc/tracegate/daemon.md$' "$unit"
check "the installed unit's header names where it went" "$(grep 'make install' "$unit")" \
	grep -q '^# `make install` puts this unit in /usr/lib/systemd/system/' "$unit"
d=$r/usr/share/doc/tracegate
for f in daemon.md config.md README.md manifest.schema.json examples/tracegate.yaml examples/tracegate-s3-gitlab.yaml \
	examples/rules/default.yaml examples/ci/tracegate-upload.sh; do
	check "doc $f" "missing" [ -f "$d/$f" ]
done
check "docs are 0644" "$(stat -c %a "$d/daemon.md")" [ "$(stat -c %a "$d/daemon.md")" = 644 ]
# every picture an installed page embeds is installed beside it (issue 23)
missing=""
for md in "$d"/*.md; do
	for img in $(grep -o '](\([A-Za-z0-9_.-]*\.\(png\|svg\)\))' "$md" | sed 's/^](//; s/)$//'); do
		[ -f "$d/$img" ] || missing="$missing $(basename "$md"):$img"
	done
done
n_img=$(grep -ho '](\([A-Za-z0-9_.-]*\.\(png\|svg\)\))' "$d"/*.md | wc -l)
check "every image the docs embed is installed ($n_img)" "missing:$missing" sh -c "[ -z '$missing' ] && [ $n_img -ge 5 ]"
check "the installed default rules are contrib's" "differ" cmp -s "$d/examples/rules/default.yaml" contrib/rules/default.yaml
n=$(find "$r" -type f | wc -l)
check "nothing else: $n files, all under usr/" "$(find "$r" -type f | grep -v "^$r/usr/")" \
	sh -c "[ -z \"\$(find '$r' -type f | grep -v '^$r/usr/')\" ]"
check "it says what it installed" "$(cat "$tmp/out")" grep -q "^installed: $r/usr/bin/tracegate" "$tmp/out"

# the default prefix, /usr/local
mk install DESTDIR="$tmp/local" >/dev/null 2>"$tmp/err"
check "default PREFIX: /usr/local/bin/tracegate" "$(cat "$tmp/err")" [ -x "$tmp/local/usr/local/bin/tracegate" ]
check "default PREFIX: the unit keeps /usr/local/bin" "$(grep ExecStart= "$tmp/local/usr/local/lib/systemd/system/tracegate.service")" \
	grep -q '^ExecStart=/usr/local/bin/tracegate daemon' "$tmp/local/usr/local/lib/systemd/system/tracegate.service"

mk uninstall DESTDIR="$tmp/root" PREFIX=/usr >/dev/null 2>"$tmp/err"
left=$(find "$r" -type f | wc -l)
check "make uninstall removes every file" "$left left: $(find "$r" -type f | head -3)" [ "$left" -eq 0 ]
[ "$fails" -eq 0 ]
