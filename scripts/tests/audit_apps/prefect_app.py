"""Prefect's server database on PostgreSQL: `prefect server database upgrade -y` (Prefect's own alembic
migrations, run by audit-apps.sh before this) makes the schema, and Prefect's own client
(PrefectClient) fills it through Prefect's REST API, served in this process (the FastAPI app of
prefect.server.api.server.create_app, ephemeral: no UI, no background services, so nothing runs
after the calls return): flows, a work pool, deployments, flow runs and their task runs moving
through Pending, Running and Completed, logs, artifacts and variables. No INSERT of ours.

What makes each id (read in prefect 3.9.1; see expected.tsv): the ORM's `default=uuid.uuid4`
(server/database/orm_models.py, class Base) for rows created through the API, since the models
layer dumps the schema with exclude_unset=True, so the schema's own default id (uuid7 for
TimeSeriesBaseModel: FlowRun, TaskRun, Log) is dropped; states and logs carry ids made by uuid7
(prefect/_internal/uuid7.py) in the schema objects; task runs take the id the task engine makes.

Usage: python prefect_app.py   (PREFECT_API_DATABASE_CONNECTION_URL names the database, already
migrated). Prints "rows TABLE N" lines.
"""
import asyncio
import datetime

from prefect import flow, task
from prefect._internal.uuid7 import uuid7
from prefect.client.orchestration import PrefectClient
from prefect.client.schemas.actions import (
    ArtifactCreate,
    DeploymentScheduleCreate,
    LogCreate,
    VariableCreate,
    WorkPoolCreate,
)
from prefect.client.schemas.schedules import IntervalSchedule
from prefect.server.api.server import create_app
from prefect.states import Completed, Pending, Running

FLOW_RUNS = 100  # flow runs; 3 task runs each; 2 logs a task run (about 1400 API calls)


@flow(name="etl")
def etl():
    pass


@flow(name="report")
def report():
    pass


@task(name="extract")
def extract():
    pass


@task(name="load")
def load():
    pass


async def main():
    app = create_app(ephemeral=True, ignore_cache=True)
    t0 = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    async with PrefectClient(api=app) as client:
        await client.create_work_pool(WorkPoolCreate(name="pool", type="process"))
        deployments = []
        for f in (etl, report):
            flow_id = await client.create_flow(f)  # flow.id: the server's ORMBaseModel, uuid4
            for d in range(2):
                deployments.append(
                    await client.create_deployment(
                        flow_id=flow_id,
                        name=f"{f.name}-{d}",
                        work_pool_name="pool",
                        schedules=[DeploymentScheduleCreate(schedule=IntervalSchedule(interval=datetime.timedelta(hours=1 + d)), active=False)],
                    )
                )
        for i in range(FLOW_RUNS):
            if i % 2:
                run = await client.create_flow_run_from_deployment(deployments[i % 4], state=Pending())
            else:
                run = await client.create_flow_run(etl if i % 4 == 0 else report, state=Pending())
            await client.set_flow_run_state(run.id, Running())
            logs = []
            for k, t in enumerate((extract, load, load)):
                # task_run.id: as Prefect's task engine makes it in the client (task_engine.py,
                # _create_task_run_locally: `task_run_id = id or uuid7()`, Prefect's own uuid7). Left to
                # the API (id=None), it would be the ORM's default, uuid4.
                tr = await client.create_task_run(t, flow_run_id=run.id, dynamic_key=str(k), id=uuid7())
                await client.set_task_run_state(tr.id, Running())
                await client.set_task_run_state(tr.id, Completed())
                logs += [
                    LogCreate(name="prefect.task_runs", level=20, message=f"{t.name} {i}.{k} {j}",
                              timestamp=t0 + datetime.timedelta(seconds=i * 10 + k * 2 + j),
                              flow_run_id=run.id, task_run_id=tr.id)
                    for j in range(2)
                ]
                if k == 2 and i % 4 == 0:
                    await client.create_artifact(
                        ArtifactCreate(key=f"report-{i % 8}", type="markdown", data=f"# run {i}", flow_run_id=run.id, task_run_id=tr.id)
                    )
            await client.create_logs(logs)
            await client.set_flow_run_state(run.id, Completed())
        for v in range(20):
            await client.create_variable(VariableCreate(name=f"var_{v}", value=v))


asyncio.run(main())

import os

import psycopg2

conn = psycopg2.connect(dbname="prefect", host=os.environ["PGHOST"], port=os.environ["PGPORT"], user=os.environ.get("PGUSER", "postgres"))
with conn.cursor() as cur:
    cur.execute(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE nspname = 'public' AND relkind = 'r' ORDER BY relname"
    )
    for (table,) in cur.fetchall():
        cur.execute(f'SELECT count(*) FROM "{table}"')
        print(f"rows {table} {cur.fetchone()[0]}")
