-- The orders table the docs' examples name (docs/CHOOSING.md, OPERATIONS.md, AUDIT.md, README.md):
-- a uuid v4 primary key orders_pkey, as the quick start makes it, with a few thousand rows.
CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), placed_at timestamptz DEFAULT now());
INSERT INTO orders (placed_at) SELECT now() FROM generate_series(1, 5000);
ANALYZE orders;
