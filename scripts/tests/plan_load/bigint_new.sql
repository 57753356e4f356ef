-- A new order and its line, one transaction: the order's key from its identity, read back.
\set customer random(1, 1000)
\set amount random(1, 100000)
\set sku random(1, 5000)
BEGIN;
INSERT INTO orders (customer, amount) VALUES (:customer, :amount) RETURNING id \gset
INSERT INTO order_lines (order_id, sku, qty) VALUES (:id, :sku, 1);
COMMIT;
