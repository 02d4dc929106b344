#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Judge perf's names of a guest's kernel samples against the guest's own
/proc/kallsyms, captured independently of ringside: guest_init.sh prints
it (the lines perf reads, gzip + base64) on the serial console between
E2E-KALLSYMS-BEGIN and E2E-KALLSYMS-END.

  ksyms_check.py table CONSOLE
      the captured table's size: "LINES lines, BYTES bytes"
  ksyms_check.py names CONSOLE SCRIPT MIN_PERCENT
      SCRIPT: `perf script -F event,ip,sym -G`; every ringside:sample at a
      kernel address must carry the name the table gives that address
      (the last symbol at or below it); fails below MIN_PERCENT
  ksyms_check.py report REPORT MIN_PERCENT
      REPORT: `perf report --stdio --sort sym -g none --no-children`; the
      share of ringside:sample's kernel ([k]) samples with a name
  ksyms_check.py crash SCRIPT LAST NAME...
      SCRIPT: `perf script -F event,ip,sym` (call chains); one of the LAST
      newest ringside:sample samples has one of NAMEs in its chain
  ksyms_check.py extra SCRIPT BASE NAME...
      the ringside:sample samples of SCRIPT that BASE (the same rings
      without the guest perf buffers) does not have: how many, how many
      name one of NAMEs, the newest of them; status 0 always
  ksyms_check.py itrace CONSOLE SCRIPT MIN_PERCENT
      SCRIPT (- for stdin): `perf script --itrace=i0ns -F cpu,ip,sym`, one
      line per decoded instruction; every kernel instruction should carry
      a name, the one the table gives its address; fails when there is
      none, fewer than MIN_PERCENT are named so, or perf printed an
      instruction trace error
  ksyms_check.py itrace-segment CONSOLE SCRIPT MIN_PERCENT PREFIX [MOST]
      the same output with errors (--itrace=i0nse): per CPU, what follows
      its last instruction trace error, named as above (MIN_PERCENT), and
      written to PREFIX.CPU, a hex address a line (pt-qemu-check ips);
      fails on any error after a CPU's first overflow (what follows the
      loss must decode whole), and after MOST lines (a runaway decode)
  ksyms_check.py itrace-last SCRIPT LAST NAME...
      the same output: one CPU's LAST newest instructions run in one of
      NAMEs (a flight recorder's end)
  ksyms_check.py symbolize CONSOLE [FILE]
      FILE (default stdin) with every kernel address in it followed by
      <symbol+offset> as the table names it: a failure's addresses read
      where the guest's table is gone (a CI log)
"""
import array
import base64
import collections
import bisect
import gzip
import re
import sys

KERNEL_MIN = 0xffff800000000000


def captured(console):
    text = open(console, 'rb').read().decode('latin-1').replace('\r', '')
    begin = text.find('E2E-KALLSYMS-BEGIN\n')
    end = text.find('E2E-KALLSYMS-END', begin)
    if begin < 0 or end < 0:
        sys.exit('no E2E-KALLSYMS-BEGIN .. END on the console')
    body = text[begin + len('E2E-KALLSYMS-BEGIN\n'):end]
    blob = ''.join(l for l in body.split('\n')
                   if re.fullmatch(r'[A-Za-z0-9+/=]+', l))
    try:
        return gzip.decompress(base64.b64decode(blob)).decode()
    except Exception as e:  # a kernel message amid the lines, a cut
        sys.exit('the captured kallsyms does not decode: %s' % e)


def table(console):
    by_addr = {}
    for line in captured(console).splitlines():
        f = line.split()
        if len(f) < 3:
            continue
        a = int(f[0], 16)
        if a:
            by_addr.setdefault(a, set()).add(f[2])
    addrs = sorted(by_addr)
    return addrs, by_addr


def names(console, script, min_pct):
    addrs, by_addr = table(console)
    total = good = unnamed = 0
    wrong = []
    for line in open(script, errors='replace'):
        f = line.split()
        if len(f) < 3 or f[0] != 'ringside:sample:':
            continue
        try:
            ip = int(f[1], 16)
        except ValueError:
            continue
        if ip < KERNEL_MIN:
            continue
        total += 1
        i = bisect.bisect_right(addrs, ip) - 1
        want = by_addr[addrs[i]] if i >= 0 else set()
        got = f[2]
        if got in want:
            good += 1
        elif got == '[unknown]':
            unnamed += 1
        else:
            wrong.append('%x: perf says %s, the table %s' %
                         (ip, got, '/'.join(sorted(want)) or 'nothing'))
    pct = 100.0 * good / total if total else 0.0
    print('%d of %d kernel samples named as the guest\'s kallsyms says '
          '(%.1f%%), %d unnamed, %d named otherwise' %
          (good, total, pct, unnamed, len(wrong)))
    for w in wrong[:5]:
        print('   ', w)
    return 0 if total and pct >= min_pct else 1


def report(path, min_pct):
    section = None
    named = unnamed = 0.0
    for line in open(path, errors='replace'):
        m = re.match(r"# Samples: .* of event '([^']+)'", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r'\s+([\d.]+)%\s+\[k\]\s+(\S+)', line)
        if not m or section != 'ringside:sample':
            continue
        if m.group(2).startswith('0x'):
            unnamed += float(m.group(1))
        else:
            named += float(m.group(1))
    total = named + unnamed
    pct = 100.0 * named / total if total else 0.0
    print('perf report: %.1f%% of ringside:sample\'s kernel samples named '
          '(%.2f%% of all samples named, %.2f%% not)' % (pct, named, unnamed))
    return 0 if total and pct >= min_pct else 1


def samples_of(script):
    samples, cur = [], None
    for line in open(script, errors='replace'):
        if line.strip() == '':
            cur = None
            continue
        if not line[0].isspace() or 'ringside:' in line.split()[0]:
            cur = [line] if 'ringside:sample:' in line else None
            if cur is not None:
                samples.append(cur)
            continue
        if cur is not None:
            cur.append(line)
    return samples


def names_any(sample, wanted):
    return any(re.search(r'\s%s(\+0x[0-9a-f]+)?\s*$' % re.escape(n), l)
               for l in sample for n in wanted)


def extra(script, base, wanted):
    have = {}
    for s in samples_of(base):
        k = ''.join(s)
        have[k] = have.get(k, 0) + 1
    more = []
    for s in samples_of(script):
        k = ''.join(s)
        if have.get(k, 0):
            have[k] -= 1
        else:
            more.append(s)
    hits = [s for s in more if names_any(s, wanted)]
    print('%d samples only from the guest perf buffers, %d with %s' %
          (len(more), len(hits), ' or '.join(wanted)))
    for s in (hits or more)[-1:]:
        print(''.join('    ' + l.strip() + '\n' for l in s[:8]), end='')
    return 0


def crash(script, last, wanted):
    samples = samples_of(script)
    tail = samples[-last:]
    hits = [s for s in tail if names_any(s, wanted)]
    print('%d of the newest %d samples (of %d) have %s in their call chain' %
          (len(hits), len(tail), len(samples), ' or '.join(wanted)))
    for s in hits[-1:]:
        print(''.join('    ' + l.strip() + '\n' for l in s[:12]), end='')
    return 0 if hits else 1


ITRACE = re.compile(r'\s*\[(\d+)\]\s+([0-9a-f]+)\s+(\S+)')


def itrace_lines(script, errors=None):
    f = sys.stdin if script == '-' else open(script, errors='replace')
    for line in f:
        m = ITRACE.match(line)
        if m:
            yield int(m.group(1)), int(m.group(2), 16), m.group(3)
        elif errors is not None and 'instruction trace error' in line:
            errors.append(line.strip())


def itrace(console, script, min_pct):
    addrs, by_addr = table(console)
    total = named = agree = user = 0
    cpus = collections.Counter()
    wrong = []
    funcs = collections.Counter()
    errors = []
    for cpu, ip, sym in itrace_lines(script, errors):
        if ip < KERNEL_MIN:
            user += 1
            continue
        total += 1
        cpus[cpu] += 1
        if sym == '[unknown]':
            continue
        named += 1
        funcs[sym] += 1
        i = bisect.bisect_right(addrs, ip) - 1
        if i >= 0 and sym in by_addr[addrs[i]]:
            agree += 1
        elif len(wrong) < 5:
            wrong.append('%x: perf says %s, the table %s' %
                         (ip, sym, '/'.join(sorted(by_addr[addrs[i]]))
                          if i >= 0 else 'nothing'))
    pct = 100.0 * agree / total if total else 0.0
    print('%d kernel instructions decoded (%s), %d named (%.1f%%), %d as '
          'the guest\'s kallsyms says (%.1f%%), %d functions; %d user, '
          '%d trace errors' %
          (total, ', '.join('cpu %d: %d' % c for c in sorted(cpus.items())),
           named, 100.0 * named / total if total else 0.0, agree, pct,
           len(funcs), user, len(errors)))
    print('    most run: ' + ', '.join('%s %d' % f for f in funcs.most_common(6)))
    for w in wrong + errors[:5]:
        print('   ', w)
    return 0 if total and pct >= min_pct and not errors else 1


ERROR_CPU = re.compile(r'instruction trace error .*\bcpu (-?\d+)')
ERROR_IP = re.compile(r'\bip (?:0x)?([0-9a-f]+)')
ERROR_KIND = re.compile(r'code \d+: (.*?)\s*$')


def name_of(addrs, by_addr, ip):
    """ip as the table names it: symbol+0xoffset, or '?'."""
    i = bisect.bisect_right(addrs, ip) - 1
    if i < 0 or ip < KERNEL_MIN:
        return '?'
    return '%s+%#x' % ('/'.join(sorted(by_addr[addrs[i]])), ip - addrs[i])


def symbolize(console, path):
    addrs, by_addr = table(console)
    f = sys.stdin if path == '-' else open(path, errors='replace')
    for line in f:
        print(re.sub(r'\b(?:0x)?(ffff[0-9a-f]{12})\b',
                     lambda m: '%s <%s>' % (m.group(0),
                                             name_of(addrs, by_addr,
                                                     int(m.group(1), 16))),
                     line.rstrip('\n')))
    return 0


def itrace_segment(console, script, min_pct, prefix, most=None):
    """The instructions after each CPU's last trace error (an overflow: a
    recording that began with a full AUX ring), named as with itrace, and
    written as hex addresses to PREFIX.CPU for pt-qemu-check ips.  A
    segment is kept as 9 bytes an instruction (its address, whether its
    name agrees), and is judged as it is read; more than MOST lines of
    input in all is a runaway decode, a failure before memory runs out."""
    addrs, by_addr = table(console)
    segs = collections.defaultdict(lambda: (array.array('Q'), bytearray()))
    resets = collections.Counter()
    overflowed = set()
    later = []       # errors after a CPU's first overflow
    kinds = collections.Counter()   # every error, by perf's message
    funcs = collections.Counter()   # since the last error, for a runaway
    last = collections.defaultdict(lambda: collections.deque(maxlen=4))
    f = sys.stdin if script == '-' else open(script, errors='replace')
    lines = 0
    for line in f:
        lines += 1
        if most is not None and lines > most:
            print('more than %d lines from perf: a runaway decode; %d '
                  'trace errors; the segments now: %s; the most run in '
                  'them: %s' %
                  (most, sum(resets.values()),
                   ', '.join('cpu %d %d' % (c, len(segs[c][0]))
                             for c in sorted(segs)),
                   ', '.join('%s %d' % f for f in funcs.most_common(8))))
            return 1
        m = ITRACE.match(line)
        if m:
            cpu, ip, sym = int(m.group(1)), int(m.group(2), 16), m.group(3)
            funcs[sym] += 1
            if not last[cpu] or last[cpu][-1] != sym:
                last[cpu].append(sym)
            ips, agrees = segs[cpu]
            ips.append(ip)
            i = bisect.bisect_right(addrs, ip) - 1
            agrees.append(ip >= KERNEL_MIN and sym != '[unknown]' and
                          i >= 0 and sym in by_addr[addrs[i]])
            continue
        e = ERROR_CPU.search(line)
        if e:
            cpu = int(e.group(1))
            funcs.clear()
            k = ERROR_KIND.search(line)
            kinds[k.group(1) if k else line.strip()] += 1
            for c in (list(segs) if cpu < 0 else [cpu]):
                if c in overflowed:
                    # where: instructions since the last error, the
                    # functions run last, the error's own address named
                    at = ERROR_IP.search(line)
                    later.append('%s [after %d instructions of cpu %d, '
                                 'last in %s; ip %s]' %
                                 (line.strip(), len(segs[c][0]), c,
                                  ' > '.join(last[c]) or 'nothing',
                                  name_of(addrs, by_addr,
                                          int(at.group(1), 16))
                                  if at else '?'))
                segs[c] = (array.array('Q'), bytearray())
                resets[c] += 1
                if 'Overflow' in line:
                    overflowed.add(c)
    total = agree = 0
    for cpu in sorted(segs):
        ips, agrees = segs[cpu]
        with open('%s.%d' % (prefix, cpu), 'w') as out:
            out.writelines('%x\n' % ip for ip in ips)
        total += sum(1 for ip in ips if ip >= KERNEL_MIN)
        agree += sum(agrees)
        print('cpu %d: %d instructions after its last of %d trace errors' %
              (cpu, len(ips), resets[cpu]))
    pct = 100.0 * agree / total if total else 0.0
    print('trace errors by kind: %s' %
          (', '.join('%s %d' % k for k in kinds.most_common()) or 'none'))
    print('%d kernel instructions after the last trace errors, %d named as '
          'the guest\'s kallsyms says (%.1f%%); %d errors after an '
          'overflow' % (total, agree, pct, len(later)))
    for line in later[:5]:
        print('   ', line)
    return 0 if total and pct >= min_pct and not later else 1


def itrace_last(script, last, wanted):
    tails = {}
    for cpu, _, sym in itrace_lines(script):
        tails.setdefault(cpu, collections.deque(maxlen=last)).append(sym)
    hit = []
    for cpu in sorted(tails):
        seen = list(dict.fromkeys(reversed(tails[cpu])))
        print('cpu %d: the newest of %d instructions in %s' %
              (cpu, len(tails[cpu]), ', '.join(seen[:12])))
        if any(n in seen for n in wanted):
            hit.append(cpu)
    print('%s in the newest %d instructions of cpu %s' %
          (' or '.join(wanted), last, ', '.join(map(str, hit)) or 'none'))
    return 0 if hit else 1


def main(argv):
    if len(argv) >= 3 and argv[1] == 'table':
        text = captured(argv[2])
        print('%d lines, %d bytes' % (text.count('\n'), len(text)))
        return 0
    if len(argv) == 5 and argv[1] == 'names':
        return names(argv[2], argv[3], float(argv[4]))
    if len(argv) == 4 and argv[1] == 'report':
        return report(argv[2], float(argv[3]))
    if len(argv) >= 5 and argv[1] == 'extra':
        return extra(argv[2], argv[3], argv[4:])
    if len(argv) >= 5 and argv[1] == 'crash':
        return crash(argv[2], int(argv[3]), argv[4:])
    if len(argv) == 5 and argv[1] == 'itrace':
        return itrace(argv[2], argv[3], float(argv[4]))
    if len(argv) in (6, 7) and argv[1] == 'itrace-segment':
        return itrace_segment(argv[2], argv[3], float(argv[4]), argv[5],
                              int(argv[6]) if len(argv) == 7 else None)
    if len(argv) >= 5 and argv[1] == 'itrace-last':
        return itrace_last(argv[2], int(argv[3]), argv[4:])
    if len(argv) in (3, 4) and argv[1] == 'symbolize':
        return symbolize(argv[2], argv[3] if len(argv) == 4 else '-')
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
