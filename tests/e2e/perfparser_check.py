#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Judge what hotspot's parser (hotspot-perfparser, Debian's hotspot) made
of a perf.data file, from the stream it writes to --output: "QPERFSTREAM",
a NUL, a little-endian i32 (the QDataStream version), then records, each a
little-endian u32 size and that many bytes of a QDataStream (big-endian):
a u8 type, then per type (perfparser's PerfUnwind::EventType, the order
hotspot 1.3.0's parser sends):
  2 Command          i32 pid, i32 tid, u64 time, i32 cpu, i32 string id
  4 SymbolDefinition i32 id, i32 name, i32 binary, i32 path, bool kernel..
  5 StringDefinition i32 id, QByteArray (u32 length, bytes)
  8 Error            i32 code (2 missing ELF, 3 bad kallsyms), QString
                     (u32 byte length, UTF-16BE)
Nothing else is read.

  perfparser_check.py names STREAM PERF_COMMS PERF_MMAPS BUILDIDS
      PERF_COMMS: the process names perf reads (one a line); PERF_MMAPS:
      the paths of the file's MMAP/MMAP2 records as perf reads them (one a
      line); BUILDIDS: `perf buildid-list -i FILE` (id path) of the file's
      build ids whose cache entries are there.  Fails on a process name
      perf does not know (cut short), a binary name that is not a whole
      path's (or its file name's, or a [bracketed] name with its ']'), a
      symbol's mapping that is not a path of the file, kernel frames
      not in [kernel.kallsyms], an error other than a missing ELF, a
      missing ELF of an empty or cut path, or a missing ELF of a binary
      whose build id is in BUILDIDS.
  perfparser_check.py kernel STREAM CONSOLE HOST_KALLSYMS MODE
      The names of the kernel symbols perfparser sent against the guest's
      kallsyms (captured on CONSOLE, ksyms_check.py) and the host's
      (HOST_KALLSYMS): how many are the guest's, how many only the
      host's.  MODE guest: fails unless every named one is the guest's
      and there is one; MODE measure: says, status 0.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MISSING_ELF = 2


def qbytes(b, o):
    n, = struct.unpack_from('>I', b, o)
    o += 4
    if n == 0xffffffff:
        return None, o
    return b[o:o + n], o + n


def parse(path):
    d = open(path, 'rb').read()
    if not d.startswith(b'QPERFSTREAM\0'):
        sys.exit('%s: not a perfparser stream' % path)
    p = 16
    strings, comms, syms, errors = {}, [], [], []
    while p + 4 <= len(d):
        n, = struct.unpack_from('<I', d, p)
        p += 4
        b = d[p:p + n]
        p += n
        if len(b) != n or not n:
            sys.exit('%s: a record runs past the end' % path)
        t = b[0]
        if t == 5:
            i, = struct.unpack_from('>i', b, 1)
            strings[i], _ = qbytes(b, 5)
        elif t == 4:
            _, name, binary, spath, kernel = struct.unpack_from('>iiii?', b, 1)
            syms.append((name, binary, spath, kernel))
        elif t == 2:
            comms.append(struct.unpack_from('>i', b, 1 + 4 + 4 + 8 + 4)[0])
        elif t == 8:
            code, = struct.unpack_from('>i', b, 1)
            m, _ = qbytes(b, 5)
            errors.append((code, m.decode('utf-16-be') if m else ''))
    return strings, comms, syms, errors


def lines(path):
    return {l.rstrip('\n') for l in open(path, errors='replace') if l.strip()}


def missing_path(msg):
    head, tail = 'Could not find ELF file for ', '. This can break'
    if msg.startswith(head) and tail in msg:
        return msg[len(head):msg.index(tail)]
    return None


def names(stream, comms_file, mmaps_file, buildids_file):
    strings, comms, syms, errors = parse(stream)
    perf_comms = lines(comms_file)
    mmaps = lines(mmaps_file)
    whole = mmaps | {os.path.basename(m) for m in mmaps}
    sent = set()
    for l in lines(buildids_file):
        f = l.split(None, 1)
        if len(f) == 2:
            sent.add(f[1])
    bad = []
    got_comms = sorted({(strings.get(c) or b'').decode('latin-1')
                        for c in comms})
    for c in got_comms:
        if c not in perf_comms:
            bad.append('process name %r: perf knows no such name (cut?)' % c)
    binaries = sorted({(strings.get(s[1]) or b'').decode('latin-1')
                       for s in syms if s[1] >= 0})
    for b in binaries:
        if b.startswith('['):
            if not b.endswith(']'):
                bad.append('binary %r: cut' % b)
        elif b not in whole:
            bad.append('binary %r: not a whole path of the file' % b)
    # each symbol's mapping: a path of the file's MMAP/MMAP2 records, the
    # kernel's ([kernel.kallsyms]_text: perfparser gives kernel frames no
    # binary name, as for perf's own files) and [vdso] included
    paths = sorted({(strings.get(s[2]) or b'').decode('latin-1')
                    for s in syms if s[2] >= 0})
    for m in paths:
        if m not in mmaps:
            bad.append('mapping %r: not a whole path of the file' % m)
    kpaths = sorted({(strings.get(s[2]) or b'').decode('latin-1')
                     for s in syms if s[3] and s[2] >= 0})
    missing = {}
    for code, msg in errors:
        if code != MISSING_ELF:
            bad.append('error %d: %s' % (code, msg))
            continue
        m = missing_path(msg)
        if m is None or m not in mmaps:
            bad.append('missing ELF of %r: not a whole path of the file'
                       % (m if m is not None else msg))
        elif m in sent:
            bad.append('missing ELF of %s, whose symbols are in the '
                       'build-id cache' % m)
        missing[m] = missing.get(m, 0) + 1
    print('%d process names (%s), %d binaries (%s), %d mappings (%s), '
          '%d errors: %s' %
          (len(got_comms), ' '.join(got_comms[:12]), len(binaries),
           ' '.join(binaries[:12]), len(paths), ' '.join(paths[:12]),
           len(errors),
           ', '.join('missing ELF of %s x%d' % kv
                     for kv in sorted(missing.items())) or 'none'))
    if 'rs-workload' not in got_comms:
        bad.append('no process named rs-workload')
    if not kpaths or any(not k.startswith('[kernel.kallsyms]')
                         for k in kpaths):
        bad.append('kernel frames mapped by %r, not [kernel.kallsyms]'
                   % kpaths)
    for b in bad[:20]:
        print('   ', b)
    return 1 if bad else 0


def kernel(stream, console, host_kallsyms, mode):
    import ksyms_check
    _, by_addr = ksyms_check.table(console)
    guest = set()
    for s in by_addr.values():
        guest |= s
    host = set()
    for l in open(host_kallsyms, errors='replace'):
        f = l.split()
        if len(f) >= 3:
            host.add(f[2])
    strings, _, syms, _ = parse(stream)
    knames = {(strings.get(s[0]) or b'').decode('latin-1')
              for s in syms if s[3]}
    named = {n for n in knames if n}
    ours = {n for n in named if n in guest}
    host_only = sorted(n for n in named if n not in guest and n in host)
    other = sorted(n for n in named if n not in guest and n not in host)
    print('%d kernel symbols: %d the guest\'s, %d only the host\'s%s, '
          '%d neither%s, %d unnamed' %
          (len(named), len(ours), len(host_only),
           ' (' + ' '.join(host_only[:3]) + ')' if host_only else '',
           len(other), ' (' + ' '.join(other[:3]) + ')' if other else '',
           len(knames - named)))
    if mode == 'measure':
        return 0
    return 0 if ours and ours == named else 1


def main(argv):
    if len(argv) == 6 and argv[1] == 'names':
        return names(*argv[2:])
    if len(argv) == 6 and argv[1] == 'kernel':
        return kernel(*argv[2:])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
