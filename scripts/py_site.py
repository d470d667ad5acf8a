"""Prints where `make install PREFIX=...` puts the pytest plugin for this interpreter (install.mk):
a dist-packages directory under PREFIX that the interpreter searches (Debian's /usr/local), else
its posix_prefix purelib directory under PREFIX (then PYTHONPATH must name it)."""
import os
import sys
import sysconfig

prefix = os.path.abspath(sys.argv[1])
ver = "python%d.%d" % sys.version_info[:2]
searched = {os.path.abspath(p) for p in sys.path if p}
for cand in (os.path.join(prefix, "lib", ver, "dist-packages"), os.path.join(prefix, "lib", "python3", "dist-packages"),
             os.path.join(prefix, "lib", ver, "site-packages")):
    if cand in searched:
        print(cand)
        sys.exit(0)
print(sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
