#!/bin/sh
# The whole pi-stats suite again, with pi-stats built with ASan and UBSan
# (any sanitizer report fails the test that triggered it).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec make -s --no-print-directory -C "$top/tools/pi-stats" check-asan
