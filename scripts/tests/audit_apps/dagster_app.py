"""Dagster's instance storage on PostgreSQL (dagster-postgres): the instance's own storage classes
make the schema (PostgresRunStorage, PostgresEventLogStorage and PostgresScheduleStorage create
their tables and stamp alembic when they first open an empty database; audit-apps.sh runs
`dagster instance migrate` before this script), and Dagster's own code fills it: jobs of assets
and ops materialized in this process against the instance, RUNS times, each run a row of runs
and its tags, and some thirty events in event_logs (each written in a transaction of its own: the
run's and steps' events, the ops' log lines, asset materializations with their tags, asset check
evaluations); an op job's runs, and runs of a dynamically partitioned asset whose partitions the
instance adds. No INSERT of ours.

Usage: python dagster_app.py   (DAGSTER_HOME names a directory whose dagster.yaml points the
instance's storage at the database dagster, which must exist; libpq's PGHOST, PGPORT, PGUSER name
the server). Prints "rows TABLE N" lines, and the average size of a filled table's rows.
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import dagster as dg
from dagster import DagsterInstance

RUNS = 80  # runs of the asset job (about 30 events each), then one op job run every 2, a partition every 10
# The console logger quiet: the events go to the instance's storage all the same.
QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}

fruits = dg.DynamicPartitionsDefinition(name="fruits")


@dg.asset
def raw_orders(context: dg.AssetExecutionContext):
    context.log.info("reading raw orders " + "x" * 200)
    context.log.warning("a warning of some length " + "y" * 120)
    return [1, 2, 3]


@dg.asset
def clean_orders(context: dg.AssetExecutionContext, raw_orders):
    context.log.info(f"cleaning {len(raw_orders)} orders")
    return [o * 2 for o in raw_orders]


@dg.asset(partitions_def=fruits)
def fruit_stats(context: dg.AssetExecutionContext):
    context.log.info("partition " + context.partition_key)
    return dg.MaterializeResult(metadata={"rows": 3, "partition": context.partition_key})


@dg.asset_check(asset=clean_orders)
def clean_orders_not_empty(clean_orders):
    return dg.AssetCheckResult(passed=bool(clean_orders), metadata={"n": len(clean_orders)})


@dg.op
def emit(context: dg.OpExecutionContext):
    context.log.info("op emit")
    yield dg.AssetMaterialization(asset_key="external_table", metadata={"rows": 10})
    yield dg.Output(1)


@dg.job
def op_job():
    emit()


if __name__ == "__main__":
    instance = DagsterInstance.get()  # DAGSTER_HOME/dagster.yaml: the postgres storages
    with instance:
        for i in range(RUNS):
            res = dg.materialize(
                [raw_orders, clean_orders, clean_orders_not_empty],
                instance=instance,
                tags={"team": f"t{i % 5}", "attempt": str(i)},
                run_config=QUIET,
            )
            assert res.success
            if i % 2 == 0:
                assert op_job.execute_in_process(instance=instance, tags={"kind": "op"}, run_config=QUIET).success
            if i % 10 == 0:
                key = f"fruit{i // 10}"
                instance.add_dynamic_partitions("fruits", [key])
                assert dg.materialize([fruit_stats], instance=instance, partition_key=key, run_config=QUIET).success

    import psycopg2

    conn = psycopg2.connect(dbname="dagster", host=os.environ["PGHOST"], port=os.environ["PGPORT"], user=os.environ.get("PGUSER", "postgres"))
    cur = conn.cursor()
    cur.execute(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE nspname = 'public' AND relkind = 'r' ORDER BY relname"
    )
    for (table,) in cur.fetchall():
        cur.execute(f'SELECT count(*), avg(pg_column_size(t.*))::int FROM "{table}" t')
        n, width = cur.fetchone()
        print(f"rows {table} {n}")
        if n:
            print(f"row bytes {table} {width} (pg_column_size, the average)")
    sys.stdout.flush()
