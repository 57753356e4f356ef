CREATE TABLE bench_v4 (id uuid PRIMARY KEY, payload text);
