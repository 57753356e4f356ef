"""MLflow's tracking store on PostgreSQL: the store's own alembic migrations make the schema (they run
when MlflowClient first opens an empty database), and MLflow's client API fills it: experiments,
runs with their metrics, params and tags, dataset inputs, logged models, and traces (the tracing
API, exported to the same store). No INSERT of ours.

Usage: python mlflow_app.py   (libpq's PGHOST, PGPORT, PGUSER name the server; the database mlflow
must exist and be empty). Prints "rows TABLE N" lines.
"""
import os
import sys
import tempfile

RUNS = 300  # runs; 3 experiments; 4 metrics x 3 steps, 3 params, 2 tags a run

os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")  # traces written before we count
os.environ.setdefault("MLFLOW_TRACKING_INSECURE_TLS", "false")
os.environ["GIT_PYTHON_REFRESH"] = "quiet"
uri = (
    f"postgresql+psycopg2://{os.environ.get('PGUSER', 'postgres')}@/mlflow"
    f"?host={os.environ['PGHOST']}&port={os.environ['PGPORT']}"
)

import mlflow
from mlflow import MlflowClient
from mlflow.entities import (
    Dataset,
    DatasetInput,
    InputTag,
    Metric,
    Param,
    RunTag,
)

artifacts = tempfile.mkdtemp(prefix="mlflow-artifacts-")
mlflow.set_tracking_uri(uri)
client = MlflowClient(tracking_uri=uri)  # the first store on an empty database runs the migrations

experiments = [
    client.create_experiment(f"experiment {e}", artifact_location=f"file://{artifacts}/{e}") for e in range(3)
]
t0 = 1_700_000_000_000
for i in range(RUNS):
    exp = experiments[i % 3]
    run = client.create_run(exp, run_name=f"run-{i}", tags={"team": f"t{i % 5}"})
    rid = run.info.run_id  # uuid.uuid4().hex, made by SqlAlchemyStore.create_run
    metrics = [Metric(f"m{k}", float(i * k + s), t0 + i * 1000 + s, s) for k in range(4) for s in range(3)]
    params = [Param(f"p{k}", str(i * k)) for k in range(3)]
    tags = [RunTag("stage", "train"), RunTag("seed", str(i))]
    client.log_batch(rid, metrics=metrics, params=params, tags=tags)
    if i % 3 == 0:
        ds = Dataset(name=f"data{i % 10}", digest=f"d{i % 10:08d}", source_type="local", source=f"/data/{i % 10}")
        client.log_inputs(rid, datasets=[DatasetInput(ds, tags=[InputTag("mlflow.data.context", "training")])])
    if i % 5 == 0:
        model = client.create_logged_model(exp, name=f"model-{i}", source_run_id=rid)  # "m-" + uuid4 hex
        client.log_model_params(model.model_id, {"alpha": str(i)})
        client.set_logged_model_tags(model.model_id, {"kind": "linear"})
    client.set_terminated(rid)

for i in range(RUNS // 3):  # traces: the tracing API, its spans exported to the store
    with mlflow.start_span(name=f"predict {i}", trace_destination=None) as span:
        span.set_inputs({"x": i})
        with mlflow.start_span(name="inner") as inner:
            inner.set_outputs({"y": i * 2})
mlflow.flush_trace_async_logging() if hasattr(mlflow, "flush_trace_async_logging") else None

import sqlalchemy

engine = sqlalchemy.create_engine(uri)
with engine.connect() as conn:
    tables = conn.execute(
        sqlalchemy.text(
            "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE nspname = 'public' AND relkind = 'r' ORDER BY relname"
        )
    ).scalars()
    for table in list(tables):
        n = conn.execute(sqlalchemy.text(f'SELECT count(*) FROM "{table}"')).scalar()
        print(f"rows {table} {n}")
sys.stdout.flush()
