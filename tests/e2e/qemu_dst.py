#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Helpers for e2e_libvirt_migrate.sh: a destination QEMU for a libvirt
domain's live migration, and a QMP client for it.

  qemu_dst.py argv PID REGION DST_REGION MONITOR CONSOLE PORT
      print, NUL-separated, the command line of a QEMU that receives the
      migration of the running QEMU PID (libvirt's): its own arguments
      with the region's memory backend on DST_REGION, its QMP monitor on
      the UNIX socket MONITOR, its serial console into CONSOLE, no -S (it
      runs once the migration is in), and -incoming tcp:127.0.0.1:PORT.
      The descriptors libvirt passed (monitor, -add-fd) are not there.
  qemu_dst.py qmp MONITOR COMMAND [JSON-ARGUMENTS]
      one QMP command; prints its "return" as JSON; exit 1 on an error.
  qemu_dst.py port
      a TCP port of 127.0.0.1 free now.
"""
import json
import socket
import sys


def dst_argv(pid, region, dst_region, monitor, console, port):
    args = open(f"/proc/{pid}/cmdline", "rb").read().decode().split("\0")
    if args and args[-1] == "":
        args.pop()
    out = []
    fdsets = set()
    i = 0
    replaced = 0
    while i < len(args):
        a = args[i]
        v = args[i + 1] if i + 1 < len(args) else None
        if a == "-S":
            i += 1
            continue
        if a == "-add-fd":
            # the descriptor is libvirt's, not ours: the chardev using
            # its set gets a path of its own below
            fdsets.add(dict(kv.split("=", 1) for kv in v.split(","))["set"])
            i += 2
            continue
        if a == "-chardev" and v is not None:
            opts = v.split(",")
            kind, rest = opts[0], opts[1:]
            kv = dict(o.split("=", 1) if "=" in o else (o, None) for o in rest)
            if kind == "socket" and kv.get("id") == "charmonitor":
                v = f"socket,id=charmonitor,path={monitor},server=on,wait=off"
            elif kind == "file" and kv.get("id") == "charserial0":
                v = f"file,id=charserial0,path={console},append=on"
            elif "fd" in kv or any(kv.get("path", "").startswith(
                    f"/dev/fdset/{s}") for s in fdsets):
                sys.exit(f"qemu_dst.py: a chardev on a descriptor: {v}")
            out += [a, v]
            i += 2
            continue
        if a == "-object" and v is not None and v.startswith("{"):
            o = json.loads(v)
            if o.get("mem-path") == region:
                o["mem-path"] = dst_region
                replaced += 1
                v = json.dumps(o, separators=(",", ":"))
            out += [a, v]
            i += 2
            continue
        out.append(a)
        i += 1
    if replaced != 1:
        sys.exit(f"qemu_dst.py: {replaced} memory backends on {region}")
    out += ["-incoming", f"tcp:127.0.0.1:{port}"]
    sys.stdout.write("\0".join(out) + "\0")


def qmp(monitor, command, arguments=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(monitor)
    f = s.makefile("rw")

    def reply():
        while True:
            line = f.readline()
            if not line:
                sys.exit("qemu_dst.py: the monitor closed")
            m = json.loads(line)
            if "return" in m or "error" in m:
                return m

    json.loads(f.readline())  # the greeting
    f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
    f.flush()
    reply()
    msg = {"execute": command}
    if arguments:
        msg["arguments"] = json.loads(arguments)
    f.write(json.dumps(msg) + "\n")
    f.flush()
    m = reply()
    s.close()
    if "error" in m:
        print(json.dumps(m["error"]))
        sys.exit(1)
    print(json.dumps(m["return"]))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
    s.close()


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "argv" and len(sys.argv) == 8:
        dst_argv(*sys.argv[2:])
    elif what == "qmp" and len(sys.argv) in (4, 5):
        qmp(*sys.argv[2:])
    elif what == "port" and len(sys.argv) == 2:
        free_port()
    else:
        sys.exit(__doc__)
