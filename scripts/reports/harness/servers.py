"""The throwaway servers of a report, started and stopped by scripts/lib/common.sh (cluster_start,
standby_start, cluster_stop, pg_ctl_start, install_release, svg_to_png): shell stays where servers
are made (as `postgres`, in memory cgroups, with pg_basebackup); this module only calls it and
keeps the list of what is running, so that every server it started is stopped when the report
ends, however it ends.

Ports come from the report's wrapper (scripts/reports/NAME.sh), which takes each from port_for
(scripts/lib/ports.sh) and passes them as KB_REPORT_PORTS="key=port ...".
"""
import atexit
import os
import re
import signal
import subprocess
import sys

from .psql import Psql

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
COMMON = os.path.join(ROOT, "scripts", "lib", "common.sh")


def port(key):
    """The port the wrapper took from port_for for this key of KB_REPORT_PORTS."""
    ports = dict(p.split("=", 1) for p in os.environ.get("KB_REPORT_PORTS", "").split())
    if key not in ports:
        sys.exit(f"no port '{key}' in KB_REPORT_PORTS ({os.environ.get('KB_REPORT_PORTS', '')!r}): "
                 "run the report through its wrapper, scripts/reports/NAME.sh")
    return int(ports[key])


def shell(script, *args, env=None, capture=True):
    """Run a function of scripts/lib/common.sh with these arguments (`script` a function's name), or
    a line of shell using them and "$@"; returns its stdout (stderr passes through)."""
    if re.fullmatch(r"[a-z_]+", script):
        script += ' "$@"'
    function = script
    script = f'. "{COMMON}" >/dev/null && {script}'
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(["bash", "-c", script, "bash"] + [str(a) for a in args], cwd=ROOT, env=e,
                       stdout=subprocess.PIPE if capture else None, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{function} {' '.join(map(str, args))}: failed ({p.returncode})")
    return (p.stdout or "").strip()


class Servers:
    def __init__(self):
        self.running = []  # (name, major, KB_PG_CONFIG or None)
        atexit.register(self.stop_all)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))

    @staticmethod
    def _env(cap_mb=None, pg_config=None):
        env = {}
        if cap_mb:
            env["KB_MEMORY_CAP_MB"] = str(cap_mb)
        if pg_config is not None:
            env["KB_PG_CONFIG"] = pg_config
        return env

    def start(self, name, major, port, *settings, cap_mb=None, pg_config=None):
        """cluster_start NAME MAJOR PORT SETTINGS...: a fresh cluster under target/clusters/NAME;
        with cap_mb, in a memory cgroup of that many MB. Returns psql on it."""
        out = shell('cluster_start "$@" >&2 && printf "%s\\n" "$PGHOST" "$PGPORT" "$PGBIN"',
                    name, major, port, *settings, env=self._env(cap_mb, pg_config))
        host, p, bindir = out.split("\n")[-3:]
        self.running.append((name, major, pg_config))
        return Psql(host, p, bindir)

    def standby(self, primary, name, major, port, *settings, cap_mb=None, pg_config=None):
        """standby_start: a streaming standby of `primary` (pg_basebackup -R); psql on the standby."""
        env = self._env(cap_mb, pg_config)
        env.update(PGHOST=primary.host, PGPORT=primary.port, PGUSER=primary.user, PGDATABASE=primary.dbname)
        out = shell('standby_start "$@" >&2 && printf "%s\\n" "$STANDBY_HOST" "$STANDBY_PORT"',
                    name, major, port, *settings, env=env)
        host, p = out.split("\n")[-2:]
        self.running.append((name, major, pg_config))
        return Psql(host, p, primary.bindir)

    def attach(self, name, major, port, pg_config=None):
        """psql on a cluster kept under target/clusters/NAME from an earlier run (not started)."""
        bindir = shell('"${KB_PG_CONFIG:-$(pg_config_for "$1")}" --bindir', major, env=self._env(None, pg_config))
        return Psql(os.path.join(ROOT, "target", "clusters", name, "sock"), port, bindir)

    def restart(self, name, major, port, *settings, cap_mb=None, pg_config=None):
        """The kept cluster NAME stopped and started again with these settings (pg_ctl_start: in a
        memory cgroup with cap_mb)."""
        self.stop(name, major, pg_config)
        d = os.path.join(ROOT, "target", "clusters", name)
        opts = f"-c port={port} -c listen_addresses='' -c unix_socket_directories='{d}/sock'"
        for s in settings:
            opts += f" -c {s}"
        db = self.attach(name, major, port, pg_config)
        shell("pg_ctl_start", name, db.bindir, d, opts, env=self._env(cap_mb, pg_config))
        self.running.append((name, major, pg_config))
        return db

    def stop(self, name, major, pg_config=None):
        shell("cluster_stop", name, major, env=self._env(None, pg_config))
        self.running = [r for r in self.running if r[:2] != (name, major)]

    def stop_all(self):
        for name, major, pg_config in list(reversed(self.running)):
            try:
                self.stop(name, major, pg_config)
            except Exception as e:  # noqa: BLE001 (stop the others all the same)
                print(f"stopping {name}: {e}", file=sys.stderr)
        self.running = []


def install_release(major, pg_config=None):
    """install_release MAJOR: keybench's release build into that PostgreSQL (KB_PG_CONFIG's install
    when pg_config is given; "" for .pg/MAJOR whatever KB_PG_CONFIG says)."""
    shell("install_release", major, env=Servers._env(None, pg_config), capture=False)


def cgroup_file(name, file):
    """A file of the memory cgroup pg_ctl_start made for the server NAME (cgroup v1)."""
    return os.path.join("/sys/fs/cgroup/memory", f"keybench-{name}", file)


def svg_to_png(svg, width, height):
    """svg_to_png (common.sh): a PNG beside the SVG when Chromium is installed; its path or None."""
    rel = os.path.relpath(os.path.abspath(svg), ROOT)
    png = shell("svg_to_png", rel, width, height)
    return os.path.join(ROOT, png) if png else None
