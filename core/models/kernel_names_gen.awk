# kernel_names_gen.awk - turns core/models/kernel_names.tsv into C
# (tg_kernel_name_rules[], kernel_names.h). A malformed line stops the build
# with FILE:LINE: and what is wrong.
function esc(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return s
}
BEGIN {
	FS = "\t"
	print "/* generated from core/models/kernel_names.tsv by core/models/kernel_names_gen.awk: edit the .tsv */"
	print "#include \"kernel_names.h\""
	print "const tg_kernel_name_rule tg_kernel_name_rules[] = {"
	n = 0
	bad = 0
}
/^#/ || /^[ \t]*$/ { next }
{
	if (NF != 3 || $1 == "" || $2 == "" || $3 == "") {
		printf "%s:%d: expected 3 TAB-separated fields (category, label, pattern), found %d\n", FILENAME, FNR, NF > "/dev/stderr"
		bad = 1
		exit 1
	}
	if ($1 !~ /^[A-Za-z_]+$/) {
		printf "%s:%d: category '%s' is not a name ([A-Za-z_]+)\n", FILENAME, FNR, $1 > "/dev/stderr"
		bad = 1
		exit 1
	}
	printf "\t{\"%s\", \"%s\", \"%s\", %d},\n", esc($1), esc($2), esc($3), FNR
	n++
}
END {
	if (bad)
		exit 1
	if (n == 0)
		print "\t{0, 0, 0, 0},"
	print "};"
	printf "const size_t tg_kernel_name_nrules = %d;\n", n
}
