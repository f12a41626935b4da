# tracegate - build, test, benchmark, fuzz.
#   make            ./tracegate
#   make check      every test, the layering check, bench_read (SAN=1: under ASan + UBSan, in build-san/)
#   make check-tsan the threaded tests under ThreadSanitizer (in build-tsan/)
#   make bench      speed and memory on the largest real trace; diff of a 120k-op pair vs gzip -dc;
#                   the reversed-names curve; judging against a 250 MB baseline, pooled 250 MB runs
#   make fuzz       libFuzzer on every tests/fuzz/fuzz_*.c (FUZZ_SECONDS=60 each; docs/fuzzing.md)
#   make demo       the main job on the embedded sample
#   make install    the binary, the systemd unit, the docs and example configs
#                   (PREFIX=/usr/local, DESTDIR= for packaging; make uninstall)
# TG_SKIP_SERVERS=1 make check: skip the suites that start real servers
# (PostgreSQL, radosgw, git daemon, forge fakes); CI=true never skips.

CC ?= cc
SAN ?= 0
# ISA-L inflates gzip traces about 3x as fast as zlib (core/trace/inflate.h);
# ISAL=0 builds with zlib alone
ISAL ?= 1
FUZZ_SECONDS ?= 60
SHARED ?= ../shared

ifeq ($(SAN),1)
BUILD := build-san
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(SAN),thread)
# make check-tsan: the threaded tests under ThreadSanitizer
BUILD := build-tsan
# (-O1 with its instrumentation, gcc sees uninitialised values where there are none)
OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer -Wno-maybe-uninitialized
else
BUILD := build
OPT := -O2 -g
endif

ifeq ($(ISAL),1)
ISAL_LIBS := -lisal
ISAL_CFLAGS :=
else
ISAL_LIBS :=
ISAL_CFLAGS := -DTG_NO_ISAL
endif

CFLAGS := -std=c11 -D_GNU_SOURCE $(OPT) -Wall -Wextra -Werror -pthread -I/usr/include/postgresql $(ISAL_CFLAGS)
CORE_LDLIBS := -ljansson -lyaml -lz $(ISAL_LIBS) -lpthread -lm
# tracegate takes jansson, libyaml and zlib from their archives where the -dev
# packages installed them (Debian's do): the dynamic loader then maps and
# relocates three libraries fewer, which is 2-3 % of a small report's wall
# (docs/scale.md, "Nineteenth round"). A library without its archive stays
# shared; STATIC_DEPS=0 links all three shared (a distribution's package
# that wants zlib's security updates without a rebuild). Expanded when
# tracegate is linked (=, not :=), so that no other make run asks the
# compiler where the archives are.
STATIC_DEPS ?= 1
comma := ,
static_or_shared = $(if $(and $(filter 1,$(STATIC_DEPS)),$(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))),-Wl$(comma)-Bstatic -l$(1) -Wl$(comma)-Bdynamic,-l$(1))
EXEC_LDLIBS = $(foreach l,jansson yaml z,$(call static_or_shared,$(l))) $(ISAL_LIBS) -lpthread -lm
LDLIBS := -lcurl -lcrypto -lgit2 -lsqlite3 -lpq -lmicrohttpd $(CORE_LDLIBS)
TEST_LDLIBS := $(LDLIBS) -lcmocka

# The rooms of the house (docs/conventions.md, "Where code lives"), each a library:
# util/ and net/ at the bottom, core/ by stage, rules/, render/, config/,
# daemon/ (the job machine) with its rooms, cli/ at the top.
UTIL_SRC := $(wildcard util/*.c)
NET_SRC := $(wildcard net/*.c)
CORE_SRC := $(wildcard core/*/*.c)
RULES_SRC := $(wildcard rules/*.c)
RENDER_SRC := $(wildcard render/*.c)
CONFIG_SRC := $(wildcard config/*.c)
DAEMON_ROOMS := storage store git forge history metrics
DAEMON_SRC := $(wildcard daemon/*.c $(DAEMON_ROOMS:%=daemon/%/*.c))
CLI_SRC := $(filter-out cli/main.c,$(wildcard cli/*.c))
TEST_SRC := $(wildcard tests/test_*.c)
# core/models/kernel_names.tsv is data: core/models/kernel_names_gen.awk turns it into C
KN_TSV := core/models/kernel_names.tsv
KN_GEN := core/models/kernel_names_gen.awk
# core/analysis/replay_runner.py is the Python every replay script ends with: core/analysis/replay_runner_gen.awk makes it a C string
RR_PY := core/analysis/replay_runner.py
RR_GEN := core/analysis/replay_runner_gen.awk
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/kernel_names_table.o $(BUILD)/gen/replay_runner.o
RULES_OBJ := $(RULES_SRC:%.c=$(BUILD)/%.o)
UTIL_OBJ := $(UTIL_SRC:%.c=$(BUILD)/%.o)
NET_OBJ := $(NET_SRC:%.c=$(BUILD)/%.o)
RENDER_OBJ := $(RENDER_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
CONFIG_OBJ := $(CONFIG_SRC:%.c=$(BUILD)/%.o)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all check check-tsan bench fuzz fuzz-build demo clean deps install uninstall

all: tracegate

deps: $(DEPS_STAMP)

$(DEPS_STAMP): contrib/install-deps.sh
	@mkdir -p $(BUILD)
	@contrib/install-deps.sh
	@touch $@

# Each object depends on the headers it includes, as the compiler lists them
# (-MMD -MP into a .d beside it). An object without its .d (a build from
# before, or a compile that failed) is made again: its .d's rule without a
# recipe (ALL_DEP, at the end) makes a missing one count as new. The
# object is touched after its compile: clang writes the .d after the
# object, and an object older than its .d was compiled again by every make
# (the fuzz build's 30 s each `make fuzz`; gcc writes the .d first).
DEPFLAGS = -MMD -MP -MF $(@:.o=.d)

$(BUILD)/%.o: %.c $(DEPS_STAMP) $(BUILD)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@
	@touch $@

# The pull-request comment's footer links to comment.md in tracegate's docs
# on a forge: by default this clone's origin (contrib/docs-url.sh prints
# https://HOST/OWNER/REPO/blob/HEAD/docs, or nothing); DOCS_URL=... for a
# package or a Gitea mirror; the daemon's daemon.docs_url and `diff
# --docs-url` choose per run. A change of it rebuilds diff_render.o.
DOCS_URL ?= $(shell sh contrib/docs-url.sh 2>/dev/null)
$(BUILD)/.docs-url: FORCE
	@mkdir -p $(BUILD)
	@echo '$(DOCS_URL)' | cmp -s - $@ || echo '$(DOCS_URL)' > $@
$(BUILD)/render/diff_render.o: CFLAGS += -DTG_DOCS_URL='"$(DOCS_URL)"'
$(BUILD)/render/diff_render.o: $(BUILD)/.docs-url
.PHONY: FORCE

$(BUILD)/gen/kernel_names_table.c: $(KN_TSV) $(KN_GEN)
	@mkdir -p $(dir $@)
	awk -f $(KN_GEN) $(KN_TSV) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/kernel_names_table.o: $(BUILD)/gen/kernel_names_table.c core/models/kernel_names.h $(DEPS_STAMP)
	$(CC) $(CFLAGS) -Icore/models -Icore/analysis -c $< -o $@

$(BUILD)/gen/replay_runner.c: $(RR_PY) $(RR_GEN)
	@mkdir -p $(dir $@)
	awk -f $(RR_GEN) $(RR_PY) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/replay_runner.o: $(BUILD)/gen/replay_runner.c core/analysis/replay_impl.h core/analysis/replay.h $(DEPS_STAMP)
	$(CC) $(CFLAGS) -Icore/models -Icore/analysis -c $< -o $@

$(BUILD)/libtgcore.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgrules.a: $(RULES_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgconfig.a: $(CONFIG_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgdaemon.a: $(DAEMON_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgutil.a: $(UTIL_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgnet.a: $(NET_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgrender.a: $(RENDER_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtgcli.a: $(CLI_OBJ)
	rm -f $@ && ar rcs $@ $^

# Link order: each library before the ones it depends on.
LIBS := $(BUILD)/libtgcli.a $(BUILD)/libtgdaemon.a $(BUILD)/libtgconfig.a $(BUILD)/libtgrender.a \
	$(BUILD)/libtgrules.a $(BUILD)/libtgcore.a $(BUILD)/libtgnet.a $(BUILD)/libtgutil.a
# core/ alone, for what links nothing above it (tg-plant, bench_read)
CORE_LIBS := $(BUILD)/libtgcore.a $(BUILD)/libtgutil.a

# Two binaries from cli/main.c (its design comment says why):
# tracegate-daemon holds every command and links everything; tracegate
# holds the commands that read traces, links only core's libraries (it
# starts in 1 ms, not 7) and runs tracegate-daemon, beside it, for daemon
# and history. Building one builds both. The command table (cli/commands.c)
# is built twice too: tracegate's names nothing of those two commands, so
# its own object comes before libtgcli.a and the archive's is not taken.
EXEC_OBJ := $(BUILD)/cli/main_exec.o $(BUILD)/cli/commands_exec.o

$(BUILD)/tracegate-daemon: $(BUILD)/cli/main.o $(LIBS)
	$(CC) $(CFLAGS) -o $@ $(BUILD)/cli/main.o $(LIBS) $(LDLIBS)

$(BUILD)/cli/%_exec.o: cli/%.c $(DEPS_STAMP) $(BUILD)/cli/%_exec.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -DTG_CLI_EXEC_DAEMON -c $< -o $@
	@touch $@

$(BUILD)/tracegate: $(EXEC_OBJ) $(LIBS) $(BUILD)/tracegate-daemon
	$(CC) $(CFLAGS) -o $@ $(EXEC_OBJ) $(LIBS) $(EXEC_LDLIBS)

tracegate: $(BUILD)/tracegate
ifeq ($(SAN),0)
	cp $(BUILD)/tracegate-daemon tracegate-daemon
	cp $(BUILD)/tracegate tracegate
endif

$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIBS) $(TEST_LDLIBS)

# The synthetic trace generator (tests/gen/): traces with known changes.
# It shares no analysis with core/: only the string buffer (util/buf.c) and its errors (util/error.c).
$(BUILD)/tg-gen: $(wildcard tests/gen/*.c tests/gen/*.h) util/buf.c util/buf.h util/error.c util/tg.h $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c,$^) $(CORE_LDLIBS)

# tg-plant (tests/plant/): plants a known change into a real trace, reading
# its categories through core/ (docs/generator.md, "Planting changes").
$(BUILD)/tg-plant: tests/plant/plant.c $(CORE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_LIBS) $(CORE_LDLIBS)

# check also builds bench_read, which links core/ alone (core needs nothing above it),
# and tests/cli_layering.sh checks the include arrows (tests/layering.sh).
check: $(BUILD)/tracegate $(BUILD)/tg-gen $(BUILD)/tg-plant $(TEST_BIN) $(BUILD)/tests/bench_read
	@contrib/install-deps.sh --html --servers --fuzz
	@TG_SHARED=$(SHARED) TG_BUILD=$(BUILD) TG_BIN=$(BUILD)/tracegate TG_GEN=$(BUILD)/tg-gen TG_PLANT=$(BUILD)/tg-plant tests/run.sh $(TEST_BIN)

# The tests of what runs on several threads (the reader's pipeline and
# inflate thread, the report's, the diff's and the tree's threads), under ThreadSanitizer.
TSAN_TESTS := test_trace_chunks test_affinity test_source test_trace_read test_big test_report test_park test_gate test_kernel_class test_rundata test_tree
# (the generator is the plain build's: test_gate's and test_rundata's
# tests generate their traces with it, and skipped without it; with
# CI=true a test that skips here fails the target)
check-tsan: $(BUILD)/tg-gen
	@$(MAKE) --no-print-directory SAN=thread $(TSAN_TESTS:%=build-tsan/tests/%)
	@set -e; for t in $(TSAN_TESTS); do \
		rc=0; TG_SHARED=$(SHARED) TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/$$t >build-tsan/tests/$$t.log 2>&1 || rc=$$?; \
		cat build-tsan/tests/$$t.log; \
		[ $$rc = 0 ] || { echo "check-tsan: $$t failed (exit $$rc)"; exit 1; }; \
		if [ "$${CI:-}" = true ] && grep -q '^\[  SKIPPED \] [a-z]' build-tsan/tests/$$t.log; then \
			echo "check-tsan: CI=true: $$t skipped tests under ThreadSanitizer (the SKIPPED lines above)"; exit 1; fi; \
	done

# Every part runs; the bench fails (exit 1) when any missed a target.
bench: $(BUILD)/tracegate $(BUILD)/tests/bench_read $(BUILD)/tests/bench_pair $(BUILD)/tests/peak_split $(BUILD)/tg-gen
	@contrib/install-deps.sh --bench
	@f=0; \
	SHARED=$(SHARED) bench/run.sh $(BUILD)/tests/bench_read $(BUILD)/tracegate $(BUILD)/tests/bench_pair || f=1; \
	bench/daemon.sh $(BUILD)/tracegate $(BUILD)/tg-gen || f=1; \
	bench/scale.sh $(BUILD)/tracegate $(BUILD)/tg-gen $(BUILD)/tests/bench_pair $(BUILD)/tests/peak_split || f=1; \
	bench/diverge.sh $(BUILD)/tracegate $(BUILD)/tg-gen || f=1; \
	bench/judge.sh $(BUILD)/tracegate $(BUILD)/tg-gen || f=1; \
	if [ $$f = 1 ]; then echo "bench: a target was missed (above)"; exit 1; fi

# bench_pair times two commands in alternation (bench/bench_pair.c)
$(BUILD)/tests/bench_pair: bench/bench_pair.c bench/bench_run.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# peak_split splits a command's peak RSS into anonymous and file pages (bench/peak_split.c)
$(BUILD)/tests/peak_split: bench/peak_split.c bench/bench_run.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/tests/bench_read: bench/bench_read.c $(CORE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_LIBS) $(CORE_LDLIBS)

# Fuzzing (docs/fuzzing.md): every tests/fuzz/fuzz_<name>.c is a libFuzzer
# target. Each links core/, rules/ and config/ (as an archive: only what it
# uses) and the daemon/ sources named in FUZZ_SRC_<name>, with the libraries
# in FUZZ_LIBS_<name>; every source is compiled once, with clang, ASan and
# UBSan (any report stops the run). Its seeds are tests/fuzz/corpus/<name>/,
# its dictionary tests/fuzz/<name>.dict when there is one; what a run
# learns goes to build-fuzz/corpus-<name>/, crashes to build-fuzz/<name>-*.
#   make fuzz                         each target for FUZZ_SECONDS (60)
#   make fuzz FUZZ_TARGETS="rules"    only the ones named
#   make fuzz-build                   build them, run nothing
# FUZZ_FLAGS adds libFuzzer options (e.g. -jobs=1 -print_final_stats=1). An
# input that takes more than 30 s is a finding (-timeout), like a crash.
FUZZ_BUILD := build-fuzz
FUZZ_CC ?= clang
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_FLAGS ?=
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Werror -pthread $(ISAL_CFLAGS)
FUZZ_SRC_manifest := daemon/manifest.c daemon/storage/storage.c
FUZZ_SRC_s3_list := daemon/storage/s3_list.c daemon/storage/xml_walk.c
FUZZ_SRC_forge := $(wildcard daemon/forge/*.c) net/http.c
FUZZ_LIBS_forge := -lcurl
FUZZ_SRC_http := net/http.c
FUZZ_LIBS_http := -lcurl
FUZZ_LIB_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(UTIL_SRC) $(CORE_SRC) $(RULES_SRC) $(RENDER_SRC) $(CONFIG_SRC)) \
	$(FUZZ_BUILD)/obj/gen/kernel_names_table.o $(FUZZ_BUILD)/obj/gen/replay_runner.o
FUZZ_DEPS := $(FUZZ_BUILD)/.deps-ok
fuzz_obj = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_SRC_$(1)))

$(FUZZ_DEPS): contrib/install-deps.sh
	@mkdir -p $(FUZZ_BUILD)
	@contrib/install-deps.sh --fuzz
	@touch $@

$(FUZZ_BUILD)/obj/%.o: %.c $(FUZZ_DEPS) $(FUZZ_BUILD)/obj/%.d
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
	@touch $@

$(FUZZ_BUILD)/obj/gen/kernel_names_table.c: $(KN_TSV) $(KN_GEN)
	@mkdir -p $(dir $@)
	awk -f $(KN_GEN) $(KN_TSV) > $@.tmp && mv $@.tmp $@

$(FUZZ_BUILD)/obj/gen/kernel_names_table.o: $(FUZZ_BUILD)/obj/gen/kernel_names_table.c core/models/kernel_names.h $(FUZZ_DEPS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Icore/models -Icore/analysis -c $< -o $@

$(FUZZ_BUILD)/obj/gen/replay_runner.c: $(RR_PY) $(RR_GEN)
	@mkdir -p $(dir $@)
	awk -f $(RR_GEN) $(RR_PY) > $@.tmp && mv $@.tmp $@

$(FUZZ_BUILD)/obj/gen/replay_runner.o: $(FUZZ_BUILD)/obj/gen/replay_runner.c core/analysis/replay_impl.h $(FUZZ_DEPS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Icore/models -Icore/analysis -c $< -o $@

# the daemon objects are reached only through the pattern: keep them
.PRECIOUS: $(FUZZ_BUILD)/obj/%.o

$(FUZZ_BUILD)/libtgfuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

.SECONDEXPANSION:
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $$(call fuzz_obj,$$*) $(FUZZ_BUILD)/libtgfuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(call fuzz_obj,$*) $(FUZZ_BUILD)/libtgfuzz.a \
		$(FUZZ_LIBS_$*) -ljansson -lyaml -lz $(ISAL_LIBS) -lm

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
		dict=; if [ -f tests/fuzz/$$t.dict ]; then dict=-dict=tests/fuzz/$$t.dict; fi; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		$(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=30 $$dict \
			-artifact_prefix=$(FUZZ_BUILD)/$$t- $(FUZZ_FLAGS) $(FUZZ_BUILD)/corpus-$$t tests/fuzz/corpus/$$t; \
	done

# make demo builds in parallel and quietly (the compiler's lines only when
# it fails), then runs the loop; contrib/demo.sh ends with what to try next.
NPROC := $(shell nproc 2>/dev/null || echo 2)
demo:
	@contrib/install-deps.sh --demo
	@mkdir -p $(BUILD)
	@echo "demo: building tracegate (make -j$(NPROC))..."
	@if ! $(MAKE) --no-print-directory -j$(NPROC) tracegate $(BUILD)/tg-gen >$(BUILD)/demo-build.log 2>&1; then \
		cat $(BUILD)/demo-build.log; echo "demo: the build failed (the compiler's output is above)" >&2; exit 1; fi
	@contrib/demo.sh ./tracegate $(BUILD)/tg-gen

# make install: $(DESTDIR)$(PREFIX)/bin/tracegate (and tracegate-daemon, which it runs), the systemd unit (its
# paths made $(PREFIX)'s) in $(UNITDIR), and the docs, the example configs
# and the default rules in $(DOCDIR). Nothing in /etc: the configuration is
# the administrator's (docs/daemon.md, "Quick start").
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DOCDIR ?= $(PREFIX)/share/doc/tracegate
UNITDIR ?= $(PREFIX)/lib/systemd/system
install: $(BUILD)/tracegate
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)/examples/rules $(DESTDIR)$(DOCDIR)/examples/ci
	install -m 0755 $(BUILD)/tracegate $(DESTDIR)$(BINDIR)/tracegate
	install -m 0755 $(BUILD)/tracegate-daemon $(DESTDIR)$(BINDIR)/tracegate-daemon
	sed -e 's|/usr/local/bin/tracegate|$(BINDIR)/tracegate|g' -e 's|/usr/local/share/doc/tracegate|$(DOCDIR)|g' \
		-e 's|/usr/share/doc/tracegate|$(DOCDIR)|g' -e 's|/usr/local/lib/systemd/system/|$(UNITDIR)/|g' \
		contrib/systemd/tracegate.service > $(BUILD)/tracegate.service
	install -m 0644 $(BUILD)/tracegate.service $(DESTDIR)$(UNITDIR)/tracegate.service
	install -m 0644 README.md docs/*.md docs/manifest.schema.json docs/*.png docs/*.svg $(DESTDIR)$(DOCDIR)/
	install -m 0644 contrib/config/*.yaml $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 contrib/rules/default.yaml $(DESTDIR)$(DOCDIR)/examples/rules/default.yaml
	install -m 0644 contrib/ci/*.yml $(DESTDIR)$(DOCDIR)/examples/ci/
	install -m 0755 contrib/ci/tracegate-upload.sh $(DESTDIR)$(DOCDIR)/examples/ci/
	@echo "installed: $(DESTDIR)$(BINDIR)/tracegate, $(DESTDIR)$(BINDIR)/tracegate-daemon, $(DESTDIR)$(UNITDIR)/tracegate.service, $(DESTDIR)$(DOCDIR)/"
	@echo "next: docs/daemon.md, \"Quick start\" ($(DOCDIR)/daemon.md)"

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tracegate $(DESTDIR)$(BINDIR)/tracegate-daemon $(DESTDIR)$(UNITDIR)/tracegate.service
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build build-san build-tsan build-fuzz tracegate tracegate-daemon

# the headers each object was compiled from (see DEPFLAGS); named here so
# that make counts a missing one as new, not as an intermediate file
ALL_DEP := $(patsubst %.o,%.d,$(CORE_OBJ) $(RULES_OBJ) $(UTIL_OBJ) $(NET_OBJ) $(RENDER_OBJ) \
	$(CLI_OBJ) $(CONFIG_OBJ) $(DAEMON_OBJ) $(EXEC_OBJ) $(BUILD)/cli/main.o $(FUZZ_LIB_OBJ) \
	$(foreach t,$(FUZZ_NAMES),$(call fuzz_obj,$(t))))
$(ALL_DEP):
-include $(wildcard $(ALL_DEP) $(TEST_BIN:%=%.d))
