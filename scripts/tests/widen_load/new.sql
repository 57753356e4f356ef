-- A new order, its line and its event, one transaction: the order's key from its default (serial
-- or identity), read back and sent as a parameter to the children.
\set customer random(1, 1000)
\set amount random(1, 100000)
\set sku random(1, 5000)
BEGIN;
INSERT INTO orders (customer, amount) VALUES (:customer, :amount) RETURNING id \gset
INSERT INTO order_lines (order_id, sku, qty) VALUES (:id, :sku, 1);
INSERT INTO order_events (order_id, kind) VALUES (:id, 'created');
COMMIT;
