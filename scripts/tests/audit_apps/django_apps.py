"""Three Django applications, each in a database of its own: their own migrations make the schema,
their own code fills it (no INSERT of ours).

  silk            django-silk: the Django test client sends requests through SilkyMiddleware and
                  silk records each (silk_request, silk_response, silk_sqlquery, silk_profile);
                  the views also use Django's session and auth (django_session, auth_user).
  django_q        django-q2: async_task(..., sync=True) runs tasks through django-q's own worker and
                  monitor in this process, which save them (django_q_task; sync mode raises a
                  failing task's exception rather than saving it, so all succeed); schedule() makes
                  django_q_schedule rows; async_task through the ORM broker leaves django_q_ormq rows.
  celery_results  django-celery-results: Celery runs tasks eagerly and stores their results through
                  the django-db result backend (django_celery_results_taskresult); groups are saved
                  through the backend's save_group (django_celery_results_groupresult).

Usage: python django_apps.py APP   (APP: silk, django_q or celery_results; libpq's PGHOST, PGPORT and
PGUSER name the server; the database APP must exist and be empty). Prints "rows TABLE N" lines.
"""
import os
import sys

import django
from django.conf import settings

APP = sys.argv[1]
ROWS = 300  # requests / tasks: enough for a value sample, small enough for a busy 2-core machine

APPS = {
    "silk": ["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions", "silk"],
    "django_q": ["django_q"],
    "celery_results": ["django_celery_results"],
}

settings.configure(
    DEBUG=False,
    SECRET_KEY="audit-apps, a throwaway cluster",
    USE_TZ=True,
    INSTALLED_APPS=APPS[APP],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": APP,
            "USER": os.environ.get("PGUSER", "postgres"),
            "HOST": os.environ["PGHOST"],
            "PORT": os.environ["PGPORT"],
        }
    },
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "silk.middleware.SilkyMiddleware",
    ]
    if APP == "silk"
    else [],
    ALLOWED_HOSTS=["testserver"],
    # silk: keep every request (no random garbage collection), record all of them.
    SILKY_MAX_RECORDED_REQUESTS=10**6,
    SILKY_MAX_RECORDED_REQUESTS_CHECK_PERCENT=0,
    SILKY_INTERCEPT_PERCENT=100,
    # django-q2: the ORM broker, keep every successful task (save_limit 0: no limit).
    Q_CLUSTER={"name": "audit", "orm": "default", "save_limit": 0, "timeout": 60, "retry": 120,
               "catch_up": False, "log_level": "WARNING"},
    LOGGING_CONFIG=None,
)
django.setup()

from django.core.management import call_command
from django.db import connection
from django.http import HttpResponse
from django.urls import path

urlpatterns = []


def silk_views():
    from django.contrib.auth.models import User
    from silk.profiling.profiler import silk_profile

    def home(request):
        # Django's session: a new session (its key made by SessionBase._get_new_session_key).
        request.session["visits"] = request.session.get("visits", 0) + 1
        n = User.objects.count()
        return HttpResponse(f"users {n}")

    @silk_profile(name="signup")
    def signup(request, i):
        User.objects.create_user(f"user{i}", password=None)
        return HttpResponse("created")

    return [path("", home), path("signup/<int:i>", signup)]


def fill_silk():
    from django.test import Client

    for i in range(ROWS):
        client = Client()  # a new client: a new session each time
        if i % 3 == 0:
            assert client.post(f"/signup/{i}").status_code == 200
        else:
            assert client.get("/").status_code == 200


def fill_django_q():
    import math  # noqa: F401  (the tasks' functions)

    from django_q.tasks import async_task, schedule

    for i in range(ROWS):
        # (sync mode raises a failing task's exception instead of saving it: no failures here)
        async_task("math.sqrt", i, sync=True, group=f"g{i % 7}")
    for i in range(ROWS // 10):
        schedule("math.sqrt", i, name=f"schedule {i}", schedule_type="D")
    for i in range(ROWS // 10):  # through the ORM broker: queued, no cluster runs them
        async_task("math.sqrt", i)


def fill_celery_results():
    from celery import Celery, group

    app = Celery("audit")
    app.conf.update(
        result_backend="django-db",
        task_always_eager=True,
        task_store_eager_result=True,
        result_extended=True,
    )

    @app.task(name="audit.add")
    def add(x, y):
        return x + y

    for i in range(ROWS):
        add.delay(i, i)  # the task id: celery's uuid() (kombu.utils.uuid, str(uuid4()))
    for i in range(ROWS // 10):
        res = group(add.s(i, j) for j in range(3)).apply_async()
        app.backend.save_group(res.id, res)


if APP == "silk":
    urlpatterns = silk_views()

call_command("migrate", verbosity=0, interactive=False)
{"silk": fill_silk, "django_q": fill_django_q, "celery_results": fill_celery_results}[APP]()

with connection.cursor() as cur:
    cur.execute(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE nspname = 'public' AND relkind = 'r' ORDER BY relname"
    )
    for (table,) in cur.fetchall():
        cur.execute(f'SELECT count(*) FROM "{table}"')
        print(f"rows {table} {cur.fetchone()[0]}")
