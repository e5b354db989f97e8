# xen-bigvm: the patch series, the patched Xen build and the tools around it.
# `make help` lists the targets; README.md says what each one does.

TOP := $(CURDIR)
BUILD := $(TOP)/build
TREE := $(BUILD)/xen
JOBS ?= $(shell nproc)
# The builds themselves need no network: prove it whenever we can.
NONET ?= $(shell unshare -n true 2>/dev/null && echo unshare -n)
export JOBS NONET XEN_SRC

.PHONY: help deps tree pq-import pq-export xen xen-debug xen-release tools \
	series-check demo check

help:
	@echo "make demo          build the patched Xen and show what it gives"
	@echo "make check         the whole test suite (what CI runs)"
	@echo "make xen           patched hypervisor, debug=y and release"
	@echo "make tools         patched tools, installed into build/xen/dist/install"
	@echo "make pq-import     build/xen = base + one git commit per patch"
	@echo "make pq-export     regenerate patches/ and patches/series from build/xen"
	@echo "make series-check  build after each patch in turn; name the first that breaks"
	@echo "XEN_SRC=/path      use your own Xen 4.17 tree as the base"

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

xen: xen-debug xen-release

xen-debug: tree
	@scripts/build-xen.sh hypervisor debug

xen-release: tree
	@scripts/build-xen.sh hypervisor release

tools: tree
	@scripts/build-xen.sh tools

series-check: deps
	@scripts/series-check.sh

demo: xen tools
	@echo
	@echo "patched Xen ($$(wc -l < patches/series) patches from patches/series):"
	@echo "  hypervisor (debug=y): build/xen/xen/xen, build/xen/xen/xen.gz"
	@echo "  hypervisor (release): build/xen-release/xen/xen.gz"
	@echo "  tools:                build/xen/dist/install/"

check: xen tools
	@prove -f tests/*/*.t
