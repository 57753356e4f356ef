-- A new order, its two items and its first event, one transaction: the order's key from the
-- column's default, read back and sent back untyped for the children's foreign-key columns.
\set customer random(1, 1000)
\set amount random(1, 100000)
\set sku random(1, 5000)
BEGIN;
INSERT INTO orders (customer, amount) VALUES (:customer, :amount) RETURNING id \gset
INSERT INTO order_items (order_id, sku, qty) VALUES (:id, :sku, 1), (:id, :sku + 1, 2);
INSERT INTO order_events (order_id, kind) VALUES (:id, 'created');
COMMIT;
