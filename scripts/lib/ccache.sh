# Compile through ccache (POSIX sh, sourced after `top`, the repository
# top, is set): Debian's masquerade directory first in PATH, which also
# keeps a pyenv or venv python3-config out of the build; the cache outside
# build/ so that another clone on the same machine reuses it; paths hashed
# relative to the repository, so a clone elsewhere hits too.
#
#   CCACHE_DIR      default ~/.cache/xen-bigvm/ccache
#   CCACHE_MAXSIZE  default 5G
# shellcheck shell=sh

export PATH="/usr/lib/ccache:/usr/bin:/bin:$PATH"
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-bigvm/ccache}"
export CCACHE_BASEDIR="${top:?ccache.sh: set top before sourcing it}" CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
