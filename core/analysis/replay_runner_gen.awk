# replay_runner_gen.awk - turns core/analysis/replay_runner.py into C: the string
# tg_replay_runner_py (replay_impl.h) that every replay script ends with.
# Backslashes, quotes and question marks (no trigraphs) are escaped; a
# line with a tab or a carriage return stops the build (the runner is
# spaces-indented Python).
BEGIN {
	print "/* generated from core/analysis/replay_runner.py by core/analysis/replay_runner_gen.awk: edit the .py */"
	print "#include \"replay_impl.h\""
	print "const char tg_replay_runner_py[] ="
}
/[\t\r]/ {
	printf "%s:%d: a tab or carriage return (the runner is indented with spaces)\n", FILENAME, FNR > "/dev/stderr"
	bad = 1
	exit 1
}
{
	s = $0
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	gsub(/\?/, "\\?", s)
	printf "\t\"%s\\n\"\n", s
}
END {
	if (bad)
		exit 1
	print "\t;"
}
