#!/usr/bin/env bash
# Suite 'install': the ring and marker libraries as a third party gets
# them.  `meson install --tags devel` of this build into a temporary
# DESTDIR (headers, static libraries, .pc files), then third_party.c is
# compiled and linked with nothing but `pkg-config --cflags --libs
# ringside-ring ringside-mark` pointed at that DESTDIR, and run.
#   install.sh MESON BUILD_DIR SOURCE [CC_FLAG...] -- CC...
set -euo pipefail
meson=$1 build=$2 src=$3
shift 3
extra=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do extra+=("$1"); shift; done
shift
cc=("$@")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rs-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/destdir

"$meson" install -C "$build" --no-rebuild --quiet --tags devel \
	--destdir "$dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "install: meson install failed"; exit 1; }

# Only what a third party needs may be installed: public headers, the
# two libraries, their .pc files.  No private header (ring/src,
# guest-agent/linux, ...) may come along.
for h in ring.h ring_region.h ring_producer.h ring_consumer.h abi.h \
	abi_region.h abi_ctrl.h perf_format.h mark.h mark_wire.h; do
	[ -n "$(find "$dest" -path "*/include/ringside/$h")" ] ||
		{ echo "install: ringside/$h not installed"; exit 1; }
done
stray=$(find "$dest" -path '*/include/*' -name '*.h' \
	! -path '*/include/ringside/*' -print)
[ -z "$stray" ] || { echo "install: headers outside ringside/: $stray"; exit 1; }

pcdir=$(dirname "$(find "$dest" -name ringside-ring.pc | head -n1)")
[ -f "$pcdir/ringside-mark.pc" ] ||
	{ echo "install: ringside-ring.pc and ringside-mark.pc not side by side"; exit 1; }
export PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest
unset PKG_CONFIG_PATH
cflags=$(pkg-config --cflags ringside-ring ringside-mark)
libs=$(pkg-config --libs ringside-ring ringside-mark)
echo "pkg-config --cflags: $cflags"
echo "pkg-config --libs:   $libs"
case " $cflags " in *"$dest"*) ;; *)
	echo "install: the cflags do not point into DESTDIR"; exit 1;;
esac

# Every installed header compiles on its own: it includes what it needs,
# and nothing that was not installed.
for h in $(cd "$(dirname "$(find "$dest" -path '*/include/ringside/ring.h')")" &&
	   ls -- *.h); do
	# shellcheck disable=SC2086
	printf '#include <ringside/%s>\n' "$h" |
		"${cc[@]}" -std=c11 -Wall -Wextra -Werror "${extra[@]}" $cflags \
			-x c -fsyntax-only - ||
		{ echo "install: ringside/$h does not compile on its own"; exit 1; }
done

# The installed headers alone: the source tree is not on any -I path.
# shellcheck disable=SC2086
"${cc[@]}" -std=c11 -Wall -Wextra -Werror "${extra[@]}" $cflags \
	"$src" -o "$tmp/third-party" $libs
mkdir "$tmp/run"
"$tmp/third-party" "$tmp/run"
