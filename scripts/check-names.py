#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The naming rule of ringside's libraries, checked on a build tree.

Every function a product library exports carries that library's prefix,
then the module it lives in, named as its file is:

    prefix_module_verb   in   FOLDER/src/module.c  (or prefix_module.c,
                              or module_none.c, its stand-in)

A library's own file (named after the library: svc.c, vmm.c, opt.c) may
hold prefix_verb names.  Run after a build:

    scripts/check-names.py BUILD_DIR

Lists every exported name that breaks the rule and exits 1 when there is
one; the table below is the one place the libraries' prefixes are set.
"""
import os
import subprocess
import sys

# library archive (relative to the build dir) -> (prefix, own-file stems)
LIBRARIES = {
    'ring/libringside-ring.a': ('rs', ()),
    'base/libringside-base.a': ('rs', ()),
    'text/libringside-text.a': ('rs_text', ('text',)),
    'guest-agent/mark/libringside-mark.a': ('rs_mark', ('mark',)),
    'perfdata/libringside-perfdata.a': ('pdf', ()),
    'pprof/libringside-pprof.a': ('pprof', ()),
    'opt/libringside-opt.a': ('opt', ('opt',)),
    'introspect/libringside-introspect.a': ('gi', ()),
    'capture/libringside-capture.a': ('cap', ()),
    'hostview/libringside-hostview.a': ('hv', ()),
    'libvirt/libringside-domain.a': ('dom', ()),
    'libvirt/libringside-libvirt.a': ('dom', ()),
    'service/libringside-service.a': ('svc', ('svc',)),
    'service/client/libringside-svc-client.a': ('svc', ()),
    'vmm/libringside-vmm.a': ('vmm', ('vmm',)),
    'tools/libringside-host-util.a': ('host', ('host_util',)),
    'guest-agent/linux/libringside-agent-linux.a': ('agent', ()),
    'pt-virt/core/libringside-pt-core.a': ('pv', ()),
    'pt-virt/codec/libringside-pt-codec.a': ('pv', ()),
    'pt-virt/perfdata/libringside-pt-perfdata.a': ('pv', ()),
    'pt-virt/tracer/libringside-pt-tracer.a': ('pv', ()),
}


def exported(archive):
    """(file stem, symbol) for every function the archive defines."""
    out = subprocess.run(['nm', '-A', '-g', '--defined-only', archive],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # ARCHIVE:MEMBER.c.o:VALUE T NAME
        parts = line.rsplit(' ', 2)
        if len(parts) != 3 or parts[1] != 'T':
            continue
        member = parts[0].split(':')[1]
        stem = os.path.basename(member)
        for suffix in ('.o', '.c'):
            if stem.endswith(suffix):
                stem = stem[:-len(suffix)]
        # meson names members after the source path: src_producer.c.o
        if stem.startswith('src_'):
            stem = stem[4:]
        yield stem, parts[2]


def module_of(stem, prefix):
    p = prefix + '_'
    mod = stem[len(p):] if stem.startswith(p) else stem
    # MODULE_none.c stands in for MODULE.c where an optional library is
    # missing (libvirt/src/virt_none.c): the same functions, the same names
    if mod.endswith('_none'):
        mod = mod[:-len('_none')]
    return mod


def breaks(prefix, own, stem, name):
    """Why NAME in STEM.c breaks the rule, or None."""
    if not name.startswith(prefix + '_'):
        return 'not %s_*' % prefix
    if stem in own:
        return None
    mod = module_of(stem, prefix)
    want = '%s_%s' % (prefix, mod)
    if name == want or name.startswith(want + '_'):
        return None
    return 'in %s.c, not %s_*' % (stem, want)


def main():
    if len(sys.argv) != 2:
        print('usage: check-names.py BUILD_DIR', file=sys.stderr)
        return 2
    build = sys.argv[1]
    bad = []
    seen = 0
    for rel, (prefix, own) in sorted(LIBRARIES.items()):
        path = os.path.join(build, rel)
        if not os.path.exists(path):
            continue
        seen += 1
        for stem, name in exported(path):
            why = breaks(prefix, own, stem, name)
            if why:
                bad.append('%s: %s (%s)' % (rel.split('/')[0], name, why))
    if not seen:
        print('check-names: no library found under %s' % build,
              file=sys.stderr)
        return 2
    for b in sorted(set(bad)):
        print(b)
    print('check-names: %d exported names break the rule' % len(set(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
