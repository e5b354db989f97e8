# xen-bigvm: the patch series, the patched Xen build and the tools around it.
# `make help` lists the targets; README.md says what each one does.

TOP := $(CURDIR)
BUILD := $(TOP)/build
# The Xen release the series is applied to: 4.17, 4.20 or master (README).
BASE ?= 4.17
TREE := $(BUILD)/xen$(if $(filter-out 4.17,$(BASE)),-$(BASE))
JOBS ?= $(shell nproc)
# The builds themselves need no network: prove it whenever we can.
NONET ?= $(shell unshare -n true 2>/dev/null && echo unshare -n)
export JOBS NONET XEN_SRC BASE TREE

.PHONY: help deps tree pq-import pq-export submission xen xen-debug xen-release tools \
	series-check matrix abi-check pi-stats pi-harness qemu e2e e2e-shell e2e-flake xen-stock bench \
	fuzz model demo check check-matrix e2e-stock-compare deb deb-check

help:
	@echo "make demo          the bound, off against on, then build the patched Xen"
	@echo "make check         the whole test suite (what CI runs)"
	@echo "make xen           patched hypervisor, debug=y and release"
	@echo "make tools         patched tools, installed into build/xen/dist/install"
	@echo "make pq-import     build/xen = base + one git commit per patch"
	@echo "make pq-export     regenerate patches/BASE from the tree"
	@echo "make submission    the master queue as xen-devel series (build/submission)"
	@echo "make series-check  build after each patch in turn; name the first that breaks"
	@echo "make matrix        build in upstream's configurations (MATRIX=a,b; MATRIX_REV=base)"
	@echo "make check-matrix  tests/matrix/matrix.t: the script, and hvm-n/vmx-n on 4.17 and master"
	@echo "make abi-check     the tools libraries' ABI against the base's (abidiff)"
	@echo "make pi-stats      build tools/pi-stats/pi-stats"
	@echo "make pi-harness    run the PI blocking-list harness scenarios (build/pi-harness)"
	@echo "make e2e           boot the patched Xen under QEMU with real guests (build/e2e)"
	@echo "make e2e-shell     boot it and leave you at a dom0 shell"
	@echo "make e2e-flake     PVH death rate p0 under TCG on stock Xen (RUNS=10)"
	@echo "make e2e-stock-compare  default guests' CPUID, topology and ACPI tables: series = stock"
	@echo "make xen-stock     Xen from the base alone, no patch (build/xen-stock)"
	@echo "make qemu          the boot test's QEMU: Debian's, rebuilt with tests/e2e/qemu/*.patch"
	@echo "make deb           Debian packages of the patched Xen and pi-stats (build/deb)"
	@echo "make deb-check     judge them against Debian's, install them, boot a Debian dom0"
	@echo "make bench         pi-stats vs xenalyze, and the harness figures"
	@echo "make fuzz          libFuzzer on the pi-stats reader (FUZZ_SECONDS=60)"
	@echo "make model         Spin: the PI blocking-list model, and its mutants rejected"
	@echo "BASE=4.20|master   the series for another Xen (default 4.17); tree build/xen-BASE"
	@echo "XEN_SRC=/path      use your own Xen tree (or a tarball of one) as the base"

deps:
	@scripts/deps.sh build

# build/xen as the series describes it, unless it holds a developer's
# unexported commits, which are then built as they are.
tree: deps
	@rc=0; scripts/pq.sh status $(TREE) 2>/dev/null || rc=$$?; \
	case $$rc in \
	0) ;; \
	1) scripts/pq.sh import $(TREE) ;; \
	*) scripts/pq.sh status $(TREE) || \
	   echo "make: building build/xen as it is" ;; \
	esac

pq-import: deps
	@scripts/pq.sh import $(TREE)

pq-export:
	@scripts/pq.sh export $(TREE)
	@scripts/patch-table.py

# The master queue as the three series for xen-devel (build/submission).
submission:
	@$(MAKE) -s --no-print-directory pq-import BASE=master
	@rm -rf $(BUILD)/submission
	@TREE=$(BUILD)/xen-master scripts/submission.sh $(BUILD)/submission

xen: xen-debug xen-release

xen-debug: tree
	@scripts/build-xen.sh hypervisor debug

xen-release: tree
	@scripts/build-xen.sh hypervisor release

tools: tree
	@scripts/build-xen.sh tools

series-check: deps
	@scripts/series-check.sh

# The tree in upstream's build configurations (scripts/matrix.conf), each in
# build/matrix/BASE/CONF; MATRIX=a,b picks some, MATRIX_REV=base builds the
# pristine base instead.  matrix.sh makes the tree as `make tree` does.
matrix: deps
	@scripts/deps.sh matrix
	@MATRIX="$(MATRIX)" MATRIX_REV="$(MATRIX_REV)" scripts/matrix.sh

# Each tools library of the patched tree against the base's: the same ABI
# under the same SONAME, or a new SONAME (scripts/abi-check.sh, abidiff).
abi-check: tree
	@scripts/deps.sh abi
	@scripts/abi-check.sh

pi-stats:
	@$(MAKE) -s -C tools/pi-stats

# Debian's xen source package of the base with the queue appended to its
# debian/patches, built with dpkg-buildpackage, and pi-stats as a package
# of its own (scripts/deb.sh); build/deb (build/deb-4.20).
DEB_OUT ?= $(BUILD)/deb$(if $(filter-out 4.17,$(BASE)),-$(BASE))
deb:
	@scripts/deps.sh build deb
	@scripts/deb.sh $(DEB_OUT)

# tests/deb/packages.t and dom0.t: the packages installed into fresh Debian
# roots, one booted as dom0; outside the CI budget of `make check` (which
# runs tests/deb/layout.t, the packages compared with Debian's own).
deb-check: deb qemu
	@DEB_OUT=$(DEB_OUT) prove -f --timer tests/deb/packages.t tests/deb/dom0.t

# The harness compiles pi.c from build/xen itself: it needs the tree only.
pi-harness: tree
	@$(MAKE) -s -C tests/pi-harness TREE=$(TREE) bench

# Each base's boot test writes to its own directory (build/e2e-master, ...).
E2E_OUT ?= $(patsubst $(BUILD)/xen%,$(BUILD)/e2e%,$(TREE))
qemu:
	@scripts/deps.sh e2e
	@scripts/build-qemu.sh build/cache build/qemu

e2e: xen-debug tools pi-stats qemu
	@E2E_OUT=$(E2E_OUT) /usr/bin/python3 tests/e2e/e2e.py

e2e-shell: xen-debug tools pi-stats qemu
	@E2E_OUT=$(E2E_OUT) /usr/bin/python3 tests/e2e/e2e.py --shell

xen-stock: tree
	@scripts/build-xen.sh stock

RUNS ?= 10
e2e-flake: xen-debug tools xen-stock pi-stats qemu
	@/usr/bin/python3 tests/e2e/e2e.py --flake $(RUNS)

# Default guests on the series and on the base alone, field by field.
e2e-stock-compare: xen-debug tools xen-stock pi-stats qemu
	@/usr/bin/python3 tests/e2e/stock_compare.py

bench: pi-harness tools
	@$(MAKE) -s -C tools/pi-stats bench

FUZZ_SECONDS ?= 60
fuzz:
	@scripts/deps.sh fuzz
	@$(MAKE) -s -C tools/pi-stats fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# Needs no Xen tree: the model is written from pi.c, not compiled from it.
model:
	@scripts/deps.sh model
	@tests/model/run.sh

# The main job first: the bound, replayed by the harness on the 2017
# scenario (128 vCPUs on one pCPU), recorded as real xentrace files and read
# back by pi-stats; it needs the patched tree, not a Xen build.  Then the
# patched Xen itself, which takes longer and says so.
demo: pi-harness pi-stats
	@echo
	@echo "== pi-stats on traces written by the harness (Xen's pi.c run in userspace, not a host)"
	@echo "== nic-128on1: before = bound off (vmx-pi-list-limit=0), after = bound on (auto)"
	@tools/pi-stats/pi-stats --compare build/pi-harness/nic-128on1-off.xentrace \
	  build/pi-harness/nic-128on1-on.xentrace
	@echo
	@echo "harness summary: build/pi-harness/summary.json"
	@echo "demo: now building the patched Xen ($$(wc -l < patches/$(BASE)/series) patches, several minutes;" \
	  "Ctrl-C stops only this, 'make xen tools' builds it later)"
	@$(MAKE) -s --no-print-directory xen tools
	@echo "patched Xen: hypervisor $(TREE:$(TOP)/%=%)/xen/xen.gz (debug=y)," \
	  "$(TREE:$(TOP)/%=%)-release/xen/xen.gz (release), tools $(TREE:$(TOP)/%=%)/dist/install/"

# The suite is 4.17's; tests/bases/bases.t applies, builds and unit-tests
# the 4.20 and master queues (XEN_SRC_4_20, XEN_SRC_MASTER).
# tests/series/series-check.t runs last: it builds build/xen after each
# patch in turn (taking the commits that built before from its cache), and
# leaves it at the series, built.  The Debian packages build as root only
# (a chroot): tests/deb/layout.t skips when they are not there.
check: deps
	$(if $(filter-out 4.17,$(BASE)),$(error make check is 4.17's suite, and tests the other bases itself (tests/bases/bases.t): run it without BASE=$(BASE)))
	@scripts/deps.sh e2e model abi deb
	@$(MAKE) -s --no-print-directory xen tools pi-stats qemu $(if $(filter 0,$(shell id -u)),deb)
	@prove -f --timer tests/foundation/*.t tools/pi-stats/tests/pi-stats.t \
	    tests/sanitizers/*.t tests/topology/*.t tests/xentrace/*.t \
	    tests/pi-harness/*.t tests/abi/*.t tests/deb/deb.t tests/deb/layout.t \
	    tests/model/*.t \
	    tests/e2e/*.t tests/bases/*.t tests/series/*.t

# tests/matrix/matrix.t: three hypervisor builds in configurations without
# HVM or VT-x (7 minutes), outside the CI budget of `make check`.
check-matrix: deps tree
	@prove -f --timer tests/matrix/*.t
