"""keybench_capacity on a Django application's database, against the application's own models.

Django's model metadata (the application's code, from PyPI) says which columns are integer keys and
which foreign keys point at them: every model (the many-to-many tables Django makes included), its
primary key, its single-column unique fields and its foreign keys, with the database type Django
gives each (AutoField: integer identity). keybench_capacity('public') must list exactly the integer
ones, each once, a foreign key's row naming its parent, and each key's referenced_by naming every
integer foreign-key column that references it.

Usage: python check_capacity.py APP   (APP: silk, django_q or celery_results; libpq's PGHOST, PGPORT
and PGUSER name the server, where keybench is installed in database APP). Prints ok / not ok lines.
"""
import os
import sys

import django
from django.conf import settings

APP = sys.argv[1]
APPS = {
    "silk": ["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions", "silk"],
    "django_q": ["django_q"],
    "celery_results": ["django_celery_results"],
}
settings.configure(
    INSTALLED_APPS=APPS[APP],
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": APP,
                           "USER": os.environ.get("PGUSER", "postgres"),
                           "HOST": os.environ["PGHOST"], "PORT": os.environ["PGPORT"]}},
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    USE_TZ=True,
)
django.setup()

from django.apps import apps
from django.db import connection

INTEGERS = {"integer", "bigint", "smallint"}


def db_type(field):
    t = field.db_type(connection) or ""
    t = t.split()[0]  # "integer" of "integer" or of AutoField's identity
    return {"serial": "integer", "bigserial": "bigint", "smallserial": "smallint"}.get(t, t)


expected = {}   # "table.column" -> (type, parent "table.column" or None)
children = {}   # "table.column" -> {"child_table.column (type)"}
# Django's own record of the migrations it applied is a model outside the app registry.
from django.db.migrations.recorder import MigrationRecorder

for model in [*apps.get_models(include_auto_created=True), MigrationRecorder.Migration]:
    meta = model._meta
    if not meta.managed or meta.proxy:
        continue
    for f in meta.local_fields:
        t = db_type(f)
        if t not in INTEGERS:
            continue
        name = f"public.{meta.db_table}.{f.column}"
        if f.is_relation and (f.many_to_one or f.one_to_one):
            target = f.target_field
            parent = f"public.{target.model._meta.db_table}.{target.column}"
            if db_type(target) in INTEGERS and (target.primary_key or target.unique):
                expected[name] = (t, parent)
                children.setdefault(parent, set()).add(f"public.{meta.db_table}.{f.column} ({t})")
        elif f.primary_key or f.unique:
            expected[name] = (t, None)

with connection.cursor() as cur:
    cur.execute("SELECT table_name, column_name, column_type, referenced_by, current_basis "
                "FROM keybench_capacity('public')")
    got_rows = cur.fetchall()
got = {}
twice = []
for table, column, ctype, referenced_by, basis in got_rows:
    key = f"{table}.{column}"
    if key in got:
        twice.append(key)
    parent = basis.split("its parent ", 1)[1].split("'s value", 1)[0] if basis.startswith("its parent ") else None
    got[key] = (ctype, parent, referenced_by)


def report(ok, what):
    print(("ok" if ok else "not ok") + f" - audit-apps: {APP}: {what}")
    return ok


good = report(not twice, f"keybench_capacity lists each column once ({len(got_rows)} rows)")
missing = sorted(set(expected) - set(got))
extra = sorted(set(got) - set(expected))
good &= report(not missing and not extra,
               f"keybench_capacity's columns are the integer keys and foreign keys Django's models define ({len(expected)})"
               + (f": missing {missing}" if missing else "") + (f"; not in the models {extra}" if extra else ""))
wrong = [k for k in expected if k in got and (got[k][0], got[k][1]) != expected[k]]
good &= report(not wrong, "each column's type and, for a foreign key, its parent are the models'"
               + (": " + "; ".join(f"{k}: {got[k][:2]} against {expected[k]}" for k in wrong) if wrong else ""))
refs_wrong = []
for key, (_, parent) in expected.items():
    if parent is None and key in got:
        listed = set(filter(None, (got[key][2] or "").split(", ")))
        if listed != children.get(key, set()):
            refs_wrong.append(f"{key}: {sorted(listed)} against {sorted(children.get(key, set()))}")
n_refs = sum(len(v) for v in children.values())
good &= report(not refs_wrong, f"each key's referenced_by names the foreign keys of the models onto it ({n_refs})"
               + (": " + "; ".join(refs_wrong) if refs_wrong else ""))
if APP == "silk":
    good &= report(n_refs > 0, "the schema has integer foreign keys to check (Django's auth and silk's own)")
sys.exit(0 if good else 1)
